// A suite that mixes plain CPU benchmarks with a GPU one, as when gpubench is added to an
// existing GB suite: the console must title each row's time for what it is.
#include <gpubench/gpubench.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

static void BM_HostSort(benchmark::State& state) {
  std::vector<int> values(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    std::iota(values.rbegin(), values.rend(), 0);
    std::sort(values.begin(), values.end());
    benchmark::DoNotOptimize(values.data());
  }
}
BENCHMARK(BM_HostSort)->Arg(1 << 10);

// GPU work without a kernel: a memset on the default stream.
static void BM_DeviceMemset(benchmark::State& state) {
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
GPUBENCH_BENCHMARK(BM_DeviceMemset)->Arg(1 << 20);

static void BM_HostParse(benchmark::State& state) {
  const std::string text = "1234567";
  for (auto _ : state) {
    long value = std::stol(text);
    benchmark::DoNotOptimize(value);
  }
}
BENCHMARK(BM_HostParse);

GPUBENCH_MAIN();
