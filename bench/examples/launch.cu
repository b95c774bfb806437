// Launch bound: one tiny kernel per iteration does almost nothing, so the time is launch and
// scheduling overhead. Compare --gpubench_cache=keep (iterations back to back, one event pair
// per run) with flush (an L2 flush, then an event pair around every held iteration).
#include <gpubench/gpubench.hpp>

#include "device_array.cuh"

__global__ void TinyKernel(int* counter) {
  if (threadIdx.x == 0) atomicAdd(counter, 1);
}

static void BM_TinyKernel(benchmark::State& state) {
  DeviceArray<int> counter(state, 1);
  if (!counter) return;
  for (auto _ : gpubench::Loop(state)) {
    TinyKernel<<<1, 32>>>(counter.get());
  }
  state.SetItemsProcessed(state.iterations());  // launches per second
}
GPUBENCH_BENCHMARK(BM_TinyKernel);
