// A self-contained HIP program that compiles without HIP headers or a GPU
// runtime: the few declarations the HIP runtime headers would provide are
// spelled out below. Used by goffload's end-to-end tests (e2e/) and by
// scripts/e2e.sh as the default source.
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

__constant__ float coeff[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__device__ int calls;

__device__ float poly(float x) {
  return coeff[0] + x * (coeff[1] + x * (coeff[2] + x * coeff[3]));
}

__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n)
    y[i] = a * x[i] + poly(y[i]);
  if (i == 0)
    __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
}

template <typename T> __global__ void fill(T *p, T v, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  if (i < n)
    p[i] = v;
}

void run(const float *x, float *y, int n) {
  saxpy<<<dim3{(unsigned)(n + 63) / 64, 1, 1}, dim3{64, 1, 1}>>>(2.0f, x, y, n);
  fill<int><<<dim3{1, 1, 1}, dim3{64, 1, 1}>>>((int *)y, 0, n);
}

int main() {
  run(0, 0, 0);
  return 0;
}
