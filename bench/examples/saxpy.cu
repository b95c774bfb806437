// SAXPY, y = a * x + y: reads x and y, writes y, so 3 * n * 4 bytes per iteration.
#include <gpubench/gpubench.hpp>

#include "device_array.cuh"

__global__ void SaxpyKernel(float a, const float* __restrict__ x, float* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    y[i] = a * x[i] + y[i];
  }
}

static void BM_Saxpy(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  DeviceArray<float> x(state, n), y(state, n);
  if (!x || !y) return;
  FillKernel<<<BlocksFor(n), 256>>>(x.get(), n, 1.0f);
  FillKernel<<<BlocksFor(n), 256>>>(y.get(), n, 2.0f);
  for (auto _ : gpubench::Loop(state)) {
    SaxpyKernel<<<BlocksFor(n), 256>>>(1.0001f, x.get(), y.get(), n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 3 * n * sizeof(float)));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * 2 * n));  // FLOPs
}
GPUBENCH_BENCHMARK(BM_Saxpy)->Arg(1 << 29);
