#define __global__ __attribute__((global))
typedef __SIZE_TYPE__ size_t;
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
typedef int hipError_t;
extern "C" hipError_t hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t shm, hipStream_t s);
extern "C" hipError_t __hipPopCallConfiguration(dim3 *g, dim3 *b, size_t *shm, hipStream_t *s);
extern "C" unsigned __hipPushCallConfiguration(dim3 g, dim3 b, size_t shm = 0, hipStream_t s = 0);
__global__ void kern(int *p) { *p = 1; }
