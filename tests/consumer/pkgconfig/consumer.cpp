// A user's benchmark built by a Makefile with pkg-config: plain C++ (no kernel of its own), GPU
// work from the CUDA runtime, timed by gpubench.
#include <gpubench/gpubench.hpp>

#ifndef GPUBENCH_AVAILABLE  // <gpubench/portable.hpp> picks gpubench by it
#error "pkg-config --cflags gpubench must define GPUBENCH_AVAILABLE"
#endif

#include <cstdint>

static void BM_Memset(benchmark::State& state) {
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
GPUBENCH_BENCHMARK(BM_Memset)->Arg(1 << 20);

GPUBENCH_MAIN();
