// A suite with a main of its own, written as README's recipe says: gpubench::Initialize first, its
// result checked, then GB's own Initialize and RunSpecifiedBenchmarks with GB's reporters (the
// common shape of a suite whose main lives in a shared header).
// OWN_MAIN_PLAIN_GB_BENCHMARK=1 adds a CPU benchmark registered with GB's own API (no count of
// its own); OWN_MAIN_COUNTER_REPORTER=1 makes gpubench::CounterReporter the display reporter.
// Built a second time with OWN_MAIN_SUITE_AS_GPUBENCH_MAIN: the same suite under GPUBENCH_MAIN().
#include <gpubench/gpubench.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>

// GPU work without a kernel: a memset on the default stream.
static void BM_OwnMainMemset(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  void* data = nullptr;
  if (cudaMalloc(&data, bytes) != cudaSuccess) {
    cudaGetLastError();  // without a GPU the loop skips with the reason
    data = nullptr;
  }
  for (auto _ : gpubench::Loop(state)) {
    cudaMemsetAsync(data, 0, bytes, nullptr);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
  if (data != nullptr) cudaFree(data);
}
GPUBENCH_BENCHMARK(BM_OwnMainMemset)->Arg(1 << 20)->Arg(1 << 28);

[[maybe_unused]] static bool Asked(const char* variable) {
  const char* value = std::getenv(variable);
  return value != nullptr && std::strcmp(value, "1") == 0;
}

// CPU work GB times its own way: GB's rule decides its count.
[[maybe_unused]] static void BM_PlainCpu(benchmark::State& state) {
  std::uint64_t x = 1;
  for (auto _ : state) benchmark::DoNotOptimize(x = x * 6364136223846793005ULL + 1);
}

#ifdef OWN_MAIN_SUITE_AS_GPUBENCH_MAIN
// The twin (gpubench_own_main_twin): the same benchmarks under GPUBENCH_MAIN(), whose settings
// fingerprint a main of one's own with gpubench's rule must share.
GPUBENCH_MAIN();
#else
int main(int argc, char** argv) {
  if (Asked("OWN_MAIN_PLAIN_GB_BENCHMARK"))
    benchmark::RegisterBenchmark("BM_PlainCpu", BM_PlainCpu);
  const gpubench::InitResult init = gpubench::Initialize(&argc, argv);
  if (!init.run_benchmarks) return init.exit_code;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  if (Asked("OWN_MAIN_COUNTER_REPORTER")) {
    gpubench::CounterReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  return 0;
}
#endif
