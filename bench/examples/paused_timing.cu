// A loop body converted from a GB suite that keeps its setup untimed with state.PauseTiming()
// (docs/user_guide.md "Benchmarks that synchronise"). Under manual time the pause does not take
// the restore out of the GPU time; gpubench marks such rows timing_paused=1 and says so. With
// GB 1.7 (Debian 12) GB's own check aborts in gpubench's warm-up body instead, and gpubench
// explains the abort; GB 1.9.1 built for release runs it, and the rows are marked.
// BM_PausedRestore/paused:1 pauses around a ~1 ms restore before a ~100 us kernel; /paused:0
// does the same work without pausing, for comparison.
#include <gpubench/gpubench.hpp>

#include "device_array.cuh"

namespace {

// x = x * a + b on the first n elements.
__global__ void ScaleKernel(float* data, size_t n, float a, float b) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    data[i] = data[i] * a + b;
  }
}

void BM_PausedRestore(benchmark::State& state) {
  const size_t n = size_t{5} << 26, kernel_n = size_t{1} << 25;
  const bool paused = state.range(0) != 0;
  DeviceArray<float> pristine(state, n), data(state, n);
  if (!pristine || !data) return;
  FillKernel<<<BlocksFor(n), 256>>>(pristine.get(), n, 1.0f);
  for (auto _ : gpubench::Loop(state)) {
    if (paused) state.PauseTiming();  // GB's way; gpubench::UntimedScope is gpubench's
    cudaMemcpyAsync(data.get(), pristine.get(), n * sizeof(float), cudaMemcpyDeviceToDevice);
    if (paused) state.ResumeTiming();
    ScaleKernel<<<132 * 8, 256>>>(data.get(), kernel_n, 1.5f, 0.5f);
  }
}
GPUBENCH_BENCHMARK(BM_PausedRestore)->ArgName("paused")->Arg(0)->Arg(1);

}  // namespace

GPUBENCH_MAIN();
