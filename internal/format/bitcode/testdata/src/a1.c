int first_mod_fn(void) { return 1; }
int first_mod_var = 1;
