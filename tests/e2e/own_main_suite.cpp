// A suite with a main of its own, written as README's recipe says: gpubench::Initialize first, its
// result checked, then GB's own Initialize and RunSpecifiedBenchmarks with GB's reporters (the
// common shape of a suite whose main lives in a shared header).
#include <gpubench/gpubench.hpp>

#include <cstdint>

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
GPUBENCH_BENCHMARK(BM_OwnMainMemset)->Arg(1 << 20);

int main(int argc, char** argv) {
  const gpubench::InitResult init = gpubench::Initialize(&argc, argv);
  if (!init.run_benchmarks) return init.exit_code;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
