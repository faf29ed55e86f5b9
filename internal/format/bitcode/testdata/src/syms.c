int defined_global = 1;
__attribute__((weak)) int weak_def = 2;
__attribute__((visibility("hidden"))) int hidden_def = 3;
int common_sym;
static int static_var = 4;
extern int ext_decl;
int func(void) { return static_var + ext_decl; }
static int sfunc(void){return 1;}
__attribute__((weak)) int wfunc(void){return sfunc();}
int alias_f(void) __attribute__((alias("func")));
static int (*resolve(void))(void) { return func; }
int ifn(void) __attribute__((ifunc("resolve")));
__asm__(".globl asm_sym\nasm_sym:\n.weak asm_weak\nasm_weak:\nasm_local:\n");
_Thread_local int tls_v = 5;
extern void undef_fn(void);
void callit(void){ undef_fn(); }
