// Built with --default-stream per-thread: a null stream here is the thread's own default
// stream, which the loop (given no stream, so timing the legacy default stream) must join.
#include <gpubench/gpubench.hpp>

namespace {

// Its own kernels: kernels.cuh's are defined in streams.cu already.
__global__ void PerThreadFill(float* data, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    data[i] = static_cast<float>(i % 97);
  }
}

__global__ void PerThreadCopy(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

void Streams_PerThreadDefault(benchmark::State& state) {
  const size_t floats = size_t{1} << 26;
  float* in = nullptr;
  float* out = nullptr;
  if (cudaMalloc(&in, floats * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&out, floats * sizeof(float)) != cudaSuccess) {
    state.SkipWithError("allocation failed");
    return;
  }
  PerThreadFill<<<132 * 8, 256>>>(in, floats);
  cudaStreamSynchronize(nullptr);
  for (auto _ : gpubench::Loop(state)) PerThreadCopy<<<132 * 8, 256>>>(in, out, floats);
  cudaFree(in);
  cudaFree(out);
}

}  // namespace

void RegisterPerThreadStreamBenchmark() {
  gpubench::RegisterBenchmark("Streams_PerThreadDefault", Streams_PerThreadDefault);
}
