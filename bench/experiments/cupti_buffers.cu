// Where CUPTI keeps the GPU's timestamps of traced kernels, and what that does to a suite's next
// allocation and to a placement-sensitive kernel (docs/accuracy.md "A number and what ran before
// it"). No gpubench inside: the process does what a gpubench process does between two
// repetitions of a suite that allocates its data in the benchmark function (kokkos/mdspan's 3-D
// sums, which free it at the end; this program keeps it): allocate and fill an 80^3 array, time
// mdspan's left-layout sum on it, then trace one iteration as gpubench's busy measurement does
// (enable kernel, copy and set activity, run the kernel, disable, flush), and again.
//   cupti_buffers none|device|host [cycles, default 6]
// none: no CUPTI; device: CUPTI's default, timestamp buffers in GPU memory; host: its buffers in
// pinned host memory (CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED). Prints, per cycle, the
// GPU memory CUPTI held while tracing, the array's address and the kernel's median of 9 launches.
// On an H100 (tests/data/h200/order/h100_fecd41de/neighbours/buffers_*) the three modes agreed:
// this hand-written kernel (13.1 ms, not the suite's 22.4 ms) is not sensitive to them, and
// cudaMemGetInfo saw no GPU memory taken while tracing in any mode.
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "experiment_kernels.cuh"

#define CUPTI_CHECK(call)                                          \
  do {                                                             \
    if ((call) != CUPTI_SUCCESS) {                                 \
      std::printf("%s:%d %s failed\n", __FILE__, __LINE__, #call); \
      std::exit(1);                                                \
    }                                                              \
  } while (0)

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}
void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) {
  std::free(buffer);
}

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};

size_t FreeBytes() {
  size_t free = 0, total = 0;
  CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

float MedianTime(double* data, int sms) {
  std::vector<float> times;
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 9; ++i) {
    CHECK(cudaEventRecord(start));
    experiment::LaunchLeftSum(data, sms, 1000);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "device";
  const int cycles = argc > 2 ? std::atoi(argv[2]) : 6;
  const bool trace = std::strcmp(mode, "none") != 0;
  if (std::strcmp(mode, "host") == 0) {
    uint8_t host_pinned = 1;
    size_t size = sizeof(host_pinned);
    CUPTI_CHECK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED,
                                          &size, &host_pinned));
  }
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (trace) CUPTI_CHECK(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted));
  for (int cycle = 0; cycle < cycles; ++cycle) {
    double* data = experiment::NewSumArray();
    const float ms = MedianTime(data, sms);
    long long held = 0;
    if (trace) {  // one traced iteration, as the busy measurement takes
      const size_t before = FreeBytes();
      for (CUpti_ActivityKind kind : kKinds) CUPTI_CHECK(cuptiActivityEnable(kind));
      experiment::LaunchLeftSum(data, sms, 1);
      CHECK(cudaDeviceSynchronize());
      held = static_cast<long long>(before) - static_cast<long long>(FreeBytes());
      for (CUpti_ActivityKind kind : kKinds) CUPTI_CHECK(cuptiActivityDisable(kind));
      CUPTI_CHECK(cuptiActivityFlushAll(1));
    }
    std::printf("%s cycle %d: array at %p, kernel %.3f ms, CUPTI held %.1f MiB of GPU memory\n",
                mode, cycle, static_cast<void*>(data), ms, held / 1048576.0);
  }
  return 0;
}
