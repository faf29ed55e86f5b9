int mac_global = 1;
int mac_func(void) { return mac_global; }
__attribute__((weak)) void mac_weak(void) {}
static void mac_static(void) {}
void use(void) { mac_static(); }
