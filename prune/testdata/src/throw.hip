// A HIP translation unit whose host code throws a C++ exception that its
// caller, in another file, catches: unwinding crosses .eh_frame_hdr and
// .eh_frame, which follow .hip_fatbin in the file and move when it shrinks.
#include "hip.h"
#include <stdexcept>

__global__ void throw_kernel(int *p) { p[tid()] = 3; }

extern "C" int throw_run(int v) {
  throw_kernel<<<dim3{1, 1, 1}, dim3{64, 1, 1}>>>(0);
  if (v > 0)
    throw std::runtime_error("thrown across the library");
  return v;
}
