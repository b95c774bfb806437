// The kernels on which a repetition's stated precision is checked against real reruns
// (docs/accuracy.md "The precision of a repetition", tests/data/h200/precision/): one of
// each kind whose samples behave differently over time.
//   P_Tiny         launch bound: one warp, one atomic (~3 us);
//   P_Copy         L2 resident: 2^20 floats copied (~6 us);
//   P_StridedRead  bandwidth bound: 2 GiB read by a grid-stride loop (~0.45 ms);
//   P_Fma          compute bound: NVBench's peer FMA chain (~0.38 ms), its time follows the clock;
//   P_Sgemm        a library call: cuBLAS SGEMM of 4096^2 matrices (~2.7 ms);
//   P_SortPairs    a multi-kernel library call: CUB's radix sort of 2^24 pairs (~0.53 ms).
#include <cublas_v2.h>

#include <cub/device/device_radix_sort.cuh>
#include <gpubench/gpubench.hpp>
#include <string>

#include "device_array.cuh"

namespace {

__global__ void TinyKernel(int* counter) {
  if (threadIdx.x == 0) atomicAdd(counter, 1);
}

void P_Tiny(benchmark::State& state) {
  DeviceArray<int> counter(state, 1);
  if (!counter) return;
  for (auto _ : gpubench::Loop(state)) {
    TinyKernel<<<1, 32>>>(counter.get());
  }
}
GPUBENCH_BENCHMARK(P_Tiny);

__global__ void CopyKernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

void P_Copy(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  DeviceArray<float> in(state, n), out(state, n);
  if (!in || !out) return;
  FillKernel<<<BlocksFor(n), 256>>>(in.get(), n, 1.0f);
  for (auto _ : gpubench::Loop(state)) {
    CopyKernel<<<BlocksFor(n), 256>>>(in.get(), out.get(), n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * n * sizeof(float)));
}
GPUBENCH_BENCHMARK(P_Copy)->Arg(1 << 20);

// Each thread sums its grid-stride share and writes one value: n floats read, almost nothing
// written.
__global__ void StridedReadKernel(const float4* __restrict__ in, size_t n4, float* out) {
  float sum = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float4 v = in[i];
    sum += v.x + v.y + v.z + v.w;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

void P_StridedRead(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  constexpr unsigned kBlocks = 132 * 8, kThreads = 256;
  DeviceArray<float> in(state, n), out(state, size_t{kBlocks} * kThreads);
  if (!in || !out) return;
  FillKernel<<<BlocksFor(n), 256>>>(in.get(), n, 1.0f);
  for (auto _ : gpubench::Loop(state)) {
    StridedReadKernel<<<kBlocks, kThreads>>>(reinterpret_cast<const float4*>(in.get()), n / 4,
                                             out.get());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * sizeof(float)));
}
GPUBENCH_BENCHMARK(P_StridedRead)->Arg(1 << 29);

__global__ void FmaKernel(float* p, int iters) {
  float a = p[threadIdx.x], b = 1.0001f, c = 0.9999f;
  for (int k = 0; k < iters; ++k) {
    a = a * b + c;
    b = b * c + a;
  }
  if (a == 12345.f) p[0] = a + b;  // never true: keeps the chain
}

void P_Fma(benchmark::State& state) {
  DeviceArray<float> buffer(state, 1024);
  if (!buffer) return;
  FillKernel<<<4, 256>>>(buffer.get(), 1024, 0.5f);
  constexpr int kIters = 20000;
  for (auto _ : gpubench::Loop(state)) {
    FmaKernel<<<132 * 8, 256>>>(buffer.get(), kIters);
  }
  state.SetItemsProcessed(state.iterations() * int64_t{132 * 8 * 256} * kIters * 2);
}
GPUBENCH_BENCHMARK(P_Fma);

void P_Sgemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const size_t elements = static_cast<size_t>(n) * n;
  DeviceArray<float> a(state, elements), b(state, elements), c(state, elements);
  if (!a || !b || !c) return;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    state.SkipWithError("cublasCreate failed");
    return;
  }
  FillKernel<<<BlocksFor(elements), 256>>>(a.get(), elements, 1.0f);
  FillKernel<<<BlocksFor(elements), 256>>>(b.get(), elements, 2.0f);
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  for (auto _ : gpubench::Loop(state)) {
    const cublasStatus_t call = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha,
                                            a.get(), n, b.get(), n, &beta, c.get(), n);
    if (status == CUBLAS_STATUS_SUCCESS) status = call;
  }
  cublasDestroy(handle);
  if (status != CUBLAS_STATUS_SUCCESS) {
    state.SkipWithError(("cublasSgemm: " + std::to_string(static_cast<int>(status))).c_str());
    return;
  }
  gpubench::SetFlopsProcessed(state, state.iterations() * 2 * int64_t{n} * n * n);
}
GPUBENCH_BENCHMARK(P_Sgemm)->Arg(4096);

__global__ void ScrambleKeys(unsigned* keys, unsigned* values, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    keys[i] = static_cast<unsigned>(i) * 2654435761u;
    values[i] = static_cast<unsigned>(i);
  }
}

void P_SortPairs(benchmark::State& state) {
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
GPUBENCH_BENCHMARK(P_SortPairs)->Arg(1 << 24);

}  // namespace

GPUBENCH_MAIN();
