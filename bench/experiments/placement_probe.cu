// Which of gpubench's own GPU resources moves a suite's next allocation, and what that does to an
// atomic-bound kernel (docs/accuracy.md "A number and what ran before it"). Plain CUDA, no
// gpubench: each scenario runs in a fresh primary context (cudaDeviceReset) and replays what a
// suite and a harness do in a process:
//
//   earlier benchmark: allocate a small buffer (a 1,000-bit bitset), then the harness's step X,
//                      then free the buffer (the harness keeps what X made);
//   this benchmark:    allocate a deque (a 16-byte index pair of its own, 10^7 slots) and time
//                      its push_front: every thread moves the shared begin index atomically and
//                      writes its slot.
//
// X is one of the things gpubench made lazily, in the first benchmark that needed it, before
// it made them all in Initialize: the timer's CUDA events, the clock probe's buffers, the mapped
// host word of the stream hold, the L2 flush buffer, the first launch of a kernel of its own
// (its module is loaded then). "alone" is the deque as a process's first benchmark, "X first"
// the harness's step before any benchmark (as Initialize does now).
//
// Prints, per scenario: the index pair's address within its 2 MiB page and relative to the
// deque's slots, and the kernel's median time over 15 launches (CUDA events).
//   placement_probe [elements, default 10000000]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(call)                                                                         \
  do {                                                                                      \
    cudaError_t error_ = (call);                                                            \
    if (error_ != cudaSuccess) {                                                            \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(error_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

__global__ void PushFront(int* slots, unsigned long long* begin, size_t n, size_t capacity) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    const unsigned long long position = atomicAdd(begin, ~0ull);  // begin - 1
    slots[(position + capacity - 1) % capacity] = static_cast<int>(i);
  }
}

__global__ void OtherKernel(int* out) {
  if (out != nullptr) *out = 1;
}

struct Resources {  // what step X made; kept until the scenario ends, as the harness keeps it
  std::vector<cudaEvent_t> events;
  std::vector<void*> device;
  std::vector<void*> host;
};

void Step(const std::string& what, Resources* kept) {
  if (what == "events" || what == "all") {
    for (int i = 0; i < 130; ++i) {
      cudaEvent_t event;
      CHECK(cudaEventCreate(&event));
      kept->events.push_back(event);
    }
  }
  if (what == "probe" || what == "all") {
    void* probe;
    CHECK(cudaMalloc(&probe, 2 * 1024 * 16 + 4));
    kept->device.push_back(probe);
    void* samples;
    CHECK(cudaMallocHost(&samples, 2 * 1024 * 16));
    kept->host.push_back(samples);
  }
  if (what == "hold" || what == "all") {
    void* hold;
    CHECK(cudaHostAlloc(&hold, 16, cudaHostAllocMapped));
    kept->host.push_back(hold);
  }
  if (what == "flush" || what == "all") {
    int l2 = 0;
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    void* flush;
    CHECK(cudaMalloc(&flush, 2 * static_cast<size_t>(l2) + 4));
    CHECK(cudaMemset(flush, 0x5a, 2 * static_cast<size_t>(l2)));
    kept->device.push_back(flush);
  }
  if (what == "kernel" || what == "all") {
    OtherKernel<<<1, 1>>>(nullptr);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
}

void Release(Resources* kept) {
  for (cudaEvent_t event : kept->events) cudaEventDestroy(event);
  for (void* p : kept->device) cudaFree(p);
  for (void* p : kept->host) cudaFreeHost(p);
}

// order: "alone" (the deque first), "after" (bitset, X, free bitset, deque), "first" (X, then as
// "after").
void Scenario(const std::string& order, const std::string& step, size_t n) {
  CHECK(cudaDeviceReset());
  CHECK(cudaFree(nullptr));
  Resources kept;
  if (order == "first") Step(step, &kept);
  if (order != "alone") {
    void* bitset;
    CHECK(cudaMalloc(&bitset, 1000 / 8));
    CHECK(cudaMemset(bitset, 0, 1000 / 8));
    if (order == "after") Step(step, &kept);
    CHECK(cudaFree(bitset));
  }
  unsigned long long* begin;
  int* slots;
  CHECK(cudaMalloc(&begin, 2 * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&slots, n * sizeof(int)));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int i = 0; i < 16; ++i) {
    CHECK(cudaMemset(begin, 0, 2 * sizeof(unsigned long long)));
    CHECK(cudaEventRecord(start));
    PushFront<<<(n + 255) / 256, 256>>>(slots, begin, n, n);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    if (i > 0) ms.push_back(t);  // the first launch loads the module
  }
  std::sort(ms.begin(), ms.end());
  const auto address = reinterpret_cast<uintptr_t>(begin);
  std::printf("%-6s %-7s begin %% 2MiB = 0x%06lx  begin - slots = %+12ld B  push_front %.4f ms\n",
              order.c_str(), order == "alone" ? "-" : step.c_str(),
              static_cast<unsigned long>(address % (2u << 20)),
              static_cast<long>(address - reinterpret_cast<uintptr_t>(slots)), ms[ms.size() / 2]);
  std::fflush(stdout);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(begin);
  cudaFree(slots);
  Release(&kept);
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000000;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, L2 %d MiB; %zu elements\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, n);
  for (int round = 0; round < 2; ++round) {
    Scenario("alone", "", n);
    for (const char* step : {"none", "events", "probe", "hold", "flush", "kernel", "all"}) {
      Scenario("after", step, n);
    }
    Scenario("first", "all", n);
  }
  return 0;
}
