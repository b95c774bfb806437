// What the standalone timing experiments share (timing_methods.cu, profiler_attach.cu): a CUDA
// check that exits, the global timer, gpubench's read-only L2 flush and the measured kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                     \
  do {                                                                  \
    cudaError_t error_ = (call);                                        \
    if (error_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(error_));                         \
      std::exit(1);                                                     \
    }                                                                   \
  } while (0)

namespace experiment {

__device__ inline unsigned long long GlobalTimer() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// The same read-only flush as gpubench's (src/cuda_backend.cu).
__global__ void FlushKernel(const uint4* __restrict__ buffer, size_t words, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const uint4 value = __ldcg(buffer + i);
    acc ^= value.x ^ value.y ^ value.z ^ value.w;
  }
  if (acc == 0x9e3779b9u && threadIdx.x == 0) *sink = acc;
}

__global__ void TinyKernel(float* p) {
  if (threadIdx.x == 0) p[0] += 1;
}

__global__ void CopyKernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

}  // namespace experiment
