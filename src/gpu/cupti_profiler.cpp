// Hardware metrics through the CUPTI Range Profiler: user ranges with user replay. Call sequence
// (measured on an H200, see docs/accuracy.md): initialize -> chip name -> counter availability ->
// host object with metrics -> config image -> per run: enable -> counter data image -> set config
// -> passes of {start, ranges, stop} until all passes are submitted -> decode -> evaluate ->
// disable.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "config/metric_groups.hpp"
#include "gpu/backend.hpp"
#include "gpu/cuda_status.hpp"
#include "gpu/cupti_attach.hpp"
#include "gpu/cupti_status.hpp"
#include "gpu/replay_check.hpp"

namespace gpubench::detail {
namespace {

#define GPUBENCH_CUPTI_PARAMS(type, name) \
  type name;                              \
  std::memset(&name, 0, sizeof(name));    \
  name.structSize = type##_STRUCT_SIZE

// How long a profiler waits for counters that another process's session holds (CUPTI's
// HARDWARE_BUSY); a gpubench session holds them for about 15 ms.
constexpr double kBusyRetrySeconds = 2;

// A tool that injects itself into CUDA (ncu, nsys) sets this; only one CUPTI profiling client
// can run in a process, so gpubench steps aside and leaves its NVTX ranges to that tool.
std::string AttachedToolReason() {
  const char* injection = std::getenv("CUDA_INJECTION64_PATH");
  if (injection == nullptr || *injection == '\0') return "";
  return std::string("another CUDA tool is attached (CUDA_INJECTION64_PATH=") + injection +
         ", e.g. ncu or nsys): gpubench steps aside from CUPTI so that tool can profile; the "
         "NVTX ranges stay";
}

Status InitializeProfilerApi() {
  static const Status status = [] {
    GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params, params);
    return CuptiStatus(cuptiProfilerInitialize(&params), "cuptiProfilerInitialize");
  }();
  return status;
}

Status DeviceChipName(int ordinal, std::string* chip) {
  if (Status status = InitializeProfilerApi(); !status.ok()) return status;
  GPUBENCH_CUPTI_PARAMS(CUpti_Device_GetChipName_Params, params);
  params.deviceIndex = static_cast<size_t>(ordinal);
  if (Status status = CuptiStatus(cuptiDeviceGetChipName(&params), "cuptiDeviceGetChipName");
      !status.ok()) {
    return status;
  }
  *chip = params.pChipName;
  return Status::Ok();
}

Status CurrentContext(CUcontext* context) {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (Status status = CudaStatus(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &function,
                                                                  12000, cudaEnableDefault, &found),
                                 "cudaGetDriverEntryPointByVersion(cuCtxGetCurrent)");
      !status.ok()) {
    return status;
  }
  if (function == nullptr || found != cudaDriverEntryPointSuccess) {
    return Status::Error("the CUDA driver has no cuCtxGetCurrent");
  }
  if (reinterpret_cast<GetCurrent>(function)(context) != CUDA_SUCCESS || *context == nullptr) {
    return Status::Error("no current CUDA context for the profiler");
  }
  return Status::Ok();
}

// The metric host object (no GPU needed: it works from a chip name).
class HostObject {
 public:
  HostObject() = default;
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  ~HostObject() {
    if (object_ == nullptr) return;
    GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params, params);
    params.pHostObject = object_;
    cuptiProfilerHostDeinitialize(&params);
  }

  Status Initialize(const std::string& chip, const std::vector<uint8_t>& availability) {
    GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params, params);
    params.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    params.pChipName = chip.c_str();
    params.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    if (Status status = CuptiStatus(cuptiProfilerHostInitialize(&params),
                                    ("cuptiProfilerHostInitialize(" + chip + ")").c_str());
        !status.ok()) {
      return status;
    }
    object_ = params.pHostObject;
    return Status::Ok();
  }

  CUpti_Profiler_Host_Object* get() const { return object_; }

  std::vector<std::string> BaseMetrics(CUpti_MetricType type) const {
    GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params, params);
    params.pHostObject = object_;
    params.metricType = type;
    std::vector<std::string> names;
    if (cuptiProfilerHostGetBaseMetrics(&params) != CUPTI_SUCCESS) return names;
    for (size_t i = 0; i < params.numMetrics; ++i) names.emplace_back(params.ppMetricNames[i]);
    return names;
  }

  std::vector<std::string> AllBaseMetrics() const {
    std::vector<std::string> all;
    for (auto type :
         {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
      auto names = BaseMetrics(type);
      all.insert(all.end(), names.begin(), names.end());
    }
    return all;
  }

  std::vector<std::string> SubMetrics(const std::string& base, CUpti_MetricType type) const {
    GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetSubMetrics_Params, params);
    params.pHostObject = object_;
    params.metricType = type;
    params.pMetricName = base.c_str();
    std::vector<std::string> names;
    if (cuptiProfilerHostGetSubMetrics(&params) != CUPTI_SUCCESS) return names;
    for (size_t i = 0; i < params.numOfSubmetrics; ++i) names.emplace_back(params.ppSubMetrics[i]);
    return names;
  }

  bool Properties(const std::string& metric, std::string* description, std::string* unit,
                  CUpti_MetricType* type) const {
    GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params, params);
    params.pHostObject = object_;
    params.pMetricName = metric.c_str();
    if (cuptiProfilerHostGetMetricProperties(&params) != CUPTI_SUCCESS) return false;
    *description = params.pDescription != nullptr ? params.pDescription : "";
    std::string hw = params.pHwUnit != nullptr ? params.pHwUnit : "";
    std::string dim = params.pDimUnit != nullptr ? params.pDimUnit : "";
    *unit = dim.empty() ? hw : dim;
    *type = params.metricType;
    return true;
  }

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

