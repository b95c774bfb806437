// Bandwidth: a copy kernel reads n floats and writes n floats per iteration, so it moves
// 2 * n * 4 bytes. At 1 << 29 floats (2 GiB per array) the footprint is 68x the H200's L2;
// at 1 << 20 (4 MiB) it fits in L2, which is where --gpubench_cache=flush|keep differ.
#include <gpubench/gpubench.hpp>

#include "device_array.cuh"

__global__ void CopyKernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

static void BM_Copy(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  DeviceArray<float> in(state, n), out(state, n);
  if (!in || !out) return;
  FillKernel<<<BlocksFor(n), 256>>>(in.get(), n, 1.0f);
  for (auto _ : gpubench::Loop(state)) {
    CopyKernel<<<BlocksFor(n), 256>>>(in.get(), out.get(), n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * n * sizeof(float)));
}
GPUBENCH_BENCHMARK(BM_Copy)->Arg(1 << 20)->Arg(1 << 29);

// The same copy written as a fixture, on a stream the fixture owns.
class CopyOnStream : public gpubench::Fixture {
 public:
  using gpubench::Fixture::SetUp;  // GB declares const and non-const overloads
  using gpubench::Fixture::TearDown;
  void SetUp(benchmark::State& state) override {
    n_ = static_cast<size_t>(state.range(0));
    if (cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) == cudaSuccess) {
      SetStream(stream_);
    } else {
      stream_ = nullptr;
    }
  }
  void TearDown(benchmark::State&) override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    stream_ = nullptr;
  }

 protected:
  size_t n_ = 0;
  cudaStream_t stream_ = nullptr;
};

GPUBENCH_DEFINE_F(CopyOnStream, Copy)(benchmark::State& state) {
  DeviceArray<float> in(state, n_), out(state, n_);
  if (!in || !out) return;
  FillKernel<<<BlocksFor(n_), 256, 0, stream()>>>(in.get(), n_, 2.0f);
  for (auto _ : Iterations(state)) {
    CopyKernel<<<BlocksFor(n_), 256, 0, stream()>>>(in.get(), out.get(), n_);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * n_ * sizeof(float)));
}
GPUBENCH_REGISTER_F(CopyOnStream, Copy)->Arg(1 << 26);
