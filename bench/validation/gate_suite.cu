// A second suite, for the regression gate's real-data tests: one kernel of each kind a GPU suite
// holds (compute bound, bandwidth bound, L2 resident, a multi-kernel library call, launch bound).
//
// GATE_SUITE_INJECT makes a real regression on the GPU, so that the gate is tested on what a
// slower or wasteful kernel really reports, not on numbers edited by hand:
//   time   Gate_Fma runs 2.3% more FMAs per thread (its time grows ~2%, its bytes do not);
//   bytes  Gate_Copy/268435456 copies 2% more elements (2% more DRAM bytes, and time).
//   bytes1 the same with 1% more elements (1% more DRAM bytes, and time).
//   copy_time  Gate_Copy/268435456 adds an 8 us kernel that touches no memory after its copy:
//          about 1% more GPU time (the copy takes ~800 us on an H200), the same bytes.
//   fma1   Gate_FmaLong runs 1.04% more steps of its FMA chains (2328 instead of 2304);
//   fma2   2.08% more (2352): both multiples of the compiler's unroll by 4, so the time grows
//          with the work (its bytes do not).
// Nothing else changes between an injected run and a plain one.
#include <cstdlib>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <gpubench/gpubench.hpp>

#include "device_array.cuh"

namespace {

bool Injected(const char* what) {
  const char* inject = std::getenv("GATE_SUITE_INJECT");
  return inject != nullptr && std::strcmp(inject, what) == 0;
}

constexpr int kChains = 8;  // independent FMA chains keep the pipes busy

__global__ void GateFmaKernel(float* out, int steps, float seed) {
  float value[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) value[c] = seed + threadIdx.x * 1e-3f + c;
  for (int i = 0; i < steps; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) value[c] = fmaf(value[c], 0.999999f, 1e-6f);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += value[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Compute bound: 4096 FMAs per thread (512 steps of 8 chains). Injected: 524 steps (+2.3% work;
// the compiler unrolls the loop by 4, and 522 steps, off that multiple, ran 7.9% slower on the
// H200).
void Gate_Fma(benchmark::State& state) {
  const int blocks = static_cast<int>(state.range(0));
  const int steps = Injected("time") ? 524 : 512;
  DeviceArray<float> out(state, static_cast<size_t>(blocks) * 256);
  if (!out) return;
  for (auto _ : gpubench::Loop(state)) {
    GateFmaKernel<<<blocks, 256>>>(out.get(), steps, 1.0f);
  }
}
GPUBENCH_BENCHMARK(Gate_Fma)->Arg(132 * 16);

// The same chains 4.5 times as long, about 370 us on an H200: the long kernel of the gate's
// power checks (a 1% and a 2% slowdown, GATE_SUITE_INJECT=fma1 and fma2).
void Gate_FmaLong(benchmark::State& state) {
  const int blocks = static_cast<int>(state.range(0));
  const int steps = Injected("fma1") ? 2328 : Injected("fma2") ? 2352 : 2304;
  DeviceArray<float> out(state, static_cast<size_t>(blocks) * 256);
  if (!out) return;
  for (auto _ : gpubench::Loop(state)) {
    GateFmaKernel<<<blocks, 256>>>(out.get(), steps, 1.0f);
  }
}
GPUBENCH_BENCHMARK(Gate_FmaLong)->Arg(132 * 16);

__global__ void GateCopyKernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

// Spins one thread for `ns` nanoseconds of the GPU's global timer: time without memory traffic.
__global__ void SpinKernel(long long ns) {
  long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// Bandwidth bound at 2^28 floats (1 GiB read + 1 GiB written); L2 resident at 2^20 (4 MiB).
void Gate_Copy(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const bool large = n >= (size_t{1} << 28);
  const size_t copied = large && Injected("bytes")    ? n + n / 50
                        : large && Injected("bytes1") ? n + n / 100
                                                      : n;
  const bool spin = Injected("copy_time") && n >= (size_t{1} << 28);
  DeviceArray<float> in(state, n + n / 50), out(state, n + n / 50);
  if (!in || !out) return;
  FillKernel<<<BlocksFor(in.size()), 256>>>(in.get(), in.size(), 1.0f);
  for (auto _ : gpubench::Loop(state)) {
    GateCopyKernel<<<BlocksFor(copied), 256>>>(in.get(), out.get(), copied);
    if (spin) SpinKernel<<<1, 1>>>(8000);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * n * sizeof(float)));
}
GPUBENCH_BENCHMARK(Gate_Copy)->Arg(1 << 20)->Arg(1 << 28);

__global__ void ScrambleKeys(unsigned* keys, unsigned* values, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    keys[i] = static_cast<unsigned>(i) * 2654435761u;  // Knuth's multiplicative hash
    values[i] = static_cast<unsigned>(i);
  }
}

// A multi-kernel library call: CUB's radix sort of n key/value pairs (several kernels per call).
void Gate_SortPairs(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  DeviceArray<unsigned> keys_in(state, n), keys_out(state, n), values_in(state, n),
      values_out(state, n);
  if (!keys_in || !keys_out || !values_in || !values_out) return;
  ScrambleKeys<<<BlocksFor(n), 256>>>(keys_in.get(), values_in.get(), n);
  size_t temp_bytes = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in.get(), keys_out.get(),
                                  values_in.get(), values_out.get(), static_cast<int>(n));
  DeviceArray<unsigned char> temp(state, temp_bytes);
  if (!temp) return;
  for (auto _ : gpubench::Loop(state)) {
    cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, keys_in.get(), keys_out.get(),
                                    values_in.get(), values_out.get(), static_cast<int>(n));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
GPUBENCH_BENCHMARK(Gate_SortPairs)->Arg(1 << 24);

__global__ void GateTinyKernel(int* counter) {
  if (threadIdx.x == 0) atomicAdd(counter, 1);
}

// Launch bound: one warp does one atomic; the time is launch and scheduling overhead.
void Gate_Tiny(benchmark::State& state) {
  DeviceArray<int> counter(state, 1);
  if (!counter) return;
  for (auto _ : gpubench::Loop(state)) {
    GateTinyKernel<<<1, 32>>>(counter.get());
  }
}
GPUBENCH_BENCHMARK(Gate_Tiny);

}  // namespace

GPUBENCH_MAIN();