std::vector<std::string> RollupsOf(const HostObject& host, const std::string& base) {
  for (auto type :
       {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    auto bases = host.BaseMetrics(type);
    if (std::find(bases.begin(), bases.end(), base) != bases.end()) {
      return host.SubMetrics(base, type);
    }
  }
  return {};
}

// The configuration image of `names` on `host` and the replay passes it needs; CUPTI computes
// both from the chip alone, so this works without a GPU. `host` must be fresh: metrics added to
// a host object accumulate. All metrics go in one call, which lets CUPTI schedule them into the
// fewest passes (adding them one call at a time gave 4 passes instead of 1 on GH100).
Status BuildConfig(const HostObject& host, const std::vector<const char*>& names,
                   std::vector<uint8_t>* config, int* passes) {
  GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
  add.pHostObject = host.get();
  add.ppMetricNames = const_cast<const char**>(names.data());
  add.numMetrics = names.size();
  GPUBENCH_RETURN_IF_ERROR(
      CuptiStatus(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics"));
  GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, size);
  size.pHostObject = host.get();
  GPUBENCH_RETURN_IF_ERROR(CuptiStatus(cuptiProfilerHostGetConfigImageSize(&size),
                                       "cuptiProfilerHostGetConfigImageSize"));
  config->resize(size.configImageSize);
  GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, image);
  image.pHostObject = host.get();
  image.configImageSize = config->size();
  image.pConfigImage = config->data();
  GPUBENCH_RETURN_IF_ERROR(
      CuptiStatus(cuptiProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage"));
  GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, count);
  count.configImageSize = config->size();
  count.pConfigImage = config->data();
  GPUBENCH_RETURN_IF_ERROR(
      CuptiStatus(cuptiProfilerHostGetNumOfPasses(&count), "cuptiProfilerHostGetNumOfPasses"));
  *passes = static_cast<int>(count.numOfPasses);
  return Status::Ok();
}

// Replay passes of `metrics` on `chip`, or the reason CUPTI refused them.
Result<int> CountPasses(const std::string& chip, const std::vector<std::string>& metrics) {
  HostObject host;
  GPUBENCH_RETURN_IF_ERROR(host.Initialize(chip, {}));
  std::vector<const char*> names;
  for (const auto& metric : metrics) names.push_back(metric.c_str());
  std::vector<uint8_t> config;
  int passes = 0;
  GPUBENCH_RETURN_IF_ERROR(BuildConfig(host, names, &config, &passes));
  return passes;
}

std::string Passes(const Result<int>& passes) {
  if (!passes.ok()) return "unavailable: " + passes.status().message();
  return std::to_string(passes.value()) + (passes.value() == 1 ? " pass" : " passes");
}

// The metric groups with their metrics and the replay passes of the defaults with each.
// Returns whether any group matched `filter`.
bool ListGroups(const std::string& chip, const std::string& filter, std::ostream& out) {
  const std::string wanted =
      filter.empty() || filter[0] != kMetricGroupPrefix ? filter : filter.substr(1);
  std::vector<const MetricGroup*> shown;
  for (const MetricGroup& group : MetricGroups()) {
    bool match = wanted.empty() || group.name.find(wanted) != std::string_view::npos;
    for (const auto& metric : group.metrics) match |= metric.find(filter) != std::string::npos;
    if (match) shown.push_back(&group);
  }
  if (shown.empty()) return false;
  out << "# metric groups of chip " << chip
      << ": --gpubench_metrics=+NAME adds a group's metrics to the defaults; name, replay passes "
         "of the defaults with the group (CUPTI's count for the chip, no GPU needed), metrics, "
         "what it reports\n";
  out << "defaults\t" << Passes(CountPasses(chip, DefaultMetrics())) << "\t";
  for (size_t i = 0; i < DefaultMetrics().size(); ++i) {
    out << (i ? "," : "") << DefaultMetrics()[i];
  }
  out << "\tthe default counters\n";
  std::vector<std::string> all = DefaultMetrics();
  for (const MetricGroup* group : shown) {
    std::vector<std::string> metrics = DefaultMetrics();
    metrics.insert(metrics.end(), group->metrics.begin(), group->metrics.end());
    all.insert(all.end(), group->metrics.begin(), group->metrics.end());
    out << kMetricGroupPrefix << group->name << "\t" << Passes(CountPasses(chip, metrics)) << "\t";
    for (size_t i = 0; i < group->metrics.size(); ++i) {
      out << (i ? "," : "") << group->metrics[i];
    }
    out << "\t" << group->meaning << "\n";
  }
  if (shown.size() > 1) {
    out << "all of them\t" << Passes(CountPasses(chip, all)) << "\t\tthe defaults and every "
        << "group above together\n";
  }
  return true;
}

class CuptiRangeProfiler final : public Profiler {
 public:
  ~CuptiRangeProfiler() override {
    AbortSession();
    Disable();
  }

  Status Setup(const Settings& settings, const DeviceFacts& facts) {
    metrics_ = settings.metrics;
    for (const auto& metric : metrics_) metric_names_.push_back(metric.c_str());
    GPUBENCH_RETURN_IF_ERROR(CudaStatus(cudaSetDevice(facts.ordinal), "cudaSetDevice"));
    GPUBENCH_RETURN_IF_ERROR(CudaStatus(cudaFree(nullptr), "cudaFree(0) (context creation)"));
    GPUBENCH_RETURN_IF_ERROR(CurrentContext(&context_));
    GPUBENCH_RETURN_IF_ERROR(InitializeProfilerApi());
    GPUBENCH_RETURN_IF_ERROR(CheckDeviceSupported(facts.ordinal));
    GPUBENCH_RETURN_IF_ERROR(DeviceChipName(facts.ordinal, &chip_));
    // Another gpubench job's session holds the counters for a few milliseconds at a time.
    GPUBENCH_RETURN_IF_ERROR(WhileBusy([this] { return ReadCounterAvailability(); }));
    GPUBENCH_RETURN_IF_ERROR(host_.Initialize(chip_, availability_));
    GPUBENCH_RETURN_IF_ERROR(BuildConfigImage());
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

  // Runs `step` again while CUPTI says the counters are busy (another process's session), for
  // at most kBusyRetrySeconds.
  template <class Step>
  static Status WhileBusy(Step step) {
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

  static Status CheckDeviceSupported(int ordinal) {
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

  // The counter availability image: its size first, then the image.
  Status ReadCounterAvailability() {
    GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, availability);
    availability.ctx = context_;
    GPUBENCH_RETURN_IF_ERROR(CuptiStatus(cuptiProfilerGetCounterAvailability(&availability),
                                         "cuptiProfilerGetCounterAvailability"));
    availability_.resize(availability.counterAvailabilityImageSize);
    availability.pCounterAvailabilityImage = availability_.data();
    return CuptiStatus(cuptiProfilerGetCounterAvailability(&availability),
                       "cuptiProfilerGetCounterAvailability");
  }

  // The configuration image of all metrics and the number of replay passes it needs.
  Status BuildConfigImage() {
    const Status built = BuildConfig(host_, metric_names_, &config_, &passes_);
    // Only when that fails are the metrics checked one by one, to name the unknown one.
    if (!built.ok()) GPUBENCH_RETURN_IF_ERROR(FindUnknownMetric());
    return built;
  }

  // The first metric that a fresh host object refuses, with close matches from the chip.
  Status FindUnknownMetric() const {
    for (const auto& metric : metrics_) {
      HostObject scratch;
      if (Status status = scratch.Initialize(chip_, availability_); !status.ok()) return status;
      GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
      add.pHostObject = scratch.get();
      const char* name = metric.c_str();
      add.ppMetricNames = &name;
      add.numMetrics = 1;
      if (cuptiProfilerHostConfigAddMetrics(&add) != CUPTI_SUCCESS) {
        const std::string base = metric.substr(0, metric.find('.'));
        return Status::Error(
            "unknown metric '" + metric + "' for chip " + chip_ + ": " +
            SuggestMetrics(metric, scratch.AllBaseMetrics(), RollupsOf(scratch, base)) +
            " (list them with --gpubench_list_metrics)");
      }
    }
    return Status::Ok();
  }

  std::map<std::string, std::string> MetricUnits() const override {
    std::map<std::string, std::string> units;
    for (const std::string& metric : metrics_) {
      std::string description, unit;
      CUpti_MetricType type;
      if (host_.Properties(metric, &description, &unit, &type) && !unit.empty()) {
        units[metric] = unit;
      }
    }
    return units;
  }

  std::string Description() const {
    return "on: CUPTI range profiler, user ranges with user replay, chip " + chip_ + ", " +
           std::to_string(metrics_.size()) + " metrics in " + std::to_string(passes_) +
           (passes_ == 1 ? " pass" : " passes") +
           (replay_check_ && replay_check_->available()
                ? ", replay passes checked for identical kernel launches"
                : ", replay passes NOT checked (CUPTI callbacks unavailable)");
  }

  int PassCount() const override { return passes_; }

  Status BeginSession(cudaStream_t, int ranges) override {
    if (object_ == nullptr) {
      if (Status status = WhileBusy([this] { return Enable(); }); !status.ok()) return status;
    }
    if (ranges != counter_data_ranges_) {  // sized for the profiled ranges only, kept between runs
      GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, size);
      size.pRangeProfilerObject = object_;
      size.pMetricNames = metric_names_.data();
      size.numMetrics = metric_names_.size();
      size.maxNumOfRanges = static_cast<size_t>(ranges);
      size.maxNumRangeTreeNodes = static_cast<uint32_t>(ranges);
      if (Status status = CuptiStatus(cuptiRangeProfilerGetCounterDataSize(&size),
                                      "cuptiRangeProfilerGetCounterDataSize");
          !status.ok()) {
        return Abort(status);
      }
      counter_data_.assign(size.counterDataSize, 0);
      counter_data_ranges_ = ranges;
    }
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, init);
    init.pRangeProfilerObject = object_;
    init.counterDataSize = counter_data_.size();
    init.pCounterData = counter_data_.data();
    if (Status status = CuptiStatus(cuptiRangeProfilerCounterDataImageInitialize(&init),
                                    "cuptiRangeProfilerCounterDataImageInitialize");
        !status.ok()) {
      return Abort(status);
    }
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, config);
    config.pRangeProfilerObject = object_;
    config.configSize = config_.size();
    config.pConfig = config_.data();
    config.counterDataImageSize = counter_data_.size();
    config.pCounterDataImage = counter_data_.data();
    config.range = CUPTI_UserRange;
    config.replayMode = CUPTI_UserReplay;
    config.maxRangesPerPass = static_cast<size_t>(ranges);
    config.numNestingLevels = 1;
    config.minNestingLevel = 1;
    config.passIndex = 0;
    config.targetNestingLevel = 1;
    if (Status status =
            CuptiStatus(cuptiRangeProfilerSetConfig(&config), "cuptiRangeProfilerSetConfig");
        !status.ok()) {
      return Abort(status);
    }
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

  Status EndSession(std::vector<std::map<std::string, double>>* ranges) override {
    replay_check_->EndSession();
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, decode);
    decode.pRangeProfilerObject = object_;
    if (Status status =
            CuptiStatus(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
        !status.ok()) {
      return Abort(status);
    }
    if (decode.numOfRangeDropped > 0) {
      return Abort(Status::Error("CUPTI dropped " + std::to_string(decode.numOfRangeDropped) +
                                 " profiled range(s); the counter data image was too small"));
    }
    GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
    info.pCounterDataImage = counter_data_.data();
    info.counterDataImageSize = counter_data_.size();
    if (Status status = CuptiStatus(cuptiRangeProfilerGetCounterDataInfo(&info),
                                    "cuptiRangeProfilerGetCounterDataInfo");
        !status.ok()) {
      return Abort(status);
    }
    std::vector<double> values(metrics_.size());
    for (size_t range = 0; range < info.numTotalRanges; ++range) {
      GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, evaluate);
      evaluate.pHostObject = host_.get();
      evaluate.pCounterDataImage = counter_data_.data();
      evaluate.counterDataImageSize = counter_data_.size();
      evaluate.rangeIndex = range;
      evaluate.ppMetricNames = metric_names_.data();
      evaluate.numMetrics = metric_names_.size();
      evaluate.pMetricValues = values.data();
      if (Status status = CuptiStatus(cuptiProfilerHostEvaluateToGpuValues(&evaluate),
                                      "cuptiProfilerHostEvaluateToGpuValues");
          !status.ok()) {
        return Abort(status);
      }
      std::map<std::string, double> range_values;
      for (size_t m = 0; m < metrics_.size(); ++m) range_values[metrics_[m]] = values[m];
      ranges->push_back(std::move(range_values));
    }
    return Status::Ok();
  }

  // After a failed session the profiler is detached; the next session attaches afresh.
  void AbortSession() override {
    if (replay_check_) replay_check_->EndSession();
    if (started_) {
      GPUBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
      stop.pRangeProfilerObject = object_;
      cuptiRangeProfilerStop(&stop);
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
    cuptiRangeProfilerDisable(&disable);
    object_ = nullptr;
  }

  Status Abort(const Status& status) {
    AbortSession();
    return status;
  }

  std::vector<std::string> metrics_;
  std::vector<const char*> metric_names_;
  CUcontext context_ = nullptr;
  std::string chip_;
  std::vector<uint8_t> availability_;
  HostObject host_;
  std::vector<uint8_t> config_;
  std::vector<uint8_t> counter_data_;
  int counter_data_ranges_ = 0;
  int passes_ = 0;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  bool started_ = false;
  int pass_ = 0;
  std::unique_ptr<ReplayLaunchCheck> replay_check_;  ///< from a successful Setup on
};

const char* MetricTypeName(CUpti_MetricType type) {
  switch (type) {
    case CUPTI_METRIC_TYPE_COUNTER:
      return "counter";
    case CUPTI_METRIC_TYPE_RATIO:
      return "ratio";
    case CUPTI_METRIC_TYPE_THROUGHPUT:
      return "throughput";
    default:
      return "other";
  }
}

std::string SupportedChips() {
  GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params, params);
  std::string out;
  if (cuptiProfilerHostGetSupportedChips(&params) == CUPTI_SUCCESS) {
    for (size_t i = 0; i < params.numChips; ++i)
      out += (i ? ", " : "") + std::string(params.ppChipNames[i]);
  }
  return out;
}

}  // namespace

