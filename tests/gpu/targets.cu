// Benchmarks that the GPU scripts run as a whole process: under ncu (check_ncu.py), with faults
// that poison the CUDA context (check_faults.py), and for the context's GPU identity
// (check_identity.py, which runs Fault_1_Good only).
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
