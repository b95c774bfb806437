// What a user writes: an existing GB benchmark with three lines changed (the include, the loop
// and the registration) and GPUBENCH_MAIN() for main.
#include <gpubench/gpubench.hpp>

#ifndef GPUBENCH_AVAILABLE  // <gpubench/portable.hpp> picks gpubench by it
#error "linking gpubench::gpubench must define GPUBENCH_AVAILABLE"
#endif

__global__ void Increment(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

static void BM_Increment(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  float* data = nullptr;
  if (cudaMalloc(&data, n * sizeof(float)) != cudaSuccess) {
    cudaGetLastError();
    data = nullptr;
  }
  for (auto _ : gpubench::Loop(state)) {
    Increment<<<(n + 255) / 256, 256>>>(data, n);
  }
  state.SetBytesProcessed(state.iterations() * 2 * int64_t{n} * 4);
  if (data != nullptr) cudaFree(data);
}
GPUBENCH_BENCHMARK(BM_Increment)->Arg(1 << 20);

GPUBENCH_MAIN();
