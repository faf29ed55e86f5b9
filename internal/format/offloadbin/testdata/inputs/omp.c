int f(int *a) {
#pragma omp target map(tofrom: a[0:1])
  a[0] = 1;
  return a[0];
}
