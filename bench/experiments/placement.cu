// Where the spread between runs of a one-warp kernel comes from (issue #35, docs/accuracy.md
// "What a result costs"). Separate processes time the same tiny kernel up to 5% apart while each
// process's repetitions agree within 0.05%, so something fixed per process decides it. This
// experiment varies, inside one process, what a new process varies: the physical page the
// kernel's data lands on (BM_TinyPage: one 2 MiB page of a pool each), the data's place within a
// page (BM_TinyOffset), and the kernel's code (BM_TinyCode: copies of the same kernel at other
// addresses). If the pages spread as the processes do, the data's placement is the cause.
#include <gpubench/gpubench.hpp>

#include <cstdint>

namespace {

constexpr size_t kPage = size_t{2} << 20;
constexpr int kPages = 32;

// One pool for the process: its pages stay where the driver put them for every instance.
float* Pool() {
  static float* pool = [] {
    void* memory = nullptr;
    if (cudaMalloc(&memory, kPage * kPages) != cudaSuccess) {
      cudaGetLastError();
      return static_cast<float*>(nullptr);
    }
    cudaMemset(memory, 0, kPage * kPages);
    return static_cast<float*>(memory);
  }();
  return pool;
}

template <int kCopy>
__global__ void TinyKernel(float* p) {
  if (threadIdx.x == 0) p[0] += 1.0f + kCopy;
}

template <int kCopy>
void TimeTinyAt(benchmark::State& state, size_t byte_offset) {
  float* pool = Pool();
  if (pool == nullptr) {
    state.SkipWithError("cudaMalloc of the pool failed");
    return;
  }
  float* at = pool + byte_offset / sizeof(float);
  for (auto _ : gpubench::Loop(state)) TinyKernel<kCopy><<<1, 32>>>(at);
}

void BM_TinyPage(benchmark::State& state) {
  TimeTinyAt<0>(state, static_cast<size_t>(state.range(0)) * kPage);
}
GPUBENCH_BENCHMARK(BM_TinyPage)->DenseRange(0, kPages - 1);

void BM_TinyOffset(benchmark::State& state) {
  TimeTinyAt<0>(state, static_cast<size_t>(state.range(0)) * 4096);
}
GPUBENCH_BENCHMARK(BM_TinyOffset)->DenseRange(0, 15);

template <int kCopy>
void BM_TinyCode(benchmark::State& state) {
  TimeTinyAt<kCopy>(state, 0);
}
GPUBENCH_TEMPLATE(BM_TinyCode, 1);
GPUBENCH_TEMPLATE(BM_TinyCode, 2);
GPUBENCH_TEMPLATE(BM_TinyCode, 3);
GPUBENCH_TEMPLATE(BM_TinyCode, 4);
GPUBENCH_TEMPLATE(BM_TinyCode, 5);
GPUBENCH_TEMPLATE(BM_TinyCode, 6);
GPUBENCH_TEMPLATE(BM_TinyCode, 7);
GPUBENCH_TEMPLATE(BM_TinyCode, 8);

}  // namespace

GPUBENCH_MAIN();
