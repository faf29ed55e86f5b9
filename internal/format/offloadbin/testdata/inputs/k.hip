#define __global__ __attribute__((global))
typedef struct { unsigned x, y, z; } dim3;
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long, void*);
extern "C" int __hipPopCallConfiguration(dim3*, dim3*, unsigned long*, void*);
__global__ void kern(int *p) { *p = 42; }
