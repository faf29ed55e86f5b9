int g = 5; static int s; int bss_v;
static int helper(int x){return x*3+s;}
int foo(int x){ return helper(x)+g; }
int (*fp)(int) = foo;
const char *str = "hello";
