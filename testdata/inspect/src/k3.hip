// Translation unit 3: one more kernel, on doubles.
#include "hip.h"

__global__ void k3_zero(double *p, int n) {
  unsigned i = tid();
  if (i < (unsigned)n)
    p[i] = 0.0;
}

extern "C" void k3_run(double *p, int n) {
  k3_zero<<<dim3{1, 1, 1}, dim3{64, 1, 1}>>>(p, n);
}
