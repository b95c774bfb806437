// Which part of CUPTI's range profiler slows the timed iterations of a short kernel? With metrics
// on, gpubench's short kernels read 3-9% slower than with metrics off (issue #25) although no
// profiling session ran during them. This standalone experiment (no Google Benchmark) times a
// one-warp kernel and a copy of 2^20 floats the way gpubench method version 2 does (read-only L2
// flush, wait, hold kernel, start event, kernel, stop event, release, wait) in each state of
// attachment, one after another in one process:
//   plain         a CUDA context and nothing else
//   initialized   after cuptiProfilerInitialize
//   subscribed    + cuptiSubscribe (no callback enabled)
//   enabled       + cuptiRangeProfilerEnable (the profiler attached to the context)
//   after_session + one user-range session of the default metrics (still enabled)
//   disabled      after cuptiRangeProfilerDisable
//   unsubscribed  after cuptiUnsubscribe
//   plain_again   after cuptiProfilerDeInitialize
// Each state is measured with the buffers of the state before and with buffers allocated anew
// in it; then the program tries to attach again (subscribe, enable after a disable), naming each
// step before it, so that a failure names it. For each state and kernel: `reps` repetitions of
// `samples` held iterations; one line per state: the median over the repetitions of each
// repetition's mean, and the spread.
//   --callbacks   instead: before, while and after CUPTI's kernel-launch callbacks are on
//   --addresses   instead: the tiny kernel on 12 buffers at different places
// Usage: gpubench_profiler_attach [--callbacks|--addresses] [--reps N] [--samples N]
// Results: docs/accuracy.md "Metrics on and off".
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "experiment_kernels.cuh"

