// A suite whose error check calls std::terminate() when a CUDA call fails (a common CHECK_CUDA),
// beside CPU benchmarks registered with GB's own macro. Without a GPU, gpubench must not call its
// GPU benchmarks at all: their set-up would end the whole run.
//
// The test binary itself reads two variables (gpubench reads neither):
// ABORTING_SUITE_CPU_TERMINATE=1 registers a CPU benchmark that prints a line and calls
// std::terminate(): an abort in a benchmark that runs without a GPU (tests/e2e/check_aborts.py).
// ABORTING_SUITE_GPU_TERMINATE=1 registers a GPU benchmark that does the same before its loop,
// after the GPU benchmarks that finish (tests/gpu/check_abort.py, on a GPU).
#include <gpubench/gpubench.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <numeric>
#include <vector>

#define ABORTING_SUITE_CHECK(call)                                                     \
  do {                                                                                 \
    const cudaError_t status = (call);                                                 \
    if (status != cudaSuccess) {                                                       \
      std::printf("aborting_suite: %s failed: %s\n", #call, cudaGetErrorName(status)); \
      std::terminate();                                                                \
    }                                                                                  \
  } while (false)

static bool Asked(const char* variable) {
  const char* value = std::getenv(variable);
  return value != nullptr && std::strcmp(value, "1") == 0;
}

static void BM_HostFirst(benchmark::State& state) {
  std::vector<int> values(256);
  for (auto _ : state) {
    std::iota(values.begin(), values.end(), 0);
    benchmark::DoNotOptimize(values.data());
  }
}
BENCHMARK(BM_HostFirst);

static void BM_DeviceFill(benchmark::State& state) {
  // Printed only when the set-up runs: without a GPU it must not.
  std::printf("aborting_suite: the set-up of BM_DeviceFill/%lld runs\n",
              static_cast<long long>(state.range(0)));
  const size_t bytes = static_cast<size_t>(state.range(0));
  void* data = nullptr;
  ABORTING_SUITE_CHECK(cudaMalloc(&data, bytes));
  for (auto _ : gpubench::Loop(state)) cudaMemsetAsync(data, 0, bytes, nullptr);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
  ABORTING_SUITE_CHECK(cudaFree(data));
}
GPUBENCH_BENCHMARK(BM_DeviceFill)->Arg(1 << 20)->Arg(1 << 22);

static void BM_HostTerminates(benchmark::State& state) {
  std::printf("aborting_suite: BM_HostTerminates calls std::terminate()\n");
  std::terminate();
  for (auto _ : state) {
  }
}

static void BM_DeviceTerminates(benchmark::State& state) {
  std::printf("aborting_suite: BM_DeviceTerminates calls std::terminate()\n");
  std::terminate();
  for (auto _ : gpubench::Loop(state)) {
  }
}

// Registered here, in this file's order: after the benchmarks above, before those below.
static const bool terminating_registered = [] {
  if (Asked("ABORTING_SUITE_CPU_TERMINATE")) {
    benchmark::RegisterBenchmark("BM_HostTerminates", BM_HostTerminates);
  }
  if (Asked("ABORTING_SUITE_GPU_TERMINATE")) {
    gpubench::RegisterBenchmark("BM_DeviceTerminates", BM_DeviceTerminates);
  }
  return true;
}();

static void BM_HostLast(benchmark::State& state) {
  long long sum = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sum += 1);
}
BENCHMARK(BM_HostLast);

GPUBENCH_MAIN();
