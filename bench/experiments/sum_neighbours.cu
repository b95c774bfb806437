// What moves mdspan's left-layout 80^3 sum between gpubench processes (docs/accuracy.md "A number
// and what ran before it"). Plain CUDA, no gpubench: the kernel is mdspan's
// BM_Raw_Cuda_Sum_3D_left at 80^3 (one block per SM, blocks of 1x32x4 threads, 1000 passes that
// each read the whole array with lanes 51.2 KB apart and write element 0), timed with CUDA events
// as the suite times it. Before each timed launch the probe runs what a gpubench sample runs
// before the user's kernel, one thing per scenario:
//
//   none     nothing (the plain-GB twin)
//   flush    gpubench's L2 flush: a kernel of 4 blocks per SM that reads 2x the L2's size
//   probe    the clock probe: 4 blocks per SM of one warp, each writing its SM's clock
//   hold     the stream hold: one thread that spins on a mapped host word until the host
//            releases it
//   empty1   an empty kernel of one block
//
// and, per process, "fresh": the kernel on new allocations (as each repetition of the suite
// allocates its array anew and never frees it), which shows what the data's placement does.
// Prints, per scenario, the median and the range of the timed launches in ms. On an H100
// (tests/data/h200/order/h100_fecd41de/neighbours/neigh_*) no scenario and no fresh array moved
// the kernel by more than 0.2%; it ran in 13.1 ms, not the suite's 22.4 ms, so it is not an exact
// copy of the suite's kernel.
//   sum_neighbours [rounds, default 3] [launches per scenario and round, default 9]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "experiment_kernels.cuh"

__global__ void ClockProbe(unsigned long long* out) {
  if (threadIdx.x != 0) return;
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  out[sm % 1024] = clock64();
}

__global__ void Hold(volatile unsigned* released, unsigned ticket) {
  while (static_cast<int>(*released - ticket) < 0) {
  }
}

__global__ void Empty() {}

struct Gpu {
  int sms = 0;
  void* flush = nullptr;
  size_t flush_bytes = 0;
  unsigned long long* probe = nullptr;
  unsigned* host_word = nullptr;
  unsigned* device_word = nullptr;
  unsigned ticket = 0;
};

void Before(const std::string& what, Gpu* gpu) {
  if (what == "flush") {
    experiment::FlushKernel<<<gpu->sms * 4, 512>>>(static_cast<const uint4*>(gpu->flush),
                                                   gpu->flush_bytes / sizeof(uint4),
                                                   reinterpret_cast<unsigned*>(gpu->probe));
  } else if (what == "probe") {
    ClockProbe<<<gpu->sms * 4, 32>>>(gpu->probe);
  } else if (what == "empty1") {
    Empty<<<1, 1>>>();
  }
}

float TimedLaunch(double* data, const std::string& what, Gpu* gpu) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  Before(what, gpu);
  if (what == "hold") {
    Hold<<<1, 1>>>(gpu->device_word, ++gpu->ticket);
  }
  CHECK(cudaEventRecord(start));
  experiment::LaunchLeftSum(data, gpu->sms, 1000);
  CHECK(cudaEventRecord(stop));
  if (what == "hold") {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    *reinterpret_cast<volatile unsigned*>(gpu->host_word) = gpu->ticket;
  }
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return ms;
}

void Print(const std::string& name, std::vector<float> times) {
  std::sort(times.begin(), times.end());
  std::printf("%-8s median %.3f ms  least %.3f  most %.3f  (%zu launches)\n", name.c_str(),
              times[times.size() / 2], times.front(), times.back(), times.size());
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  const int launches = argc > 2 ? std::atoi(argv[2]) : 9;
  Gpu gpu;
  int l2 = 0;
  CHECK(cudaDeviceGetAttribute(&gpu.sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  double* data = experiment::NewSumArray();
  gpu.flush_bytes = std::max<size_t>(2 * static_cast<size_t>(l2), size_t{8} << 20);
  CHECK(cudaMalloc(&gpu.flush, gpu.flush_bytes));
  CHECK(cudaMemset(gpu.flush, 0x5a, gpu.flush_bytes));
  CHECK(cudaMalloc(&gpu.probe, 1024 * sizeof(unsigned long long)));
  CHECK(cudaHostAlloc(&gpu.host_word, sizeof(unsigned), cudaHostAllocMapped));
  *gpu.host_word = 0;
  CHECK(cudaHostGetDevicePointer(&gpu.device_word, gpu.host_word, 0));
  std::printf("data at %p (offset 0x%llx in its 2 MiB page), %d SMs, L2 %d bytes\n",
              static_cast<void*>(data),
              static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(data) & 0x1fffff),
              gpu.sms, l2);
  (void)TimedLaunch(data, "none", &gpu);  // loads the module
  const std::vector<std::string> scenarios = {"none", "flush", "probe", "hold", "empty1"};
  std::vector<std::vector<float>> times(scenarios.size());
  for (int round = 0; round < rounds; ++round) {
    for (size_t s = 0; s < scenarios.size(); ++s) {
      for (int i = 0; i < launches; ++i) times[s].push_back(TimedLaunch(data, scenarios[s], &gpu));
    }
  }
  for (size_t s = 0; s < scenarios.size(); ++s) Print(scenarios[s], times[s]);
  for (int a = 0; a < 6; ++a) {
    double* fresh = experiment::NewSumArray();
    std::vector<float> fresh_times;
    for (int i = 0; i < launches; ++i) fresh_times.push_back(TimedLaunch(fresh, "none", &gpu));
    char name[32];
    std::snprintf(name, sizeof(name), "fresh%d", a);
    std::printf("%p ", static_cast<void*>(fresh));
    Print(name, fresh_times);
  }
  return 0;
}
