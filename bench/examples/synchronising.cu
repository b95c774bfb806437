// A loop body of the shape many existing suites have (docs/user_guide.md "Benchmarks that
// synchronise"): each iteration restores its input, allocates, runs a chain of kernels, waits
// for the GPU and copies the result back. BM_SyncLoop keeps that shape, so its GPU time is
// mostly the GPU waiting for the host; BM_SyncLoopConverted is the same work converted: buffers
// allocated once, the restore in a gpubench::UntimedScope, the copy-back after the loop.
// BM_RestoreThenKernel times a ~100 us kernel after a ~1 ms restore, with the restore kept out
// of the time by the scope (/untimed:1) or not (/untimed:0); BM_KernelWithoutRestore is the
// kernel alone.
#include <gpubench/gpubench.hpp>

#include "device_array.cuh"

namespace {

__global__ void SeedKernel(float* data, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    data[i] = static_cast<float>(i % 1024) * 1e-3f;
  }
}

// x = x * a + b, in place: one read and one write per element.
__global__ void AffineKernel(float* data, size_t n, float a, float b) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    data[i] = data[i] * a + b;
  }
}

// Sums into *sum (one atomic per block).
__global__ void SumKernel(const float* data, size_t n, float* sum) {
  __shared__ float partial[256];
  float value = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    value += data[i];
  }
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

constexpr int kBlocks = 132 * 8;  // 8 blocks per SM of an H200; the loops stride over the rest

void Fill(float* data, size_t n) { SeedKernel<<<kBlocks, 256>>>(data, n); }

// The body as such suites write it: everything inside the loop, synchronised.
void BM_SyncLoop(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  DeviceArray<float> pristine(state, n), data(state, n);
  if (!pristine || !data) return;
  Fill(pristine.get(), n);
  float result = 0;
  for (auto _ : gpubench::Loop(state)) {
    cudaMemcpy(data.get(), pristine.get(), n * sizeof(float), cudaMemcpyDeviceToDevice);
    float* sum = nullptr;
    float* host = nullptr;
    cudaMalloc(&sum, sizeof(float));
    cudaMallocHost(&host, sizeof(float));
    cudaMemset(sum, 0, sizeof(float));
    AffineKernel<<<kBlocks, 256>>>(data.get(), n, 1.5f, 0.5f);
    AffineKernel<<<kBlocks, 256>>>(data.get(), n, 0.5f, -0.25f);
    SumKernel<<<kBlocks, 256>>>(data.get(), n, sum);
    cudaDeviceSynchronize();
    cudaMemcpy(host, sum, sizeof(float), cudaMemcpyDeviceToHost);
    result = *host;
    cudaFree(sum);
    cudaFreeHost(host);
  }
  benchmark::DoNotOptimize(result);
}
GPUBENCH_BENCHMARK(BM_SyncLoop)->Arg(1 << 20)->Arg(1 << 24);

// The same work converted: allocations and the copy-back outside the loop, the restore untimed.
void BM_SyncLoopConverted(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  DeviceArray<float> pristine(state, n), data(state, n), sum(state, 1);
  if (!pristine || !data || !sum) return;
  Fill(pristine.get(), n);
  for (auto _ : gpubench::Loop(state)) {
    {
      gpubench::UntimedScope untimed(state);
      cudaMemcpyAsync(data.get(), pristine.get(), n * sizeof(float), cudaMemcpyDeviceToDevice);
      cudaMemsetAsync(sum.get(), 0, sizeof(float));
    }
    AffineKernel<<<kBlocks, 256>>>(data.get(), n, 1.5f, 0.5f);
    AffineKernel<<<kBlocks, 256>>>(data.get(), n, 0.5f, -0.25f);
    SumKernel<<<kBlocks, 256>>>(data.get(), n, sum.get());
  }
  float result = 0;
  cudaMemcpy(&result, sum.get(), sizeof(float), cudaMemcpyDeviceToHost);
  benchmark::DoNotOptimize(result);
}
GPUBENCH_BENCHMARK(BM_SyncLoopConverted)->Arg(1 << 20)->Arg(1 << 24);

// A ~1 ms restore (2 GiB device to device) and a ~100 us kernel on its first 38 Mi elements
// (the sizes issue #21's evidence names; an H200 ran 2^25 elements in ~85 us).
constexpr size_t kRestoreElements = size_t{1} << 29, kKernelElements = size_t{19} << 21;

void BM_RestoreThenKernel(benchmark::State& state) {
  const size_t n = kRestoreElements, kernel_n = kKernelElements;
  const bool untimed = state.range(0) != 0;
  DeviceArray<float> pristine(state, n), data(state, n);
  if (!pristine || !data) return;
  Fill(pristine.get(), n);
  for (auto _ : gpubench::Loop(state)) {
    if (untimed) {
      gpubench::UntimedScope scope(state);
      cudaMemcpyAsync(data.get(), pristine.get(), n * sizeof(float), cudaMemcpyDeviceToDevice);
    } else {
      cudaMemcpyAsync(data.get(), pristine.get(), n * sizeof(float), cudaMemcpyDeviceToDevice);
    }
    AffineKernel<<<kBlocks, 256>>>(data.get(), kernel_n, 1.5f, 0.5f);
  }
  state.SetLabel(untimed ? "restore untimed" : "restore timed");
}
GPUBENCH_BENCHMARK(BM_RestoreThenKernel)->ArgName("untimed")->Arg(1)->Arg(0);

// The control: the same kernel with no restore at all, so that BM_RestoreThenKernel/untimed:1
// can be compared with what the same timer gives the kernel alone.
void BM_KernelWithoutRestore(benchmark::State& state) {
  const size_t kernel_n = static_cast<size_t>(state.range(0));
  DeviceArray<float> data(state, kernel_n);
  if (!data) return;
  Fill(data.get(), kernel_n);
  for (auto _ : gpubench::Loop(state)) {
    AffineKernel<<<kBlocks, 256>>>(data.get(), kernel_n, 1.5f, 0.5f);
  }
}
GPUBENCH_BENCHMARK(BM_KernelWithoutRestore)->Arg(kKernelElements);

}  // namespace

GPUBENCH_MAIN();
