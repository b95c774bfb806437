// Kernels shared by the GPU tests.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <gpubench/loop.hpp>

#include <cstddef>

__global__ void CopyKernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

// Reads every element; writes one value only if the impossible happens, so it moves no bytes
// to DRAM by itself.
__global__ void ReadKernel(const float* __restrict__ in, size_t n, float* sink) {
  float acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    acc += in[i];
  }
  if (acc == -1.2345f) *sink = acc;
}

__global__ void FillKernel(float* data, size_t n, float value) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    data[i] = value + static_cast<float>(i % 97);
  }
}

__global__ void SpinKernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

inline unsigned Blocks(size_t n) {
  const size_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(blocks < 132 * 64 ? blocks : 132 * 64);
}

// A copy of state.range(0) floats per iteration, timed by gpubench.
inline void CopyBenchmark(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * 4) != cudaSuccess || cudaMalloc(&out, n * 4) != cudaSuccess) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  FillKernel<<<Blocks(n), 256>>>(in, n, 1.0f);
  for (auto _ : gpubench::Loop(state)) CopyKernel<<<Blocks(n), 256>>>(in, out, n);
  cudaFree(in);
  cudaFree(out);
}
