// What moves mdspan's left-layout 80^3 sum between gpubench processes (docs/accuracy.md "A number
// and what ran before it"). Plain CUDA, no gpubench: mdspan's left 80^3 sum (one block per SM,
// blocks of 1x32x4 threads, 1000 passes that each read the whole array with lanes 6400 elements
// apart and write element 0), timed with CUDA events as the suite times it, in one of two forms:
//
//   copy     (the default) a simplified copy: double elements, int indices, a plain store
//   suite    the suite's own form: int elements, size_t loops, the store read back and stored
//            again (experiment_kernels.cuh), which runs as long as the suite's kernel
//
// Before each timed launch the probe runs what a gpubench sample runs before the user's kernel,
// one thing per scenario:
//
//   none     nothing (the plain-GB twin)
//   flush    gpubench's L2 flush: a kernel of 4 blocks per SM that reads 2x the L2's size
//   probe    the clock probe: 4 blocks per SM of one warp, each writing its SM's clock
//   hold     the stream hold: one thread that spins on a mapped host word until the host
//            releases it
//   empty1   an empty kernel of one block
//   sample   the flush, then the clock probe
//
// then the kernel on 12 new arrays, each after a spacer allocation of 0-100 MiB that stays
// allocated: the same kernel at other addresses and on other physical pages. Prints, per scenario
// and per array, the median and range of the launches in ms; in the suite's form also, per launch,
// where its blocks ran (SMs used, most blocks on one SM, a hash of the reading blocks' SMs).
// Findings (H100, tests/data/h200/order/h100_2243b930/kernel_placement and
// h100_9448af62/kernel_blocks): in the suite's form the arrays' medians span 20.8-27.3 ms, and the
// same arrays (the first, the first after 0 MiB, those after 4, 6 and 64 MiB) are the slow ones in
// all four processes on two GPUs; on one array launches still move by up to 17%; every launch ran
// one block per SM on all 132 SMs. An earlier version of this program (6 arrays without spacers,
// the copy only) found nothing that moved the copy by more than 0.2% (h100_fecd41de/neighbours).
//   sum_neighbours [rounds, default 3] [launches per scenario and round, default 9] [copy|suite]
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
  unsigned long long* where = nullptr;  // per block: SM, start and end (the suite's form only)
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
  } else if (what == "sample") {
    Before("flush", gpu);
    Before("probe", gpu);
  }
}

// The kernel under test: the simplified copy (double elements) or the suite's own form (int).
struct SumArray {
  void* data = nullptr;
  bool as_suite = false;
};

SumArray NewArray(bool as_suite) {
  SumArray array;
  array.as_suite = as_suite;
  array.data = as_suite ? static_cast<void*>(experiment::NewArrayOf<int>())
                        : static_cast<void*>(experiment::NewSumArray());
  return array;
}

// Where the suite-form kernel's blocks ran: how many SMs they used, the most blocks on one SM,
// how many SMs hold more than one of the blocks that read data (the first kSumExtent), which SM
// finished last, and a hash of the SMs of the reading blocks (the same hash, the same placement).
void DescribeBlocks(const std::string& what, float ms, Gpu* gpu) {
  std::vector<unsigned long long> where(3 * static_cast<size_t>(gpu->sms));
  CHECK(cudaMemcpy(where.data(), gpu->where, where.size() * sizeof(where[0]),
                   cudaMemcpyDeviceToHost));
  std::vector<int> per_sm(1024, 0), reading_per_sm(1024, 0);
  unsigned long long first_start = ~0ull, last_end = 0, hash = 1469598103934665603ull;
  int last_block = 0;
  for (int b = 0; b < gpu->sms; ++b) {
    const unsigned sm = static_cast<unsigned>(where[3 * b]) % 1024;
    ++per_sm[sm];
    if (b < experiment::kSumExtent) {
      ++reading_per_sm[sm];
      hash = (hash ^ sm) * 1099511628211ull;
    }
    first_start = std::min(first_start, where[3 * b + 1]);
    if (where[3 * b + 2] > last_end) {
      last_end = where[3 * b + 2];
      last_block = b;
    }
  }
  int used = 0, most = 0, shared_reading = 0;
  for (int sm = 0; sm < 1024; ++sm) {
    used += per_sm[sm] > 0;
    most = std::max(most, per_sm[sm]);
    shared_reading += reading_per_sm[sm] > 1;
  }
  std::printf(
      "launch %-7s %.3f ms  SMs %d  most/SM %d  shared-reading %d  last block %d on SM %llu"
      "  span %.3f ms  placement %016llx\n",
      what.c_str(), ms, used, most, shared_reading, last_block, where[3 * last_block],
      (last_end - first_start) / 1e6, hash);
}

