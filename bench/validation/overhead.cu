// gpubench's own host cost per iteration, in one run beside two bare loops:
//   BM_Bare_LaunchRecordSync  launch + cudaEventRecord + cudaEventSynchronize per iteration
//   BM_Bare_LaunchOnly        launches back to back, one synchronize at the end
//   BM_Gpubench_Loop          the same launch inside gpubench::Loop
// The near-empty kernel keeps the GPU idle most of the time, so each loop is host-bound and its
// wall time per iteration (counter wall_per_iteration, seconds) is host cost. With
// --gpubench_cache=keep gpubench never waits per iteration either, so
//   added host cost per iteration = Gpubench_Loop - Bare_LaunchOnly.
// Run with --gpubench_profile_iterations=0 so that no profiling is counted; see docs/user_guide.md.
#include <gpubench/gpubench.hpp>

#include <chrono>

#include "device_array.cuh"

__global__ void EmptyKernel(int* sink) {
  if (threadIdx.x == 1024) *sink = 1;  // never true: the kernel does nothing, but exists
}

namespace {

using Clock = std::chrono::steady_clock;

void SetWallPerIteration(benchmark::State& state, Clock::time_point start) {
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (state.iterations() > 0) {
    state.counters["wall_per_iteration"] = seconds / static_cast<double>(state.iterations());
  }
}

}  // namespace

static void BM_Bare_LaunchRecordSync(benchmark::State& state) {
  DeviceArray<int> sink(state, 1);
  cudaEvent_t done;
  if (!sink || cudaEventCreate(&done) != cudaSuccess) {
    if (!state.error_occurred()) state.SkipWithError("no CUDA device for the bare loop");
    return;
  }
  const auto start = Clock::now();
  for (auto _ : state) {
    EmptyKernel<<<1, 32>>>(sink.get());
    cudaEventRecord(done);
    cudaEventSynchronize(done);
  }
  SetWallPerIteration(state, start);
  cudaEventDestroy(done);
}
BENCHMARK(BM_Bare_LaunchRecordSync)->UseRealTime();

static void BM_Bare_LaunchOnly(benchmark::State& state) {
  DeviceArray<int> sink(state, 1);
  if (!sink) return;
  const auto start = Clock::now();
  for (auto _ : state) EmptyKernel<<<1, 32>>>(sink.get());
  cudaDeviceSynchronize();
  SetWallPerIteration(state, start);
}
BENCHMARK(BM_Bare_LaunchOnly)->UseRealTime();

static void BM_Gpubench_Loop(benchmark::State& state) {
  DeviceArray<int> sink(state, 1);
  if (!sink) return;
  const auto start = Clock::now();
  for (auto _ : gpubench::Loop(state)) EmptyKernel<<<1, 32>>>(sink.get());
  SetWallPerIteration(state, start);
}
GPUBENCH_BENCHMARK(BM_Gpubench_Loop);

GPUBENCH_MAIN();
