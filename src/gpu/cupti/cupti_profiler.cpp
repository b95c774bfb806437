// Hardware metrics through the CUPTI Range Profiler: user ranges with user replay. Call sequence
// (measured on an H200, see docs/accuracy.md): initialize -> chip name -> counter availability ->
// host object with metrics -> config image -> per run: enable -> counter data image -> set config
// -> passes of {start, ranges, stop} until all passes are submitted -> decode -> evaluate ->
// disable. This file is the device side: the setup on the device and the session, pass and range
// state machine; the host object, config image and evaluation are cupti_metric_config.cpp.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpu/backend.hpp"
#include "gpu/cuda/cuda_status.hpp"
#include "gpu/cuda/driver_entry.hpp"
#include "gpu/cupti/cupti_attach.hpp"
#include "gpu/cupti/cupti_metric_config.hpp"
#include "gpu/cupti/cupti_params.hpp"
#include "gpu/cupti/cupti_status.hpp"
#include "gpu/cupti/replay_check.hpp"

namespace gpubench::detail {
namespace {

// How long a profiler waits for counters that another process's session holds (CUPTI's
// HARDWARE_BUSY); a gpubench session holds them for about 15 ms.
constexpr double kBusyRetrySeconds = 2;

Status CurrentContext(CUcontext* context) {
  using GetCurrent = CUresult (*)(CUcontext*);
  const auto get_current = DriverFunction<GetCurrent>("cuCtxGetCurrent");
  if (get_current == nullptr) return Status::Error("the CUDA driver has no cuCtxGetCurrent");
  if (get_current(context) != CUDA_SUCCESS || *context == nullptr) {
    return Status::Error("no current CUDA context for the profiler");
  }
  return Status::Ok();
}

// Runs `step` again while CUPTI says the counters are busy (another process's session), for
// at most kBusyRetrySeconds.
template <class Step>
Status WhileBusy(Step step) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    Status status = step();
    const bool busy = !status.ok() && status.message().find("HARDWARE_BUSY") != std::string::npos;
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!busy || waited >= kBusyRetrySeconds) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Status CheckDeviceSupported(int ordinal) {
  GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params, supported);
  supported.cuDevice = ordinal;
  supported.api = CUPTI_PROFILER_RANGE_PROFILING;
  GPUBENCH_RETURN_IF_ERROR(
      CuptiStatus(cuptiProfilerDeviceSupported(&supported), "cuptiProfilerDeviceSupported"));
  if (supported.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return Status::Ok();
  std::string why;
  if (supported.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " architecture";
  if (supported.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " vGPU";
  if (supported.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " SLI";
  if (supported.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    why += " confidential-computing";
  }
  if (supported.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " CMP";
  if (supported.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " WSL";
  return Status::Error("the CUPTI range profiler does not support this device (not supported:" +
                       why + "; MIG instances are reported as unsupported too)");
}

// The counter availability image of `context`: its size first, then the image.
Status ReadCounterAvailability(CUcontext context, std::vector<uint8_t>* image) {
  GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, availability);
  availability.ctx = context;
  GPUBENCH_RETURN_IF_ERROR(CuptiStatus(cuptiProfilerGetCounterAvailability(&availability),
                                       "cuptiProfilerGetCounterAvailability"));
  image->resize(availability.counterAvailabilityImageSize);
  availability.pCounterAvailabilityImage = image->data();
  return CuptiStatus(cuptiProfilerGetCounterAvailability(&availability),
                     "cuptiProfilerGetCounterAvailability");
}

// CUPTI's profiler interface and the chip's name, started on a thread (PrepareCuptiProfiler, or
// Setup where nothing was prepared). The future is read once, by the one Setup of the process.
struct ProfilerApiStart {
  int ordinal = -1;
  std::string chip;
  std::future<Status> done;
};

ProfilerApiStart& PreparedStart() {
  static ProfilerApiStart start;
  return start;
}

void StartProfilerApi(int ordinal, ProfilerApiStart* start) {
  start->ordinal = ordinal;
  start->done = std::async(std::launch::async, [ordinal, chip = &start->chip] {
    GPUBENCH_RETURN_IF_ERROR(InitializeProfilerApi());
    return DeviceChipName(ordinal, chip);
  });
}

class CuptiRangeProfiler final : public Profiler {
 public:
  ~CuptiRangeProfiler() override {
    AbortSession();
    Disable();
  }

  Status Setup(const Settings& settings, const DeviceFacts& facts) {
    // CUPTI's profiler interface and the chip's name need no context: they are set up on a
    // thread of their own while the context is made (each about 0.1-0.2 s on an H200, both on
    // the profiling child's way to its first session), started before it where prepared.
    ProfilerApiStart& start = PreparedStart();
    if (!start.done.valid() || start.ordinal != facts.ordinal) {
      if (start.done.valid()) start.done.wait();
      StartProfilerApi(facts.ordinal, &start);
    }
    Status context = CudaStatus(cudaSetDevice(facts.ordinal), "cudaSetDevice");
    if (context.ok()) context = CudaStatus(cudaFree(nullptr), "cudaFree(0) (context creation)");
    if (context.ok()) context = CurrentContext(&context_);
    const Status api = start.done.get();
    std::string chip = start.chip;
    GPUBENCH_RETURN_IF_ERROR(context);
    GPUBENCH_RETURN_IF_ERROR(api);
    // Asked before the context exists, CUPTI can answer "Unknown" (seen on an H100 in a suite
    // that links cuBLAS); with the context made, it knows the chip.
    if (chip.empty() || chip == "Unknown")
      GPUBENCH_RETURN_IF_ERROR(DeviceChipName(facts.ordinal, &chip));
    GPUBENCH_RETURN_IF_ERROR(CheckDeviceSupported(facts.ordinal));
    // Another gpubench job's session holds the counters for a few milliseconds at a time.
    std::vector<uint8_t> availability;
    GPUBENCH_RETURN_IF_ERROR(
        WhileBusy([&] { return ReadCounterAvailability(context_, &availability); }));
    GPUBENCH_RETURN_IF_ERROR(metrics_.Build(chip, std::move(availability), settings.metrics));
    // Attached once and kept: enabling costs tens of milliseconds, too much for every run.
    // Privilege problems show up here, at start, not in every run.
    GPUBENCH_RETURN_IF_ERROR(WhileBusy([this] { return Enable(); }));
    // CUPTI's profiler cannot attach again to this context once CUPTI was detached
    // (cuptiProfilerInitialize then fails with CUPTI_ERROR_NOT_INITIALIZED on an H200), so
    // CUPTI stays attached from here to the exit (docs/accuracy.md "Metrics on and off"). Before
    // the replay check: its first use of CUPTI's subscriber may detach what nothing keeps.
    CuptiAttachment::KeepAttached();
    // Without callbacks the replay check is skipped, not the metrics.
    replay_check_ = std::make_unique<ReplayLaunchCheck>();
    return Status::Ok();
  }

  std::map<std::string, std::string> MetricUnits() const override { return metrics_.Units(); }

  std::string Description() const {
    const int passes = metrics_.passes();
    return "on: CUPTI range profiler, user ranges with user replay, chip " + metrics_.chip() +
           ", " + std::to_string(metrics_.names().size()) + " metrics in " +
           std::to_string(passes) + (passes == 1 ? " pass" : " passes") +
           (replay_check_ && replay_check_->available()
                ? ", replay passes checked for identical kernel launches"
                : ", replay passes NOT checked (CUPTI callbacks unavailable)");
  }

  int PassCount() const override { return metrics_.passes(); }

  Status BeginSession(cudaStream_t, int ranges) override {
    if (object_ == nullptr) {
      if (Status status = WhileBusy([this] { return Enable(); }); !status.ok()) return status;
    }
    if (Status status = PrepareCounterData(ranges); !status.ok()) return Abort(status);
    if (Status status = SetConfig(ranges); !status.ok()) return Abort(status);
    pass_ = 0;
    replay_check_->BeginSession();
    return Status::Ok();
  }

  Status BeginPass() override {
    // Another process's session makes Start fail with HARDWARE_BUSY for its ~15 ms: two
    // gpubench jobs on one GPU take turns instead of one losing its metrics.
    if (Status status = WhileBusy([this] {
          GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, start);
          start.pRangeProfilerObject = object_;
          return CuptiStatus(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
        });
        !status.ok()) {
      return status;
    }
    started_ = true;
    replay_check_->BeginPass(pass_);
    return Status::Ok();
  }

  Status PushRange(const std::string& name) override {
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params, push);
    push.pRangeProfilerObject = object_;
    push.pRangeName = name.c_str();
    replay_check_->BeginRange();
    return CuptiStatus(cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange");
  }

  Status PopRange() override {
    replay_check_->EndRange();
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params, pop);
    pop.pRangeProfilerObject = object_;
    return CuptiStatus(cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange");
  }

  Status EndPass(bool* done) override {
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
    stop.pRangeProfilerObject = object_;
    Status status = CuptiStatus(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
    started_ = false;
    if (!status.ok()) return status;
    *done = stop.isAllPassSubmitted != 0;
    if (Status same = replay_check_->CheckPass(pass_); !same.ok()) return same;
    ++pass_;
    return Status::Ok();
  }

  Status EndSession(std::vector<ProfiledRange>* ranges) override {
    replay_check_->EndSession();
    size_t range_count = 0;
    if (Status status = DecodeCounterData(&range_count); !status.ok()) return Abort(status);
    std::vector<std::map<std::string, double>> values;
    if (Status status = metrics_.Evaluate(counter_data_, range_count, &values); !status.ok()) {
      return Abort(status);
    }
    const std::vector<std::string> names = RangeNames(values.size());
    for (size_t range = 0; range < values.size(); ++range) {
      ranges->push_back({names[range], std::move(values[range])});
    }
    return Status::Ok();
  }

  // After a failed session the profiler is detached; the next session attaches afresh.
  void AbortSession() override {
    if (replay_check_) replay_check_->EndSession();
    if (started_) {
      GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
      stop.pRangeProfilerObject = object_;
      // Ignored: an aborted session reports the error that ended it, and a stop that fails
      // leaves nothing to undo (Disable below frees the object either way).
      (void)cuptiRangeProfilerStop(&stop);
      started_ = false;
      Disable();
    }
  }

 private:
  Status Enable() {
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, enable);
    enable.ctx = context_;
    if (Status status = CuptiStatus(cuptiRangeProfilerEnable(&enable), "cuptiRangeProfilerEnable");
        !status.ok()) {
      return status;
    }
    object_ = enable.pRangeProfilerObject;
    return Status::Ok();
  }

  void Disable() {
    if (object_ == nullptr) return;
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params, disable);
    disable.pRangeProfilerObject = object_;
    // Ignored: it runs on every path out of a session, errors included, and a disable that fails
    // has no remedy here; the next session enables afresh and reports its own failure.
    (void)cuptiRangeProfilerDisable(&disable);
    object_ = nullptr;
  }

  Status Abort(const Status& status) {
    AbortSession();
    return status;
  }

  // The counter data image, initialized for a session of `ranges` ranges. It is sized for the
  // profiled ranges only and kept between runs of the same count.
  Status PrepareCounterData(int ranges) {
    if (ranges != counter_data_ranges_) {
      GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, size);
      size.pRangeProfilerObject = object_;
      size.pMetricNames = metrics_.c_names();
      size.numMetrics = metrics_.names().size();
      size.maxNumOfRanges = static_cast<size_t>(ranges);
      size.maxNumRangeTreeNodes = static_cast<uint32_t>(ranges);
      GPUBENCH_RETURN_IF_ERROR(CuptiStatus(cuptiRangeProfilerGetCounterDataSize(&size),
                                           "cuptiRangeProfilerGetCounterDataSize"));
      counter_data_.assign(size.counterDataSize, 0);
      counter_data_ranges_ = ranges;
    }
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, init);
    init.pRangeProfilerObject = object_;
    init.counterDataSize = counter_data_.size();
    init.pCounterData = counter_data_.data();
    return CuptiStatus(cuptiRangeProfilerCounterDataImageInitialize(&init),
                       "cuptiRangeProfilerCounterDataImageInitialize");
  }

  // User ranges with user replay, one nesting level, up to `ranges` ranges a pass.
  Status SetConfig(int ranges) {
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, config);
    config.pRangeProfilerObject = object_;
    config.configSize = metrics_.image().size();
    config.pConfig = metrics_.image().data();
    config.counterDataImageSize = counter_data_.size();
    config.pCounterDataImage = counter_data_.data();
    config.range = CUPTI_UserRange;
    config.replayMode = CUPTI_UserReplay;
    config.maxRangesPerPass = static_cast<size_t>(ranges);
    config.numNestingLevels = 1;
    config.minNestingLevel = 1;
    config.passIndex = 0;
    config.targetNestingLevel = 1;
    return CuptiStatus(cuptiRangeProfilerSetConfig(&config), "cuptiRangeProfilerSetConfig");
  }

  // Decodes the passes' counters into the counter data image; *range_count: the ranges in it.
  Status DecodeCounterData(size_t* range_count) {
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, decode);
    decode.pRangeProfilerObject = object_;
    GPUBENCH_RETURN_IF_ERROR(
        CuptiStatus(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData"));
    if (decode.numOfRangeDropped > 0) {
      return Status::Error("CUPTI dropped " + std::to_string(decode.numOfRangeDropped) +
                           " profiled range(s); the counter data image was too small");
    }
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
    info.pCounterDataImage = counter_data_.data();
    info.counterDataImageSize = counter_data_.size();
    GPUBENCH_RETURN_IF_ERROR(CuptiStatus(cuptiRangeProfilerGetCounterDataInfo(&info),
                                         "cuptiRangeProfilerGetCounterDataInfo"));
    *range_count = info.numTotalRanges;
    return Status::Ok();
  }

  // The name each decoded range was pushed under, so that the caller can tell which profiled
  // iteration it belongs to whatever CUPTI left out; all "" when CUPTI cannot say for one (the
  // caller then relies on the ranges' order).
  std::vector<std::string> RangeNames(size_t count) const {
    std::vector<std::string> names(count);
    for (size_t range = 0; range < count; ++range) {
      GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params, info);
      info.pCounterDataImage = counter_data_.data();
      info.counterDataImageSize = counter_data_.size();
      info.rangeIndex = range;
      info.rangeDelimiter = "/";
      if (cuptiRangeProfilerCounterDataGetRangeInfo(&info) != CUPTI_SUCCESS ||
          info.rangeName == nullptr) {
        return std::vector<std::string>(count);
      }
      names[range] = info.rangeName;
    }
    return names;
  }

  CUcontext context_ = nullptr;
  CuptiMetricConfig metrics_;
  std::vector<uint8_t> counter_data_;
  int counter_data_ranges_ = 0;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  bool started_ = false;
  int pass_ = 0;
  std::unique_ptr<ReplayLaunchCheck> replay_check_;  ///< from a successful Setup on
};

}  // namespace

void PrepareCuptiProfiler(int ordinal) {
  ProfilerApiStart& start = PreparedStart();
  if (!start.done.valid()) StartProfilerApi(ordinal, &start);
}

std::unique_ptr<Profiler> MakeCuptiProfiler(const Settings& settings, const DeviceFacts& facts,
                                            std::string* status) {
  auto profiler = std::make_unique<CuptiRangeProfiler>();
  if (Status setup = profiler->Setup(settings, facts); !setup.ok()) {
    *status = "unavailable: " + setup.message();
    return nullptr;
  }
  *status = profiler->Description();
  return profiler;
}

}  // namespace gpubench::detail
