// Fusion measured in bytes moved. Unfused: t = a * x (read x, write t), then y = t + b
// (read t, write y): 4 * n * 4 bytes. Fused: y = a * x + b (read x, write y): 2 * n * 4 bytes.
// The analytic ratio is 2; dram_read_bytes + dram_write_bytes (bytes_moved) shows it.
#include <gpubench/gpubench.hpp>

#include "device_array.cuh"

__global__ void ScaleKernel(float a, const float* __restrict__ x, float* __restrict__ t, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    t[i] = a * x[i];
  }
}

__global__ void OffsetKernel(float b, const float* __restrict__ t, float* __restrict__ y,
                             size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    y[i] = t[i] + b;
  }
}

__global__ void ScaleOffsetKernel(float a, float b, const float* __restrict__ x,
                                  float* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    y[i] = a * x[i] + b;
  }
}

static void BM_Unfused(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  DeviceArray<float> x(state, n), t(state, n), y(state, n);
  if (!x || !t || !y) return;
  FillKernel<<<BlocksFor(n), 256>>>(x.get(), n, 1.0f);
  for (auto _ : gpubench::Loop(state)) {
    ScaleKernel<<<BlocksFor(n), 256>>>(2.0f, x.get(), t.get(), n);
    OffsetKernel<<<BlocksFor(n), 256>>>(1.0f, t.get(), y.get(), n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 4 * n * sizeof(float)));
}
GPUBENCH_BENCHMARK(BM_Unfused)->Arg(1 << 29);

static void BM_Fused(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  DeviceArray<float> x(state, n), y(state, n);
  if (!x || !y) return;
  FillKernel<<<BlocksFor(n), 256>>>(x.get(), n, 1.0f);
  for (auto _ : gpubench::Loop(state)) {
    ScaleOffsetKernel<<<BlocksFor(n), 256>>>(2.0f, 1.0f, x.get(), y.get(), n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * n * sizeof(float)));
}
GPUBENCH_BENCHMARK(BM_Fused)->Arg(1 << 29);
