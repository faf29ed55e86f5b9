#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
struct dim3 { unsigned x, y, z; __device__ __attribute__((host)) dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
extern "C" unsigned __hipPushCallConfiguration(dim3, dim3, unsigned long = 0, hipStream_t = 0);
extern "C" unsigned __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, hipStream_t *);
__global__ void kern(int *p) { *p = 1; }
__device__ int devglobal = 3;
void launch(int *p) { kern<<<1, 1>>>(p); }