#define CUPTI(call)                                                             \
  do {                                                                          \
    CUptiResult result_ = (call);                                               \
    if (result_ != CUPTI_SUCCESS) {                                             \
      const char* text_ = nullptr;                                              \
      cuptiGetResultString(result_, &text_);                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, text_); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

#define PARAMS(type, name)             \
  type name;                           \
  std::memset(&name, 0, sizeof(name)); \
  name.structSize = type##_STRUCT_SIZE

namespace {

using experiment::CopyKernel;
using experiment::FlushKernel;
using experiment::GlobalTimer;
using experiment::TinyKernel;

__global__ void HoldKernel(volatile unsigned* released, unsigned ticket) {
  const unsigned long long start = GlobalTimer();
  while (static_cast<int>(*released - ticket) < 0 && GlobalTimer() - start < 100000000ull) {
  }
}

struct Bench {
  uint4* flush = nullptr;
  size_t flush_words = 0;
  int sms = 0;
  volatile unsigned* released = nullptr;
  unsigned* released_device = nullptr;
  unsigned ticket = 0;
  float* tiny = nullptr;  // one float, as BM_ShortTiny allocates
  float* a = nullptr;
  float* b = nullptr;
  size_t n = size_t{1} << 20;
  cudaEvent_t start{}, stop{};

  void Setup() {
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    sms = prop.multiProcessorCount;
    const size_t bytes = 2 * static_cast<size_t>(prop.l2CacheSize);
    CHECK(cudaMalloc(&flush, bytes + 16));
    CHECK(cudaMemset(flush, 0x5a, bytes + 16));
    flush_words = bytes / sizeof(uint4);
    void* host = nullptr;
    CHECK(cudaHostAlloc(&host, sizeof(unsigned), cudaHostAllocMapped));
    released = static_cast<volatile unsigned*>(host);
    *released = 0;
    CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&released_device), host, 0));
    Reallocate();
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaDeviceSynchronize());
  }

  // The kernels' buffers, freed and allocated again: where they land may depend on what else
  // (CUPTI) holds device memory at that moment.
  void Reallocate() {
    if (tiny != nullptr) CHECK(cudaFree(tiny));
    if (a != nullptr) CHECK(cudaFree(a));
    if (b != nullptr) CHECK(cudaFree(b));
    CHECK(cudaMalloc(&tiny, sizeof(float)));
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    CHECK(cudaMemset(tiny, 0, sizeof(float)));
    CHECK(cudaMemset(a, 0, n * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    std::printf("  buffers at tiny %p, a %p, b %p\n", static_cast<void*>(tiny),
                static_cast<void*>(a), static_cast<void*>(b));
  }

  void Launch(bool copy) {
    if (copy) {
      CopyKernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(a, b, n);
    } else {
      TinyKernel<<<1, 32>>>(tiny);
    }
  }

  // One held iteration as gpubench times it; returns microseconds.
  double Held(bool copy) {
    FlushKernel<<<sms * 4, 512>>>(flush, flush_words,
                                  reinterpret_cast<unsigned*>(flush + flush_words));
    CHECK(cudaStreamSynchronize(nullptr));
    ++ticket;
    HoldKernel<<<1, 1>>>(released_device, ticket);
    CHECK(cudaEventRecord(start, nullptr));
    Launch(copy);
    CHECK(cudaEventRecord(stop, nullptr));
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *released = ticket;
    CHECK(cudaStreamSynchronize(nullptr));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms * 1e3;
  }

  // The median over `reps` of each repetition's mean, and the smallest and largest mean.
  void Measure(const char* state, bool copy, int reps, int samples) {
    for (int i = 0; i < 20; ++i) Held(copy);
    std::vector<double> means;
    for (int r = 0; r < reps; ++r) {
      double sum = 0;
      for (int i = 0; i < samples; ++i) sum += Held(copy);
      means.push_back(sum / samples);
    }
    std::sort(means.begin(), means.end());
    std::printf("%-14s %-10s median %.4f us  min %.4f  max %.4f  (%d x %d held iterations)\n",
                state, copy ? "copy_2^20" : "tiny", means[means.size() / 2], means.front(),
                means.back(), reps, samples);
    std::fflush(stdout);
  }
};

// One user-range session of gpubench's default metrics around one held tiny kernel.
void OneSession(CUpti_RangeProfiler_Object* object, Bench& bench) {
  const char* metrics[] = {"dram__bytes_read.sum", "dram__bytes_write.sum",
                           "gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second"};
  PARAMS(CUpti_Device_GetChipName_Params, chip);
  chip.deviceIndex = 0;
  CUPTI(cuptiDeviceGetChipName(&chip));
  PARAMS(CUpti_Profiler_Host_Initialize_Params, host);
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip.pChipName;
  CUPTI(cuptiProfilerHostInitialize(&host));
  PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
  add.pHostObject = host.pHostObject;
  add.ppMetricNames = metrics;
  add.numMetrics = 4;
  CUPTI(cuptiProfilerHostConfigAddMetrics(&add));
  PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, size);
  size.pHostObject = host.pHostObject;
  CUPTI(cuptiProfilerHostGetConfigImageSize(&size));
  std::vector<uint8_t> config(size.configImageSize);
  PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, image);
  image.pHostObject = host.pHostObject;
  image.configImageSize = config.size();
  image.pConfigImage = config.data();
  CUPTI(cuptiProfilerHostGetConfigImage(&image));
  PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, data_size);
  data_size.pRangeProfilerObject = object;
  data_size.pMetricNames = metrics;
  data_size.numMetrics = 4;
  data_size.maxNumOfRanges = 1;
  data_size.maxNumRangeTreeNodes = 1;
  CUPTI(cuptiRangeProfilerGetCounterDataSize(&data_size));
  std::vector<uint8_t> data(data_size.counterDataSize);
  PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, init);
  init.pRangeProfilerObject = object;
  init.counterDataSize = data.size();
  init.pCounterData = data.data();
  CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&init));
  PARAMS(CUpti_RangeProfiler_SetConfig_Params, set);
  set.pRangeProfilerObject = object;
  set.configSize = config.size();
  set.pConfig = config.data();
  set.counterDataImageSize = data.size();
  set.pCounterDataImage = data.data();
  set.range = CUPTI_UserRange;
  set.replayMode = CUPTI_UserReplay;
  set.maxRangesPerPass = 1;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.targetNestingLevel = 1;
  CUPTI(cuptiRangeProfilerSetConfig(&set));
  for (bool done = false; !done;) {
    PARAMS(CUpti_RangeProfiler_Start_Params, start);
    start.pRangeProfilerObject = object;
    CUPTI(cuptiRangeProfilerStart(&start));
    PARAMS(CUpti_RangeProfiler_PushRange_Params, push);
    push.pRangeProfilerObject = object;
    push.pRangeName = "session";
    CUPTI(cuptiRangeProfilerPushRange(&push));
    bench.Launch(false);
    PARAMS(CUpti_RangeProfiler_PopRange_Params, pop);
    pop.pRangeProfilerObject = object;
    CUPTI(cuptiRangeProfilerPopRange(&pop));
    PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
    stop.pRangeProfilerObject = object;
    CUPTI(cuptiRangeProfilerStop(&stop));
    done = stop.isAllPassSubmitted != 0;
  }
  PARAMS(CUpti_RangeProfiler_DecodeData_Params, decode);
  decode.pRangeProfilerObject = object;
  CUPTI(cuptiRangeProfilerDecodeData(&decode));
  PARAMS(CUpti_Profiler_Host_Deinitialize_Params, host_done);
  host_done.pHostObject = host.pHostObject;
  cuptiProfilerHostDeinitialize(&host_done);
  // The profiler object keeps pointers to the images of its last SetConfig until the next one or
  // the disable (the second session crashed on CUDA 13.0 when they were freed here); gpubench's
  // profiler keeps its images for as long, too.
  static std::vector<std::vector<uint8_t>> images_in_use;
  images_in_use.push_back(std::move(config));
  images_in_use.push_back(std::move(data));
}