std::unique_ptr<Profiler> MakeCuptiProfiler(const Settings& settings, const DeviceFacts& facts,
                                            std::string* status) {
  if (std::string tool = AttachedToolReason(); !tool.empty()) {
    *status = "unavailable: " + tool;
    return nullptr;
  }
  auto profiler = std::make_unique<CuptiRangeProfiler>();
  if (Status setup = profiler->Setup(settings, facts); !setup.ok()) {
    *status = "unavailable: " + setup.message();
    return nullptr;
  }
  *status = profiler->Description();
  return profiler;
}

std::string ListMetrics(const std::string& chip_flag, const DeviceFacts& facts,
                        const std::string& filter, std::ostream& out) {
  std::string chip = chip_flag;
  if (chip.empty()) {
    if (!facts.available) {
      return "no GPU to read the chip name from (" + facts.unavailable_reason +
             "); name one with --gpubench_chip=NAME (supported: " + SupportedChips() + ")";
    }
    if (Status status = DeviceChipName(facts.ordinal, &chip); !status.ok()) return status.message();
  }
  HostObject host;
  if (Status status = host.Initialize(chip, {}); !status.ok()) {
    return status.message() + "; supported chips: " + SupportedChips();
  }
  const bool groups_shown = ListGroups(chip, filter, out);
  // "+name" asks for groups only.
  if (!filter.empty() && filter[0] == kMetricGroupPrefix) {
    if (groups_shown) return "";
    return "no metric group contains '" + filter.substr(1) + "'; the groups are " +
           MetricGroupNames();
  }
  out << "# metrics of chip " << chip << (filter.empty() ? "" : " matching '" + filter + "'")
      << ": name, type, unit, description, forms (append one to the name, e.g. .sum)\n";
  size_t shown = 0;
  for (auto type :
       {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    for (const auto& name : host.BaseMetrics(type)) {
      if (!filter.empty() && name.find(filter) == std::string::npos) continue;
      std::string description, unit;
      CUpti_MetricType actual = type;
      host.Properties(name, &description, &unit, &actual);
      out << name << "\t" << MetricTypeName(actual) << "\t" << (unit.empty() ? "-" : unit) << "\t"
          << description << "\t";
      std::string forms;
      for (const auto& rollup : host.SubMetrics(name, type))
        forms += (forms.empty() ? "" : " ") + rollup;
      out << forms << "\n";
      ++shown;
    }
  }
  if (shown == 0 && !groups_shown)
    return "no metric of chip " + chip + " contains '" + filter + "'";
  return "";
}

}  // namespace gpubench::detail
