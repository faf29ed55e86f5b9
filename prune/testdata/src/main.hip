// The main translation unit of the executables (linked with k2.hip): its
// own kernel plus a call into k2.
#include "hip.h"

extern "C" void k2_run(int *p, int n);

__global__ void main_fill(int *p, int v, int n) {
  unsigned i = tid();
  if (i < (unsigned)n)
    p[i] = v;
}

int main() {
  main_fill<<<dim3{1, 1, 1}, dim3{64, 1, 1}>>>(0, 7, 0);
  k2_run(0, 0);
  return 0;
}
