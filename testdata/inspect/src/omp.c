// OpenMP target offloading (a copy of e2e/testdata/omp.c). gen.sh compiles it
// from standard input: clang names target regions after the source file's
// device and inode numbers, which would change with every checkout.
#include <stddef.h>

#pragma omp declare target
static double twice(double v) { return 2.0 * v; }
#pragma omp end declare target

double sum(const double *a, size_t n) {
  double s = 0;
#pragma omp target teams distribute parallel for map(to : a[0:n]) reduction(+ : s)
  for (size_t i = 0; i < n; i++)
    s += twice(a[i]);
  return s;
}

int main(void) {
  double a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  return sum(a, 8) == 72.0 ? 0 : 1;
}
