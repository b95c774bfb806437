// A main of one's own that may make a CUDA context before gpubench::Initialize, as a suite that
// prints its device first does (EARLY_CONTEXT=1: cudaSetDevice before Initialize). Linked with
// the static CUDA runtime beside gpubench's shared one. check_static_runtime.py runs it.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>

#include <gpubench/gpubench.hpp>

static void BM_Memset(benchmark::State& state) {
  void* buffer = nullptr;
  if (cudaMalloc(&buffer, 1 << 20) != cudaSuccess) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  for (auto _ : gpubench::Loop(state)) cudaMemsetAsync(buffer, 1, 1 << 20);
  cudaFree(buffer);
}
GPUBENCH_BENCHMARK(BM_Memset);

int main(int argc, char** argv) {
  const char* early = std::getenv("EARLY_CONTEXT");
  if (early != nullptr && std::strcmp(early, "1") == 0) cudaSetDevice(0);
  return gpubench::Main(argc, argv);
}
