// Every registration form of the user guide's conversion table (bench/examples/reduce.cu uses some
// of them too), each running a real kernel: x = a * x + b over a static device buffer (16 MiB of
// floats, 32 MiB of doubles), so no allocation precedes the loop and, without a GPU, each benchmark
// ends with gpubench's own no-device message. tests/e2e/check_forms.py runs them with reduce.cu's.
#include <gpubench/gpubench.hpp>

#include <cstddef>
#include <string>

constexpr size_t kElements = size_t{1} << 22;

__device__ float g_floats[kElements];
__device__ double g_doubles[kElements];
__device__ float* Buffer(float*) { return g_floats; }
__device__ double* Buffer(double*) { return g_doubles; }

// Unroll: elements per thread and loop step.
template <class T, int Unroll>
__global__ void AxpbKernel(size_t n, T a, T b) {
  T* x = Buffer(static_cast<T*>(nullptr));
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride * Unroll) {
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
      if (i + u * stride < n) x[i + u * stride] = a * x[i + u * stride] + b;
    }
  }
}

template <class T, int Unroll = 1>
void Axpb(size_t n, T a, cudaStream_t stream = nullptr) {
  const size_t threads = 256;
  const size_t blocks = (n + threads * Unroll - 1) / (threads * Unroll);
  AxpbKernel<T, Unroll><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(n, a, T(1));
}

size_t Elements(benchmark::State& state) { return static_cast<size_t>(state.range(0)); }

// Function forms.
static void BM_Axpb(benchmark::State& state) {
  for (auto _ : gpubench::Loop(state)) Axpb<float>(Elements(state), 0.5f);
}
template <class T, int Unroll>
static void BM_AxpbT(benchmark::State& state) {
  for (auto _ : gpubench::Loop(state)) Axpb<T, Unroll>(Elements(state), T(0.5));
}
template <class T>
static void BM_AxpbOf(benchmark::State& state) {
  for (auto _ : gpubench::Loop(state)) Axpb<T>(Elements(state), T(0.5));
}
static void BM_AxpbBy(benchmark::State& state, float a) {
  for (auto _ : gpubench::Loop(state)) Axpb<float>(Elements(state), a);
}
template <class T>
static void BM_AxpbByT(benchmark::State& state, T a) {
  for (auto _ : gpubench::Loop(state)) Axpb<T>(Elements(state), a);
}
template <class T, int Unroll>
static void BM_AxpbByT2(benchmark::State& state, T a) {
  for (auto _ : gpubench::Loop(state)) Axpb<T, Unroll>(Elements(state), a);
}

GPUBENCH_BENCHMARK(BM_Axpb)->Arg(kElements);                  // BM_Axpb/4194304
GPUBENCH_BENCHMARK(BM_AxpbT<double, 4>)->Arg(kElements);      // BM_AxpbT<double, 4>/…
GPUBENCH_TEMPLATE(BM_AxpbT, float, 2)->Arg(kElements);        // BM_AxpbT<float, 2>/…
GPUBENCH_TEMPLATE1(BM_AxpbOf, double)->Arg(kElements);        // BM_AxpbOf<double>/…
GPUBENCH_TEMPLATE2(BM_AxpbT, double, 2)->Arg(kElements);      // BM_AxpbT<double,2>/…
GPUBENCH_CAPTURE(BM_AxpbBy, quarter, 0.25f)->Arg(kElements);  // BM_AxpbBy/quarter/…
GPUBENCH_NAMED(BM_Axpb, named)->Arg(kElements);               // BM_Axpb/named/…
GPUBENCH_TEMPLATE1_CAPTURE(BM_AxpbByT, double, half, 0.5)->Arg(kElements);
GPUBENCH_TEMPLATE2_CAPTURE(BM_AxpbByT2, float, 4, half, 0.5f)->Arg(kElements);

// Lambdas: one capturing its factor, and RegisterBenchmark's (name, fn, args...) form.
const float kLambdaFactor = 0.75f;
const auto axpb_captured = [a = kLambdaFactor](benchmark::State& state) {
  for (auto _ : gpubench::Loop(state)) Axpb<float>(Elements(state), a);
};
gpubench::BenchmarkHandle* const lambda_registration =
    gpubench::RegisterBenchmark("BM_AxpbLambda/captured", axpb_captured)->Arg(kElements);
gpubench::BenchmarkHandle* const args_registration =
    gpubench::RegisterBenchmark("BM_AxpbArgs", BM_AxpbBy, 0.125f)->Arg(kElements);

// Fixture forms. The fixture runs on a stream of its own.
template <class T, int Unroll = 1>
class AxpbFixture : public gpubench::Fixture {
 public:
  using gpubench::Fixture::SetUp;
  using gpubench::Fixture::TearDown;
  void SetUp(benchmark::State&) override {
    if (cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) != cudaSuccess) {
      cudaGetLastError();  // no device: the loop reports it
      stream_ = nullptr;
    }
    SetStream(stream_);
  }
  void TearDown(benchmark::State&) override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    stream_ = nullptr;
  }

 protected:
  void Launch(size_t n) { Axpb<T, Unroll>(n, T(0.5), stream()); }
  cudaStream_t stream_ = nullptr;
};
class AxpbPlain : public AxpbFixture<float> {};

GPUBENCH_F(AxpbPlain, F)(benchmark::State& state) {  // AxpbPlain/F
  for (auto _ : Iterations(state)) Launch(kElements);
}
GPUBENCH_DEFINE_F(AxpbPlain, Defined)(benchmark::State& state) {  // AxpbPlain/Defined/…
  for (auto _ : Iterations(state)) Launch(Elements(state));
}
GPUBENCH_REGISTER_F(AxpbPlain, Defined)->Arg(kElements);
// AxpbFixture<float>/Float
GPUBENCH_TEMPLATE_F(AxpbFixture, Float, float)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Launch(kElements);
}
GPUBENCH_TEMPLATE1_F(AxpbFixture, Double, double)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Launch(kElements);
}
GPUBENCH_TEMPLATE2_F(AxpbFixture, Unrolled, float, 4)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Launch(kElements);
}
GPUBENCH_TEMPLATE_DEFINE_F(AxpbFixture, FloatN, float)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Launch(Elements(state));
}
GPUBENCH_REGISTER_F(AxpbFixture, FloatN)->Arg(kElements);
GPUBENCH_TEMPLATE1_DEFINE_F(AxpbFixture, DoubleN, double)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Launch(Elements(state));
}
GPUBENCH_REGISTER_F(AxpbFixture, DoubleN)->Arg(kElements);
GPUBENCH_TEMPLATE2_DEFINE_F(AxpbFixture, UnrolledN, double, 2)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Launch(Elements(state));
}
GPUBENCH_REGISTER_F(AxpbFixture, UnrolledN)->Arg(kElements);
GPUBENCH_TEMPLATE_METHOD_F(AxpbFixture, Method)(benchmark::State& state) {
  for (auto _ : this->Iterations(state)) this->Launch(Elements(state));
}
GPUBENCH_TEMPLATE_INSTANTIATE_F(AxpbFixture, Method, float)->Arg(kElements);
GPUBENCH_TEMPLATE_INSTANTIATE_F(AxpbFixture, Method, double)->Arg(kElements);
