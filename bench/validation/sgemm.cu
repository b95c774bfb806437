// cuBLAS SGEMM, C = A x B with n x n matrices: 2 n^3 FLOP per iteration, declared with
// gpubench::SetFlopsProcessed so that --gpubench_metrics=+flops reports flop_count_ratio (the
// counted FP32 FLOPs over the declared ones). cuBLAS's default math mode keeps SGEMM on FP32 FMA
// instructions (TF32 tensor cores need CUBLAS_TF32_TENSOR_OP_MATH or NVIDIA_TF32_OVERRIDE=1);
// tensor_pipe_pct shows whether the tensor pipe ran anyway. Bytes declared: the algorithm's
// minimum, A and B read once and C written once (3 n^2 floats), so dram_traffic_ratio above 1
// is re-reading from DRAM.
#include <cublas_v2.h>
#include <gpubench/gpubench.hpp>

#include <string>

#include "device_array.cuh"

namespace {

// The cuBLAS handle of one benchmark call, on the legacy default stream gpubench times.
class Cublas {
 public:
  explicit Cublas(benchmark::State& state) {
    if (cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS) {
      handle_ = nullptr;
      state.SkipWithError("cublasCreate failed");
    }
  }
  ~Cublas() {
    if (handle_ != nullptr) cublasDestroy(handle_);
  }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace

static void BM_Sgemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const size_t elements = static_cast<size_t>(n) * n;
  DeviceArray<float> a(state, elements), b(state, elements), c(state, elements);
  if (!a || !b || !c) return;
  Cublas cublas(state);
  if (cublas.get() == nullptr) return;
  FillKernel<<<BlocksFor(elements), 256>>>(a.get(), elements, 1.0f);
  FillKernel<<<BlocksFor(elements), 256>>>(b.get(), elements, 2.0f);
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  for (auto _ : gpubench::Loop(state)) {
    // The loop must run to its end (no break), so a failure is kept and reported after it.
    const cublasStatus_t call = cublasSgemm(cublas.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha,
                                            a.get(), n, b.get(), n, &beta, c.get(), n);
    if (status == CUBLAS_STATUS_SUCCESS) status = call;
  }
  if (status != CUBLAS_STATUS_SUCCESS) {
    state.SkipWithError(("cublasSgemm: " + std::to_string(static_cast<int>(status))).c_str());
    return;
  }
  const int64_t flop = 2 * int64_t{n} * n * n;
  gpubench::SetFlopsProcessed(state, state.iterations() * flop);
  state.SetBytesProcessed(state.iterations() * 3 * static_cast<int64_t>(elements) * 4);
}
GPUBENCH_BENCHMARK(BM_Sgemm)->RangeMultiplier(2)->Range(1024, 4096);

GPUBENCH_MAIN();
