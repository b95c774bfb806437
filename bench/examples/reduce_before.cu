// A reduction suite in plain Google Benchmark: a sum kernel family templated on int and float,
// a templated fixture that allocates and fills its input in SetUp, and launch configurations
// passed with BENCHMARK_CAPTURE. Every benchmark checks the sum it computed.
// This is the "before": wall-clock time with a synchronize in the loop.
// bench/examples/reduce.cu is the same suite converted to gpubench;
// `diff bench/examples/reduce_before.cu bench/examples/reduce.cu` shows every line the conversion
// changed.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "device_array.cuh"

constexpr int kMaxPartials = 1024;  // blocks of the first pass, sums of the second

// Sum over the block: shuffles within each warp, then the first warp over the warp sums. The
// block size must be a multiple of 32; the result is valid in thread 0.
template <class T>
__device__ T BlockSum(T value) {
  __shared__ T warp_sums[32];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(~0u, value, offset);
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : T(0);
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(~0u, value, offset);
  }
  return value;
}

// First pass: each thread sums a grid-stride slice, each block writes one partial sum.
template <class T>
__global__ void ReducePartial(const T* __restrict__ in, T* __restrict__ partial, size_t n) {
  T sum = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    sum += in[i];
  }
  sum = BlockSum(sum);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

// Second pass: one block of kMaxPartials threads sums the partial sums.
template <class T>
__global__ void ReduceFinal(const T* __restrict__ partial, T* __restrict__ out, int count) {
  const T value = static_cast<int>(threadIdx.x) < count ? partial[threadIdx.x] : T(0);
  const T sum = BlockSum(value);
  if (threadIdx.x == 0) *out = sum;
}

template <class T>
void LaunchReduce(const T* in, T* partial, T* out, size_t n, int threads) {
  const size_t wanted = (n + threads - 1) / threads;
  const int blocks = static_cast<int>(std::min<size_t>(kMaxPartials, std::max<size_t>(wanted, 1)));
  ReducePartial<<<blocks, threads>>>(in, partial, n);
  ReduceFinal<<<1, kMaxPartials>>>(partial, out, blocks);
}

// The sum FillKernel's values should give, in double.
template <class T>
double ExpectedSum(size_t n, float seed) {
  double period = 0;
  double tail = 0;
  for (size_t i = 0; i < 1024; ++i) {
    const double value = static_cast<T>(seed + static_cast<float>(i) * 0.001f);
    period += value;
    if (i < n % 1024) tail += value;
  }
  return period * static_cast<double>(n / 1024) + tail;
}

// Fails the benchmark when the GPU's sum is wrong (exact for int, 1e-4 relative for float).
template <class T>
void CheckSum(benchmark::State& state, const T* out, size_t n, float seed) {
  if (state.error_occurred()) return;
  T sum = 0;
  if (cudaMemcpy(&sum, out, sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) {
    state.SkipWithError("cudaMemcpy of the sum failed");
    return;
  }
  const double expected = ExpectedSum<T>(n, seed);
  if (std::abs(static_cast<double>(sum) - expected) > 1e-4 * expected) {
    const std::string message =
        "wrong sum: " + std::to_string(sum) + ", expected " + std::to_string(expected);
    state.SkipWithError(message.c_str());
  }
}

// The kernel family, one benchmark per element type.
template <class T>
static void BM_Reduce(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  DeviceArray<T> in(state, n), partial(state, kMaxPartials), out(state, 1);
  if (!in || !partial || !out) return;
  FillKernel<<<BlocksFor(n), 256>>>(in.get(), n, 1.0f);
  for (auto _ : state) {
    LaunchReduce(in.get(), partial.get(), out.get(), n, 256);
    cudaDeviceSynchronize();
  }
  CheckSum(state, out.get(), n, 1.0f);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * sizeof(T)));
}
BENCHMARK_TEMPLATE(BM_Reduce, int)->Arg(1 << 20)->Arg(1 << 26);
BENCHMARK_TEMPLATE(BM_Reduce, float)->Arg(1 << 20)->Arg(1 << 26);

// The input allocated and filled once per run, in SetUp.
template <class T>
class Reduce : public benchmark::Fixture {
 public:
  using benchmark::Fixture::SetUp;  // GB declares const and non-const overloads
  using benchmark::Fixture::TearDown;
  void SetUp(benchmark::State& state) override {
    n_ = static_cast<size_t>(state.range(0));
    in_ = std::make_unique<DeviceArray<T>>(state, n_);
    partial_ = std::make_unique<DeviceArray<T>>(state, kMaxPartials);
    out_ = std::make_unique<DeviceArray<T>>(state, 1);
    if (*in_) FillKernel<<<BlocksFor(n_), 256>>>(in_->get(), n_, 2.0f);
  }
  void TearDown(benchmark::State&) override {
    in_.reset();
    partial_.reset();
    out_.reset();
  }

 protected:
  bool Ready() const { return *in_ && *partial_ && *out_; }
  void Sum(int threads) { LaunchReduce(in_->get(), partial_->get(), out_->get(), n_, threads); }
  void Check(benchmark::State& state) {
    CheckSum(state, out_->get(), n_, 2.0f);
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n_ * sizeof(T)));
  }

  size_t n_ = 0;
  std::unique_ptr<DeviceArray<T>> in_, partial_, out_;
};

BENCHMARK_TEMPLATE_DEFINE_F(Reduce, Int, int)(benchmark::State& state) {
  if (!Ready()) return;
  for (auto _ : state) {
    Sum(256);
    cudaDeviceSynchronize();
  }
  Check(state);
}
BENCHMARK_REGISTER_F(Reduce, Int)->Arg(1 << 26);

BENCHMARK_TEMPLATE_DEFINE_F(Reduce, Float, float)(benchmark::State& state) {
  if (!Ready()) return;
  for (auto _ : state) {
    Sum(256);
    cudaDeviceSynchronize();
  }
  Check(state);
}
BENCHMARK_REGISTER_F(Reduce, Float)->Arg(1 << 26);

// Launch configurations: threads per block of the first pass.
static void BM_ReduceLaunch(benchmark::State& state, int threads) {
  const size_t n = static_cast<size_t>(state.range(0));
  DeviceArray<float> in(state, n), partial(state, kMaxPartials), out(state, 1);
  if (!in || !partial || !out) return;
  FillKernel<<<BlocksFor(n), 256>>>(in.get(), n, 3.0f);
  for (auto _ : state) {
    LaunchReduce(in.get(), partial.get(), out.get(), n, threads);
    cudaDeviceSynchronize();
  }
  CheckSum(state, out.get(), n, 3.0f);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * sizeof(float)));
}
BENCHMARK_CAPTURE(BM_ReduceLaunch, warp, 32)->Arg(1 << 26);
BENCHMARK_CAPTURE(BM_ReduceLaunch, block256, 256)->Arg(1 << 26);
BENCHMARK_CAPTURE(BM_ReduceLaunch, block1024, 1024)->Arg(1 << 26);

BENCHMARK_MAIN();
