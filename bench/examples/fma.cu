// Compute bound: each thread runs a chain of fused multiply-adds on registers and writes one
// value, so DRAM traffic is negligible and time follows the SM clock. 2 FLOPs per FMA.
#include <gpubench/gpubench.hpp>

#include "device_array.cuh"

constexpr int kFmaPerThread = 4096;
constexpr int kChains = 8;  // independent chains keep the FMA pipes busy

__global__ void FmaKernel(float* out, float seed) {
  float value[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) value[c] = seed + threadIdx.x * 1e-3f + c;
  for (int i = 0; i < kFmaPerThread / kChains; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) value[c] = fmaf(value[c], 0.999999f, 1e-6f);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += value[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

static void BM_Fma(benchmark::State& state) {
  const int blocks = static_cast<int>(state.range(0));
  const int threads = 256;
  DeviceArray<float> out(state, static_cast<size_t>(blocks) * threads);
  if (!out) return;
  for (auto _ : gpubench::Loop(state)) {
    FmaKernel<<<blocks, threads>>>(out.get(), 1.0f);
  }
  state.SetItemsProcessed(state.iterations() * int64_t{blocks} * threads * kFmaPerThread * 2);
}
GPUBENCH_BENCHMARK(BM_Fma)->Arg(132 * 16);
