int main(void) { int x = 0;
#pragma omp target map(tofrom: x)
  x = 1;
  return x; }
