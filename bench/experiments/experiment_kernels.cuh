// What the standalone timing experiments share (timing_methods.cu, profiler_attach.cu,
// sum_neighbours.cu, cupti_buffers.cu): a CUDA check that exits, the global timer, gpubench's
// read-only L2 flush and the measured kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

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

// After kokkos/mdspan's BM_Raw_Cuda_Sum_3D_left at 80^3, launched as its suite launches it (one
// block per SM, blocks of 1x32x4 threads): each pass reads the whole array with lanes 51.2 KB apart
// and writes element 0. Not an exact copy: with int indices it runs in 13.1 ms on an H100, the
// suite's kernel in 22.4 ms.
constexpr int kSumExtent = 80;

__global__ void LeftSumKernel(double* s, int repeats) {
  constexpr int n = kSumExtent;
  for (int r = 0; r < repeats; ++r) {
    double sum = 0;
    for (int i = blockIdx.x; i < n; i += gridDim.x) {
      for (int j = threadIdx.z; j < n; j += blockDim.z) {
        for (int k = threadIdx.y; k < n; k += blockDim.y) sum += s[i + n * (j + n * k)];
      }
    }
    *(volatile double*)s = sum;
    asm volatile("" : : : "memory");
  }
}

inline void LaunchLeftSum(double* s, int sms, int repeats) {
  LeftSumKernel<<<sms, dim3(1, 32, 4)>>>(s, repeats);
}

// What LeftSumKernel leaves out of the suite's BM_MDSpan_Cuda_Sum_3D/left_fixed_80_80_80: its
// elements are ints (a 2,048,000-byte array), its loops count in size_t, and its DoNotOptimize
// passes element 0, a volatile lvalue, to an asm with a "+r" operand, so that every pass stores
// the sum, reads it back and stores it again.
__device__ __forceinline__ void KeepReadBack(volatile int& value) {
  asm volatile("" : "+r"(value) : : "memory");
}

// `where`, when given, gets each block's SM and its first and last global-timer reading (3 words
// per block), to see where the blocks ran.
__global__ void SuiteLeftSumKernel(int* s, int repeats, unsigned long long* where) {
  constexpr size_t n = kSumExtent;
  if (where != nullptr && threadIdx.y == 0 && threadIdx.z == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    where[3 * blockIdx.x] = sm;
    where[3 * blockIdx.x + 1] = GlobalTimer();
  }
  for (int r = 0; r < repeats; ++r) {
    int sum = 0;
    for (size_t i = blockIdx.x; i < n; i += gridDim.x) {
      for (size_t j = threadIdx.z; j < n; j += blockDim.z) {
        for (size_t k = threadIdx.y; k < n; k += blockDim.y) {
          sum += s[static_cast<int>(i) +
                   kSumExtent * (static_cast<int>(j) + kSumExtent * static_cast<int>(k))];
        }
      }
    }
    KeepReadBack(*(volatile int*)s = sum);
    asm volatile("" : : : "memory");
  }
  if (where != nullptr && threadIdx.y == 0 && threadIdx.z == 0) {
    where[3 * blockIdx.x + 2] = GlobalTimer();
  }
}

inline void LaunchSuiteLeftSum(int* s, int sms, int repeats, unsigned long long* where = nullptr) {
  SuiteLeftSumKernel<<<sms, dim3(1, 32, 4)>>>(s, repeats, where);
}

// A new array for the sum, filled from the host and never freed here. (The suite frees its array
// at the end of each repetition and gets the same address back: NOTES-left-sum.md, section 3.)
template <class T>
T* NewArrayOf() {
  const size_t count = static_cast<size_t>(kSumExtent) * kSumExtent * kSumExtent;
  std::vector<T> host(count);
  for (size_t i = 0; i < count; ++i) host[i] = static_cast<T>((i * 2654435761u) % 1000) / 1000;
  T* device = nullptr;
  CHECK(cudaMalloc(&device, count * sizeof(T)));
  CHECK(cudaMemcpy(device, host.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

inline double* NewSumArray() { return NewArrayOf<double>(); }

}  // namespace experiment
