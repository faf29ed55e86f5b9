// Translation unit 2: a kernel template and a __constant__ table.
#include "hip.h"

__constant__ int k2_table[4] = {1, 2, 3, 4};

template <typename T> __global__ void k2_add(T *p, int n) {
  unsigned i = tid();
  if (i < (unsigned)n)
    p[i] += T(k2_table[i & 3]);
}

extern "C" void k2_run(int *p, int n) {
  k2_add<int><<<dim3{1, 1, 1}, dim3{64, 1, 1}>>>(p, n);
}
