int g = 5;
int foo(int x){ return x + g; }
void _start(void){ for(;;); }
