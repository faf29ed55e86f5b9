static int only_static(void) { return 0; }
extern int only_decl;
int (*get_it(void))(void) { return 0; }
