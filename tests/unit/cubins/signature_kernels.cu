// Kernels for tests/unit/test_work_signature.cpp, compiled to cubins at build time
// (tests/unit/CMakeLists.txt) once per variant: each -D below changes one thing, and the test
// checks which functions' hashes follow it.
//   B_SCALE        kernel_b's own code only
//   HELPER_OFFSET  helper(), the __noinline__ device function kernel_a calls
//   HELPER_B_SCALE helper_b(), the one kernel_b calls
//   TABLE_FIRST    the initialiser of the __constant__ table kernel_a reads
#ifndef B_SCALE
#define B_SCALE 2.0f
#endif
#ifndef HELPER_OFFSET
#define HELPER_OFFSET 1.0f
#endif
#ifndef HELPER_B_SCALE
#define HELPER_B_SCALE 5.0f
#endif
#ifndef TABLE_FIRST
#define TABLE_FIRST 1.0f
#endif

__constant__ float table[4] = {TABLE_FIRST, 2.0f, 3.0f, 4.0f};

__device__ __noinline__ float helper(float x) { return x * 3.0f + HELPER_OFFSET; }
__device__ __noinline__ float helper_b(float x) { return x * HELPER_B_SCALE - 1.0f; }

__global__ void kernel_a(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = helper(in[i]) + table[i & 3];
}

__global__ void kernel_b(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = helper_b(B_SCALE * i);
}

template <int K>
__global__ void scaled(int* out) {
  out[threadIdx.x] = K * static_cast<int>(threadIdx.x);
}
template __global__ void scaled<3>(int*);
template __global__ void scaled<4>(int*);