void CUPTIAPI Ignore(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

}  // namespace

// --addresses: the held tiny kernel on 12 one-float buffers, each allocated after a spacer of a
// different size, so that they land at different places: how much the place alone moves it.
void Addresses(Bench& bench, int reps, int samples) {
  std::vector<void*> spacers;
  for (int i = 0; i < 12; ++i) {
    void* spacer = nullptr;
    CHECK(cudaMalloc(&spacer, (size_t{1} << 20) * (1 + 3 * i)));
    spacers.push_back(spacer);
    bench.Reallocate();
    bench.Measure(("address_" + std::to_string(i)).c_str(), false, reps, samples);
  }
  for (void* spacer : spacers) CHECK(cudaFree(spacer));
}

// --callbacks: the held kernels before, while and after CUPTI's driver callbacks for kernel
// launches are on (gpubench turns them on for each profiling session, to compare the passes).
void Callbacks(Bench& bench, int reps, int samples) {
  auto both = [&](const char* state) {
    bench.Measure(state, false, reps, samples);
    bench.Measure(state, true, reps, samples);
  };
  both("before");
  CUpti_SubscriberHandle subscriber = nullptr;
  CUPTI(cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(&Ignore), nullptr));
  const CUpti_CallbackId ids[] = {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                                  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx};
  for (auto id : ids) CUPTI(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id));
  both("callbacks_on");
  for (auto id : ids) CUPTI(cuptiEnableCallback(0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id));
  both("callbacks_off");
  CUPTI(cuptiUnsubscribe(subscriber));
  both("unsubscribed");
}

