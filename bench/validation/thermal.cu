// A heavy benchmark for the thermal counters (docs/user_guide.md "Temperature, power and clock
// events"): a half-precision matrix product on the tensor cores (cuBLAS), which draws about the
// card's full power. Over a minute of it the GPU warms, its power meets the limit and the driver
// may hold the clock down: the rows' gpu_temp_*, gpu_power_w and clock_event_reasons show it,
// and --gpubench_thermal=wait starts each repetition from a cool GPU.
#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <gpubench/gpubench.hpp>

#include "device_array.cuh"

namespace {

void BM_HeavyGemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const size_t elements = static_cast<size_t>(n) * n;
  DeviceArray<__half> a(state, elements), b(state, elements), c(state, elements);
  if (!a || !b || !c) return;
  FillKernel<<<BlocksFor(elements), 256>>>(a.get(), elements, 0.5f);
  FillKernel<<<BlocksFor(elements), 256>>>(b.get(), elements, 0.25f);
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    state.SkipWithError("cublasCreate failed");
    return;
  }
  const float alpha = 1.0f, beta = 0.0f;
  for (auto _ : gpubench::Loop(state)) {
    cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.get(), CUDA_R_16F, n, b.get(),
                 CUDA_R_16F, n, &beta, c.get(), CUDA_R_16F, n, CUBLAS_COMPUTE_32F,
                 CUBLAS_GEMM_DEFAULT);
  }
  cublasDestroy(handle);
  gpubench::SetFlopsProcessed(state, state.iterations() * 2 * int64_t{n} * n * n);
}
GPUBENCH_BENCHMARK(BM_HeavyGemm)->Arg(8192);

}  // namespace

GPUBENCH_MAIN();
