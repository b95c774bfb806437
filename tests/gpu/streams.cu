// Loop bodies that put their GPU work on streams other than the one gpubench times (issue #24):
// check_streams.py runs them and holds each GPU time against ncu's kernel durations for the
// same NVTX ranges. Every copy moves 2^26 floats (about 200 us on an H200).
#include <cublas_v2.h>
#include <gpubench/gpubench.hpp>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "kernels.cuh"

namespace {

constexpr size_t kFloats = size_t{1} << 26;
constexpr int kBlocks = 132 * 8;

// Two buffers and a non-blocking stream (it does not order with the legacy default stream, so
// nothing but gpubench's join puts its work inside the timed span).
struct Work {
  explicit Work(benchmark::State& state) {
    if (cudaMalloc(&in, kFloats * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&out, kFloats * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&in2, kFloats * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&out2, kFloats * sizeof(float)) != cudaSuccess ||
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaStreamCreateWithFlags(&stream2, cudaStreamNonBlocking) != cudaSuccess) {
      state.SkipWithError("allocation failed");
      ok = false;
      return;
    }
    FillKernel<<<kBlocks, 256>>>(in, kFloats, 1.0f);
    FillKernel<<<kBlocks, 256>>>(in2, kFloats, 2.0f);
    cudaDeviceSynchronize();
  }
  ~Work() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(in2);
    cudaFree(out2);
    if (stream != nullptr) cudaStreamDestroy(stream);
    if (stream2 != nullptr) cudaStreamDestroy(stream2);
  }
  void Copy(cudaStream_t on) const { CopyKernel<<<kBlocks, 256, 0, on>>>(in, out, kFloats); }
  float* in = nullptr;
  float* out = nullptr;
  float* in2 = nullptr;
  float* out2 = nullptr;
  cudaStream_t stream = nullptr;
  cudaStream_t stream2 = nullptr;
  bool ok = true;
};

}  // namespace

// The stream is given to the loop: the reference.
static void Streams_Right(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  for (auto _ : gpubench::Loop(state, work.stream)) work.Copy(work.stream);
}
GPUBENCH_BENCHMARK(Streams_Right);

// The common mistake: the stream is not given to the loop.
static void Streams_Other(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  for (auto _ : gpubench::Loop(state)) work.Copy(work.stream);
}
GPUBENCH_BENCHMARK(Streams_Other);

// The same, waiting for the stream in the body (launch_held=0).
static void Streams_OtherSynced(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  for (auto _ : gpubench::Loop(state)) {
    work.Copy(work.stream);
    cudaStreamSynchronize(work.stream);
  }
}
GPUBENCH_BENCHMARK(Streams_OtherSynced);

// Two copies at once on two streams: the span runs from the first start to the last end.
static void Streams_TwoOverlapping(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  for (auto _ : gpubench::Loop(state)) {
    work.Copy(work.stream);
    CopyKernel<<<kBlocks, 256, 0, work.stream2>>>(work.in2, work.out2, kFloats);
  }
}
GPUBENCH_BENCHMARK(Streams_TwoOverlapping);

// A graph of four copies, launched on a stream the loop was not given.
static void Streams_GraphOther(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaStreamBeginCapture(work.stream, cudaStreamCaptureModeThreadLocal);
  for (int i = 0; i < 4; ++i) work.Copy(work.stream);
  cudaStreamEndCapture(work.stream, &graph);
  if (graph == nullptr || cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
    state.SkipWithError("graph capture failed");
    return;
  }
  for (auto _ : gpubench::Loop(state)) cudaGraphLaunch(exec, work.stream);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}
GPUBENCH_BENCHMARK(Streams_GraphOther);

// A cuBLAS handle set to a stream of its own: SGEMM 4096 (about 1 ms).
static void Streams_CublasOwnStream(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  const int n = 4096;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    state.SkipWithError("cublasCreate failed");
    return;
  }
  cublasSetStream(handle, work.stream);
  const float alpha = 1.0f, beta = 0.0f;
  for (auto _ : gpubench::Loop(state)) {
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, work.in, n, work.in2, n, &beta,
                work.out, n);
  }
  cublasDestroy(handle);
}
GPUBENCH_BENCHMARK(Streams_CublasOwnStream);

// Work enqueued by another host thread that the body waits for.
static void Streams_OtherThread(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  for (auto _ : gpubench::Loop(state)) {
    std::thread worker([&work] { work.Copy(work.stream); });
    worker.join();
  }
}
GPUBENCH_BENCHMARK(Streams_OtherThread);

// A persistent worker thread that the body hands its copy to and waits for (issue #37): the
// worker's launches carry no correlation id of the loop's thread, yet busy time counts them.
class Worker {
 public:
  explicit Worker(const Work& work) : work_(work), thread_([this] { Serve(); }) {}
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void CopyAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++asked_;
    wake_.notify_all();
    wake_.wait(lock, [this] { return done_ == asked_; });
  }

 private:
  void Serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return stop_ || done_ < asked_; });
      if (stop_) return;
      work_.Copy(work_.stream);
      cudaStreamSynchronize(work_.stream);
      ++done_;
      wake_.notify_all();
    }
  }
  const Work& work_;
  std::mutex mutex_;
  std::condition_variable wake_;
  int64_t asked_ = 0, done_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

static void Streams_PersistentWorker(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  Worker worker(work);
  for (auto _ : gpubench::Loop(state)) worker.CopyAndWait();
}
GPUBENCH_BENCHMARK(Streams_PersistentWorker);

// The first body of each call (the warm-up) launches on the loop's stream, later ones on a
// stream created after it: no part of gpubench joins that stream, so the span misses the copy
// and the row must be refused, held against the busy time.
static void Streams_CreatedAfterWarmup(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  cudaStream_t later = nullptr;
  int bodies = 0;
  for (auto _ : gpubench::Loop(state)) {
    if (bodies++ == 0) {
      work.Copy(nullptr);
      continue;
    }
    if (later == nullptr) cudaStreamCreateWithFlags(&later, cudaStreamNonBlocking);
    work.Copy(later);
  }
  if (later != nullptr) {
    cudaStreamSynchronize(later);
    cudaStreamDestroy(later);
  }
}
GPUBENCH_BENCHMARK(Streams_CreatedAfterWarmup);

// A stream created and destroyed in every iteration: it cannot be joined, so the row is an
// error that names the fix.
static void Streams_PerIterationStream(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  for (auto _ : gpubench::Loop(state)) {
    cudaStream_t temporary = nullptr;
    cudaStreamCreateWithFlags(&temporary, cudaStreamNonBlocking);
    work.Copy(temporary);
    cudaStreamDestroy(temporary);
  }
}
GPUBENCH_BENCHMARK(Streams_PerIterationStream);

// The cost of the fork and join: a 1-warp kernel on the loop's stream and on another one.
static void Streams_TinyRight(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  for (auto _ : gpubench::Loop(state, work.stream)) SpinKernel<<<1, 32, 0, work.stream>>>(0);
}
GPUBENCH_BENCHMARK(Streams_TinyRight);

static void Streams_TinyOther(benchmark::State& state) {
  Work work(state);
  if (!work.ok) return;
  for (auto _ : gpubench::Loop(state)) SpinKernel<<<1, 32, 0, work.stream>>>(0);
}
GPUBENCH_BENCHMARK(Streams_TinyOther);

// Code built with --default-stream per-thread (streams_per_thread.cu).
void RegisterPerThreadStreamBenchmark();
static const bool per_thread_registered = (RegisterPerThreadStreamBenchmark(), true);

GPUBENCH_MAIN();