int main(int argc, char** argv) {
  int reps = 5, samples = 2000;
  std::string mode = "states";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--addresses") == 0) mode = "addresses";
    if (std::strcmp(argv[i], "--callbacks") == 0) mode = "callbacks";
    if (i + 1 < argc && std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (i + 1 < argc && std::strcmp(argv[i], "--samples") == 0) samples = std::atoi(argv[i + 1]);
  }
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));
  Bench bench;
  bench.Setup();
  if (mode == "addresses") {
    Addresses(bench, reps, samples);
    return 0;
  }
  if (mode == "callbacks") {
    Callbacks(bench, reps, samples);
    return 0;
  }
  // Each state twice: with the buffers of the state before, then with buffers allocated anew.
  auto measure = [&](const std::string& state) {
    bench.Measure(state.c_str(), false, reps, samples);
    bench.Measure(state.c_str(), true, reps, samples);
    bench.Reallocate();
    bench.Measure((state + "+new").c_str(), false, reps, samples);
    bench.Measure((state + "+new").c_str(), true, reps, samples);
  };
  measure("plain");
  PARAMS(CUpti_Profiler_Initialize_Params, initialize);
  CUPTI(cuptiProfilerInitialize(&initialize));
  measure("initialized");
  CUpti_SubscriberHandle subscriber = nullptr;
  CUPTI(cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(&Ignore), nullptr));
  measure("subscribed");
  // The driver's entry point through the runtime: linking libcuda would keep the binary from
  // starting at all on a machine without a driver.
  CUcontext context = nullptr;
  void* get_current = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &get_current, 12000, cudaEnableDefault,
                                       &found) != cudaSuccess ||
      get_current == nullptr ||
      reinterpret_cast<CUresult (*)(CUcontext*)>(get_current)(&context) != CUDA_SUCCESS) {
    std::fprintf(stderr, "no current CUDA context (cuCtxGetCurrent)\n");
    return 1;
  }
  PARAMS(CUpti_RangeProfiler_Enable_Params, enable);
  enable.ctx = context;
  CUPTI(cuptiRangeProfilerEnable(&enable));
  measure("enabled");
  OneSession(enable.pRangeProfilerObject, bench);
  measure("after_session");
  OneSession(enable.pRangeProfilerObject, bench);
  bench.Reallocate();
  OneSession(enable.pRangeProfilerObject, bench);
  measure("after_3_sessions");
  PARAMS(CUpti_RangeProfiler_Disable_Params, disable);
  disable.pRangeProfilerObject = enable.pRangeProfilerObject;
  CUPTI(cuptiRangeProfilerDisable(&disable));
  measure("disabled");
  CUPTI(cuptiUnsubscribe(subscriber));
  measure("unsubscribed");
  // Attaching again, as a profiler that detaches between sessions would: each step says so
  // before it is tried, so a crash names it.
  std::printf("probe: subscribe again, launch callbacks on and off\n");
  std::fflush(stdout);
  CUPTI(cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(&Ignore), nullptr));
  CUPTI(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                            CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  bench.Held(false);
  CUPTI(cuptiEnableCallback(0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                            CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  CUPTI(cuptiUnsubscribe(subscriber));
  std::printf("probe: enable again after a disabled session, and a session\n");
  std::fflush(stdout);
  CUPTI(cuptiRangeProfilerEnable(&enable));
  OneSession(enable.pRangeProfilerObject, bench);
  disable.pRangeProfilerObject = enable.pRangeProfilerObject;
  CUPTI(cuptiRangeProfilerDisable(&disable));
  std::printf("probe: subscribe, enable, session with callbacks, disable, unsubscribe, twice\n");
  std::fflush(stdout);
  for (int round = 0; round < 2; ++round) {
    CUPTI(cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(&Ignore), nullptr));
    CUPTI(cuptiRangeProfilerEnable(&enable));
    CUPTI(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                              CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    OneSession(enable.pRangeProfilerObject, bench);
    CUPTI(cuptiEnableCallback(0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                              CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    disable.pRangeProfilerObject = enable.pRangeProfilerObject;
    CUPTI(cuptiRangeProfilerDisable(&disable));
    CUPTI(cuptiUnsubscribe(subscriber));
  }
  std::printf("probes ok\n");
  PARAMS(CUpti_Profiler_DeInitialize_Params, deinitialize);
  CUPTI(cuptiProfilerDeInitialize(&deinitialize));
  measure("plain_again");
  return 0;
}
