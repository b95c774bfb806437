// Memory over a long suite: 1,000 benchmark instances with the profiler on. Each run reports
// the process's resident set size (counter rss_bytes); it must stay flat from the first
// instance to the last (no per-run leak in counter images, events or activity buffers).
#include <gpubench/gpubench.hpp>

#include <unistd.h>

#include <fstream>

#include "device_array.cuh"

__global__ void TouchKernel(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * 0.5f + 1.0f;
}

static double ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  long pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return static_cast<double>(pages_resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

static void BM_Instance(benchmark::State& state) {
  const int n = 1 << 16;
  DeviceArray<float> data(state, n);
  if (!data) return;
  for (auto _ : gpubench::Loop(state)) TouchKernel<<<n / 256, 256>>>(data.get(), n);
  state.counters["rss_bytes"] = ResidentBytes();
}
GPUBENCH_BENCHMARK(BM_Instance)->DenseRange(1, 1000)->Iterations(20);

GPUBENCH_MAIN();
