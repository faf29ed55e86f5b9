#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ int dev_var = 1;
__device__ int helper(int x) { return x + dev_var; }
__global__ void kern(int *p) { *p = helper(1); }
template <typename T> __global__ void tk(T *p) { *p = 0; }
template __global__ void tk<float>(float *);
