// The few declarations the HIP runtime headers would provide, so that the
// sources here compile with -nogpulib -nogpuinc (no ROCm installed):
// clang lowers kernel<<<...>>>(...) to these three calls.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __constant__ __attribute__((constant))

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

__device__ static inline unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }
