// How should a short kernel be timed? A standalone experiment (no Google Benchmark) that times the
// same kernels with several event-pair methods, so that gpubench's default could be chosen by
// measurement (issue #10, docs/accuracy.md "Short kernels"). For each method, kernel and stream it
// runs `reps` repetitions of `samples` timed kernels and prints one JSON line: the mean of the
// per-sample times of each repetition, their cv over the repetitions, the median, the noise of
// single samples and the three most common sample values (the event clock's quantisation).
//
// Methods (F = read-only L2 flush kernel, the one gpubench uses; S/E = start/stop event):
//   queued       F S K E, the host running ahead by up to 64 samples (gpubench method 1)
//   queued_keep  S K E without the flush, host ahead
//   sync         F, wait, S K E, wait: the host's launch of K lies inside the pair
//   block        F, wait, B S K E, release B, wait: B spins until the host has enqueued E
//   block_queued F B S K E, release B; host ahead (B returns at once when already released)
//   gap_queued   F G S K E with an empty kernel G between flush and start; host ahead
//   block_memset as block, with NVBench's kind of flush (a memset of half the flush buffer)
//   block_handshake F B S K E, wait until B runs, release B; no wait for the flush
//   block_slow   as block, the host spending 10 us between K and E (a longer host path)
//   block_settle as block, the host waiting 3 us between E and releasing B
// --method a,b runs only those methods.
// Usage: gpubench_timing_methods [--reps N] [--samples N] [--method a,b] [--stream legacy|created|
//        blocking] [--kernels-only]
//   --kernels-only launches every kernel 10 times after a flush, for ncu's gpu__time_duration.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "experiment_kernels.cuh"

namespace {

using experiment::CopyKernel;
using experiment::FlushKernel;
using experiment::GlobalTimer;
using experiment::TinyKernel;

__global__ void EmptyKernel() {}

__global__ void SpinKernel(unsigned long long ns, unsigned* sink) {
  const unsigned long long start = GlobalTimer();
  while (GlobalTimer() - start < ns) {
  }
  if (threadIdx.x == 1000) *sink = 1;
}

// Spins until the host has released `ticket` (or 50 ms have passed, counted in *timeouts).
// released[1] tells the host that the kernel has started (block_handshake).
__global__ void BlockKernel(volatile unsigned* released, unsigned ticket, unsigned* timeouts) {
  const unsigned long long start = GlobalTimer();
  released[1] = ticket;
  while (static_cast<int>(*released - ticket) < 0) {
    if (GlobalTimer() - start > 50000000ull) {
      atomicAdd(timeouts, 1u);
      return;
    }
  }
}

struct Gpu {
  int sms = 0;
  void* flush = nullptr;
  size_t flush_bytes = 0;
  float* a = nullptr;
  float* b = nullptr;
  unsigned* sink = nullptr;
  unsigned* released_host = nullptr;
  unsigned* released_dev = nullptr;
  unsigned ticket = 0;

  void Flush(cudaStream_t stream) {
    FlushKernel<<<sms * 4, 512, 0, stream>>>(static_cast<const uint4*>(flush),
                                             flush_bytes / sizeof(uint4), sink);
  }
  void Block(cudaStream_t stream) {
    ++ticket;
    BlockKernel<<<1, 1, 0, stream>>>(released_dev, ticket, sink + 1);
  }
  void Release() { reinterpret_cast<std::atomic<unsigned>*>(released_host)->store(ticket); }
  // Waits until the GPU runs the latest block kernel (block_handshake).
  void AwaitBlockStarted() {
    auto* started = reinterpret_cast<std::atomic<unsigned>*>(released_host + 1);
    while (started->load() != ticket) {
    }
  }
  void MemsetFlush(cudaStream_t stream) { cudaMemsetAsync(flush, 0, flush_bytes / 2, stream); }
};

struct Kernel {
  std::string name;
  std::function<void(cudaStream_t)> launch;
};

struct EventPool {
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> pairs;
  std::deque<size_t> in_flight;
  size_t next = 0;
  EventPool() {
    pairs.resize(64);
    for (auto& p : pairs) {
      CHECK(cudaEventCreate(&p.first));
      CHECK(cudaEventCreate(&p.second));
    }
  }
  double Harvest() {
    auto& p = pairs[in_flight.front()];
    in_flight.pop_front();
    CHECK(cudaEventSynchronize(p.second));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, p.first, p.second));
    return ms * 1e3;  // us
  }
};

double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}
double Stdev(const std::vector<double>& v) {
  const double m = Mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return v.size() > 1 ? std::sqrt(s / (v.size() - 1)) : 0;
}
double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void HostSpin(int ns) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < end) {
  }
}

// One repetition: `samples` timed launches of k by `method`; returns per-sample times in us.
std::vector<double> Repetition(const std::string& method, Gpu& gpu, const Kernel& k,
                               cudaStream_t stream, int samples, EventPool& pool) {
  std::vector<double> times;
  times.reserve(samples);
  const bool queued = method.find("queued") != std::string::npos || method == "block_handshake";
  for (int i = 0; i < samples; ++i) {
    if (queued && pool.in_flight.size() == pool.pairs.size()) times.push_back(pool.Harvest());
    const size_t slot = pool.next;
    pool.next = (pool.next + 1) % pool.pairs.size();
    auto& pair = pool.pairs[slot];
    if (method == "block_memset")
      gpu.MemsetFlush(stream);
    else if (method != "queued_keep")
      gpu.Flush(stream);
    const bool blocks = method.rfind("block", 0) == 0;
    if (method == "sync" || method == "block" || method == "block_memset" ||
        method == "block_slow" || method == "block_settle") {
      CHECK(cudaStreamSynchronize(stream));
    }
    if (blocks) gpu.Block(stream);
    if (method == "gap_queued") EmptyKernel<<<1, 1, 0, stream>>>();
    CHECK(cudaEventRecord(pair.first, stream));
    k.launch(stream);
    if (method == "block_slow") HostSpin(10000);
    CHECK(cudaEventRecord(pair.second, stream));
    if (method == "block_settle") HostSpin(3000);
    if (method == "block_handshake") gpu.AwaitBlockStarted();
    if (blocks) gpu.Release();
    pool.in_flight.push_back(slot);
    if (!queued) times.push_back(pool.Harvest());
  }
  while (!pool.in_flight.empty()) times.push_back(pool.Harvest());
  CHECK(cudaGetLastError());
  return times;
}

