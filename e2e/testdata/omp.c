// OpenMP target offloading for the end-to-end tests (compile and link).
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