float TimedLaunch(const SumArray& array, const std::string& what, Gpu* gpu) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  Before(what, gpu);
  if (what == "hold") {
    Hold<<<1, 1>>>(gpu->device_word, ++gpu->ticket);
  }
  CHECK(cudaEventRecord(start));
  if (array.as_suite) {
    experiment::LaunchSuiteLeftSum(static_cast<int*>(array.data), gpu->sms, 1000, gpu->where);
  } else {
    experiment::LaunchLeftSum(static_cast<double*>(array.data), gpu->sms, 1000);
  }
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
  if (array.as_suite) DescribeBlocks(what, ms, gpu);
  return ms;
}

void Print(const std::string& name, std::vector<float> times) {
  std::sort(times.begin(), times.end());
  std::printf("%-8s median %.3f ms  least %.3f  most %.3f  (%zu launches)\n", name.c_str(),
              times[times.size() / 2], times.front(), times.back(), times.size());
}

void PrintAt(const char* name, const SumArray& array, std::vector<float> times) {
  std::printf("%p (0x%06llx in its 2 MiB page) ", array.data,
              static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(array.data) & 0x1fffff));
  Print(name, std::move(times));
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  const int launches = argc > 2 ? std::atoi(argv[2]) : 9;
  const bool as_suite = argc > 3 && std::string(argv[3]) == "suite";
  Gpu gpu;
  int l2 = 0;
  CHECK(cudaDeviceGetAttribute(&gpu.sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const SumArray first = NewArray(as_suite);
  gpu.flush_bytes = std::max<size_t>(2 * static_cast<size_t>(l2), size_t{8} << 20);
  CHECK(cudaMalloc(&gpu.flush, gpu.flush_bytes));
  CHECK(cudaMemset(gpu.flush, 0x5a, gpu.flush_bytes));
  CHECK(cudaMalloc(&gpu.probe, 1024 * sizeof(unsigned long long)));
  CHECK(cudaHostAlloc(&gpu.host_word, sizeof(unsigned), cudaHostAllocMapped));
  *gpu.host_word = 0;
  CHECK(cudaHostGetDevicePointer(&gpu.device_word, gpu.host_word, 0));
  if (as_suite) CHECK(cudaMalloc(&gpu.where, 3 * gpu.sms * sizeof(unsigned long long)));
  std::printf("kernel %s, %d SMs, L2 %d bytes\n", as_suite ? "as the suite's" : "simplified copy",
              gpu.sms, l2);
  (void)TimedLaunch(first, "none", &gpu);  // loads the module
  const std::vector<std::string> scenarios = {"none", "flush", "probe", "hold", "empty1", "sample"};
  std::vector<std::vector<float>> times(scenarios.size());
  for (int round = 0; round < rounds; ++round) {
    for (size_t s = 0; s < scenarios.size(); ++s) {
      for (int i = 0; i < launches; ++i) times[s].push_back(TimedLaunch(first, scenarios[s], &gpu));
    }
  }
  for (size_t s = 0; s < scenarios.size(); ++s) PrintAt(scenarios[s].c_str(), first, times[s]);
  // Fresh arrays, each after a spacer of its own size that stays allocated: other addresses, and
  // other physical pages, for the same kernel in the same process.
  for (size_t spacer_mib : {0, 0, 1, 2, 3, 4, 6, 8, 16, 32, 64, 100}) {
    void* spacer = nullptr;
    if (spacer_mib > 0) CHECK(cudaMalloc(&spacer, spacer_mib << 20));
    const SumArray fresh = NewArray(as_suite);
    std::vector<float> fresh_times;
    for (int i = 0; i < launches; ++i) fresh_times.push_back(TimedLaunch(fresh, "none", &gpu));
    char name[32];
    std::snprintf(name, sizeof(name), "after%zuM", spacer_mib);
    PrintAt(name, fresh, fresh_times);
  }
  return 0;
}
