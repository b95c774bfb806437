// Benchmarks that the GPU scripts run as a whole process: under ncu (check_ncu.py), with faults
// that poison the CUDA context (check_faults.py), for the context's GPU identity
// (check_identity.py, which runs Fault_1_Good only), and the counters of a body with a
// gpubench::UntimedScope (check_split_counters.py).
#include <gpubench/gpubench.hpp>

#include <stdexcept>
#include <string>

#include "kernels.cuh"

BENCHMARK_PRIVATE_DECLARE(copy_) =
    gpubench::RegisterBenchmark("Ncu_Copy", CopyBenchmark)->Arg(size_t{1} << 28)->Iterations(5);

static void Ncu_Spin(benchmark::State& state) {
  for (auto _ : gpubench::Loop(state)) SpinKernel<<<1, 32>>>(state.range(0));
}
GPUBENCH_BENCHMARK(Ncu_Spin)->Arg(200000)->Arg(10000)->Iterations(20);

// Reads `n` floats and writes nothing: `chain` dependent multiply-adds per element make it long
// (estimated 4.5 ms for 64 MiB and a chain of 8192 on an H100 or H200: 17 G FMA over about
// 30 T FMA/s), so that the profiled ranges' own overhead, and the host's launch inside them (at
// most tens of us), stay well below the check's 2%. a, b and `never` come from the host, so that
// the compiler can neither fold the chain nor drop the loads.
__global__ void ReadChainKernel(const float* __restrict__ in, size_t n, int chain, float a, float b,
                                float never, float* sink) {
  float sum = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    float x = in[i];
    for (int k = 0; k < chain; ++k) x = x * a + b;
    sum += x;
  }
  if (sum == never) *sink = sum;
}

// The scope writes 256 MiB (a memset on the loop's stream); the timed kernel reads 64 MiB and
// writes nothing. The counters must be the kernel's alone.
static void Split_ScopeThenRead(benchmark::State& state) {
  constexpr size_t kScopeBytes = size_t{256} << 20;
  constexpr size_t kReadFloats = (size_t{64} << 20) / sizeof(float);
  float *in = nullptr, *sink = nullptr;
  void* scratch = nullptr;
  if (cudaMalloc(&in, kReadFloats * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&scratch, kScopeBytes) != cudaSuccess || cudaMalloc(&sink, 4) != cudaSuccess) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  FillKernel<<<Blocks(kReadFloats), 256>>>(in, kReadFloats, 1.0f);
  const int chain = static_cast<int>(state.range(0));
  for (auto _ : gpubench::Loop(state)) {
    {
      gpubench::UntimedScope untimed(state);
      cudaMemsetAsync(scratch, 0, kScopeBytes);
    }
    ReadChainKernel<<<Blocks(kReadFloats), 256>>>(in, kReadFloats, chain, 0.999f, 0.001f, -1.2345f,
                                                  sink);
  }
  cudaFree(in);
  cudaFree(scratch);
  cudaFree(sink);
}
GPUBENCH_BENCHMARK(Split_ScopeThenRead)->Arg(8192)->Iterations(5);

// Faults, in order: a good run, a bad launch (not sticky), a good run, an illegal address
// (sticky), and a run that must be skipped because the context is gone.
static void Fault_1_Good(benchmark::State& state) {
  for (auto _ : gpubench::Loop(state)) SpinKernel<<<1, 32>>>(1000);
}
GPUBENCH_BENCHMARK(Fault_1_Good)->Iterations(3);

// A suite's own error check that throws (kokkos/mdspan's CUDA_SAFE_CALL) after a failed
// allocation, which leaves CUDA's last error set; the next benchmark must not inherit it.
static void Fault_1b_ThrowsInLoop(benchmark::State& state) {
  for (auto _ : gpubench::Loop(state)) {
    void* huge = nullptr;
    const cudaError_t result = cudaMalloc(&huge, size_t{1} << 52);
    if (result != cudaSuccess) {
      throw std::runtime_error(std::string("CUDA_SAFE_CALL: ") + cudaGetErrorName(result));
    }
    cudaFree(huge);
  }
}
GPUBENCH_BENCHMARK(Fault_1b_ThrowsInLoop)->Iterations(3);

static void Fault_1c_GoodAfterThrow(benchmark::State& state) {
  for (auto _ : gpubench::Loop(state)) SpinKernel<<<1, 32>>>(1000);
}
GPUBENCH_BENCHMARK(Fault_1c_GoodAfterThrow)->Iterations(3);

static void Fault_2_BadLaunch(benchmark::State& state) {
  for (auto _ : gpubench::Loop(state)) SpinKernel<<<1, 4096>>>(1000);  // > 1024 threads
}
GPUBENCH_BENCHMARK(Fault_2_BadLaunch)->Iterations(3);

static void Fault_3_GoodAfterBadLaunch(benchmark::State& state) {
  for (auto _ : gpubench::Loop(state)) SpinKernel<<<1, 32>>>(1000);
}
GPUBENCH_BENCHMARK(Fault_3_GoodAfterBadLaunch)->Iterations(3);

__global__ void WriteThrough(float* pointer) { *pointer = 1.0f; }

static void Fault_4_IllegalAddress(benchmark::State& state) {
  float* bad = reinterpret_cast<float*>(0x10);
  for (auto _ : gpubench::Loop(state)) WriteThrough<<<1, 1>>>(bad);
}
GPUBENCH_BENCHMARK(Fault_4_IllegalAddress)->Iterations(3);

static void Fault_5_AfterContextLost(benchmark::State& state) {
  for (auto _ : gpubench::Loop(state)) SpinKernel<<<1, 32>>>(1000);
}
GPUBENCH_BENCHMARK(Fault_5_AfterContextLost)->Iterations(3);

GPUBENCH_MAIN();