void PrintTopValues(const std::vector<double>& t) {
  std::map<long long, int> counts;  // in ns
  for (double x : t) ++counts[std::llround(x * 1e3)];
  std::vector<std::pair<int, long long>> by_count;
  for (auto& [v, c] : counts) by_count.push_back({c, v});
  std::sort(by_count.rbegin(), by_count.rend());
  std::printf(", \"distinct\": %zu, \"top_ns\": [", counts.size());
  for (size_t i = 0; i < std::min<size_t>(3, by_count.size()); ++i) {
    std::printf("%s[%lld, %d]", i ? ", " : "", by_count[i].second, by_count[i].first);
  }
  std::printf("]");
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 10;
  int samples = 1000;
  bool kernels_only = false;
  std::string only_method;
  std::string only_stream;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--samples") && i + 1 < argc)
      samples = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--method") && i + 1 < argc)
      only_method = argv[++i];
    else if (!std::strcmp(argv[i], "--stream") && i + 1 < argc)
      only_stream = argv[++i];
    else if (!std::strcmp(argv[i], "--kernels-only"))
      kernels_only = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  Gpu gpu;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  gpu.sms = prop.multiProcessorCount;
  gpu.flush_bytes = std::max<size_t>(2 * static_cast<size_t>(prop.l2CacheSize), 8 << 20);
  CHECK(cudaMalloc(&gpu.flush, gpu.flush_bytes));
  CHECK(cudaMemset(gpu.flush, 0x5a, gpu.flush_bytes));
  const size_t max_n = size_t{1} << 25;
  CHECK(cudaMalloc(&gpu.a, max_n * sizeof(float)));
  CHECK(cudaMalloc(&gpu.b, max_n * sizeof(float)));
  CHECK(cudaMemset(gpu.a, 0, max_n * sizeof(float)));
  CHECK(cudaMalloc(&gpu.sink, 16));
  CHECK(cudaMemset(gpu.sink, 0, 16));
  CHECK(cudaHostAlloc(&gpu.released_host, 64, cudaHostAllocMapped));
  std::memset(gpu.released_host, 0, 64);
  CHECK(
      cudaHostGetDevicePointer(reinterpret_cast<void**>(&gpu.released_dev), gpu.released_host, 0));
  CHECK(cudaDeviceSynchronize());

  std::vector<Kernel> kernels;
  kernels.push_back({"empty", [](cudaStream_t s) { EmptyKernel<<<1, 32, 0, s>>>(); }});
  kernels.push_back({"tiny", [&](cudaStream_t s) { TinyKernel<<<1, 32, 0, s>>>(gpu.a); }});
  for (unsigned long long ns : {5000ull, 20000ull, 100000ull}) {
    kernels.push_back({"spin" + std::to_string(ns),
                       [&, ns](cudaStream_t s) { SpinKernel<<<1, 32, 0, s>>>(ns, gpu.sink); }});
  }
  for (int log2 : {20, 21, 22, 23, 24, 25}) {
    const size_t n = size_t{1} << log2;
    kernels.push_back({"copy" + std::to_string(n), [&, n](cudaStream_t s) {
                         CopyKernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(
                             gpu.a, gpu.b, n);
                       }});
  }

  if (kernels_only) {
    for (const Kernel& k : kernels) {
      for (int i = 0; i < 10; ++i) {
        gpu.Flush(nullptr);
        k.launch(nullptr);
      }
    }
    CHECK(cudaDeviceSynchronize());
    std::printf("launched %zu kernels x 10\n", kernels.size());
    return 0;
  }

  cudaStream_t created;
  CHECK(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
  cudaStream_t blocking;
  CHECK(cudaStreamCreate(&blocking));
  const std::vector<std::pair<std::string, cudaStream_t>> streams = {
      {"legacy", nullptr}, {"created", created}, {"blocking", blocking}};
  const std::vector<std::string> methods = {
      "queued",       "queued_keep",     "sync",       "block",       "block_queued", "gap_queued",
      "block_memset", "block_handshake", "block_slow", "block_settle"};
  EventPool pool;
  for (const auto& [stream_name, stream] : streams) {
    if (!only_stream.empty() && stream_name != only_stream) continue;
    for (const std::string& method : methods) {
      if (!only_method.empty() && (only_method + ",").find(method + ",") == std::string::npos) {
        continue;
      }
      for (const Kernel& k : kernels) {
        Repetition(method, gpu, k, stream, 50, pool);  // warm-up
        std::vector<double> means, medians, noises, all;
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; ++r) {
          std::vector<double> t = Repetition(method, gpu, k, stream, samples, pool);
          means.push_back(Mean(t));
          medians.push_back(Median(t));
          noises.push_back(Stdev(t) / Mean(t));
          all.insert(all.end(), t.begin(), t.end());
        }
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        unsigned timeouts[2] = {};
        CHECK(cudaMemcpy(timeouts, gpu.sink, 8, cudaMemcpyDeviceToHost));
        std::printf(
            "{\"stream\": \"%s\", \"method\": \"%s\", \"kernel\": \"%s\", \"mean_us\": %.4f, "
            "\"cv_of_means_pct\": %.3f, \"median_us\": %.4f, \"cv_of_medians_pct\": %.3f, "
            "\"sample_noise_pct\": %.2f, \"min_us\": %.4f, \"wall_us_per_sample\": %.2f, "
            "\"block_timeouts\": %u",
            stream_name.c_str(), method.c_str(), k.name.c_str(), Mean(means),
            100 * Stdev(means) / Mean(means), Mean(medians), 100 * Stdev(medians) / Mean(medians),
            100 * Mean(noises), *std::min_element(all.begin(), all.end()),
            wall * 1e6 / (reps * samples), timeouts[1]);
        PrintTopValues(all);
        std::printf("}\n");
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
