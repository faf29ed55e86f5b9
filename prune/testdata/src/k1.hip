// Translation unit 1: a kernel, a __device__ variable and a host launcher.
#include "hip.h"

__device__ int k1_calls;

__global__ void k1_scale(float *p, float a, int n) {
  unsigned i = tid();
  if (i < (unsigned)n)
    p[i] *= a;
  if (i == 0)
    __atomic_fetch_add(&k1_calls, 1, __ATOMIC_RELAXED);
}

extern "C" void k1_run(float *p, int n) {
  k1_scale<<<dim3{1, 1, 1}, dim3{64, 1, 1}>>>(p, 2.0f, n);
}
