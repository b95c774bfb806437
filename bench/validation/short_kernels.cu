// Short kernels, 1 to 100 us, the same as NVBench's peer benchmarks (docs/accuracy.md "Short
// kernels"): a one-warp tiny kernel and a grid-stride copy whose size sets its duration, plus
// one-warp spin kernels of a fixed duration, whose time does not depend on the cache; and the
// peer's dependent FMA chain (about 380 us on an H200), for the cost of a result beside NVBench's
// (docs/accuracy.md "What a result costs").
#include <gpubench/gpubench.hpp>

#include "device_array.cuh"

__global__ void ShortTinyKernel(float* p) {
  if (threadIdx.x == 0) p[0] += 1;
}

__global__ void ShortCopyKernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

__global__ void ShortSpinKernel(unsigned long long ns, unsigned* sink) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  unsigned long long now = start;
  while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  if (threadIdx.x == 1000) *sink = 1;  // never true; keeps the kernel from being empty
}

static void BM_ShortTiny(benchmark::State& state) {
  DeviceArray<float> value(state, 1);
  if (!value) return;
  cudaMemset(value.get(), 0, sizeof(float));
  for (auto _ : gpubench::Loop(state)) {
    ShortTinyKernel<<<1, 32>>>(value.get());
  }
}
GPUBENCH_BENCHMARK(BM_ShortTiny);

// n floats read and n written, (n + 255) / 256 blocks of 256 threads as in NVBench's peer.
static void BM_ShortCopy(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  DeviceArray<float> in(state, n), out(state, n);
  if (!in || !out) return;
  FillKernel<<<BlocksFor(n), 256>>>(in.get(), n, 1.0f);
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  for (auto _ : gpubench::Loop(state)) {
    ShortCopyKernel<<<blocks, 256>>>(in.get(), out.get(), n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * n * sizeof(float)));
}
GPUBENCH_BENCHMARK(BM_ShortCopy)
    ->Arg(1 << 20)
    ->Arg(1 << 21)
    ->Arg(1 << 22)
    ->Arg(1 << 23)
    ->Arg(1 << 24)
    ->Arg(1 << 25)
    ->Arg(1 << 26);

__global__ void ShortFmaKernel(float* p, int iters) {
  float a = p[threadIdx.x], b = 1.0001f, c = 0.9999f;
  for (int k = 0; k < iters; ++k) {
    a = a * b + c;
    b = b * c + a;
  }
  if (a == 12345.f) p[0] = a + b;  // never true: keeps the chain
}

// 132 x 8 blocks of 256 threads, 20000 steps of two dependent FMAs, on a zeroed 4 KiB buffer.
static void BM_ShortFma(benchmark::State& state) {
  DeviceArray<float> buffer(state, 1024);
  if (!buffer) return;
  cudaMemset(buffer.get(), 0, 1024 * sizeof(float));
  constexpr int kIters = 20000;
  for (auto _ : gpubench::Loop(state)) {
    ShortFmaKernel<<<132 * 8, 256>>>(buffer.get(), kIters);
  }
  state.SetItemsProcessed(state.iterations() * int64_t{132 * 8 * 256} * kIters * 2);
}
GPUBENCH_BENCHMARK(BM_ShortFma);

static void BM_ShortSpin(benchmark::State& state) {
  DeviceArray<unsigned> sink(state, 1);
  if (!sink) return;
  const auto ns = static_cast<unsigned long long>(state.range(0));
  for (auto _ : gpubench::Loop(state)) {
    ShortSpinKernel<<<1, 32>>>(ns, sink.get());
  }
}
GPUBENCH_BENCHMARK(BM_ShortSpin)->Arg(1000)->Arg(5000)->Arg(20000)->Arg(100000);
