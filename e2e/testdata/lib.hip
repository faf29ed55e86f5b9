// The static library side of the end-to-end `-fgpu-rdc --hip-link` test:
// a kernel, a device function and a host launcher, compiled with
// -fgpu-rdc -c and archived with llvm-ar.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

struct dim3 {
  unsigned x, y, z;
};
typedef struct ihipStream_t *hipStream_t;

extern "C" {
int hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args,
                    unsigned long sharedMem, hipStream_t stream);
int __hipPushCallConfiguration(dim3 grid, dim3 block,
                               unsigned long sharedMem = 0,
                               hipStream_t stream = 0);
int __hipPopCallConfiguration(dim3 *grid, dim3 *block,
                              unsigned long *sharedMem, hipStream_t *stream);
}

__device__ double lib_square(double v) { return v * v; }

__global__ void lib_kernel(double *p, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  if (i < n)
    p[i] = lib_square(p[i]);
}

extern "C" void lib_run(double *p, int n) {
  lib_kernel<<<dim3{1, 1, 1}, dim3{64, 1, 1}>>>(p, n);
}
