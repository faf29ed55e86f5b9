#define __global__ __attribute__((global))
typedef struct { unsigned x,y,z; } dim3x;
extern "C" int hipLaunchKernel(const void*, dim3x, dim3x, void**, unsigned long, void*);
extern "C" int __hipPushCallConfiguration(dim3x, dim3x, unsigned long, void*);
extern "C" int __hipPopCallConfiguration(dim3x*, dim3x*, unsigned long*, void*);
__global__ void kern(int *p){ *p = 1; }
int hostfn(){ return 3; }
