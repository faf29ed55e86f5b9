int second_mod_fn(void) { return 2; }
static int second_static;
__attribute__((weak)) int second_weak;
