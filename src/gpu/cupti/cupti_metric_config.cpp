#include "gpu/cupti/cupti_metric_config.hpp"

#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <algorithm>
#include <utility>

#include "config/metric_groups.hpp"
#include "gpu/cupti/cupti_params.hpp"
#include "gpu/cupti/cupti_status.hpp"

namespace gpubench::detail {
namespace {

constexpr CUpti_MetricType kMetricTypes[] = {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO,
                                             CUPTI_METRIC_TYPE_THROUGHPUT};

std::vector<std::string> RollupsOf(const CuptiHostObject& host, const std::string& base) {
  for (auto type : kMetricTypes) {
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
Status BuildConfig(const CuptiHostObject& host, const std::vector<const char*>& names,
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

}  // namespace

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

std::string SupportedChips() {
  GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params, params);
  std::string out;
  if (cuptiProfilerHostGetSupportedChips(&params) == CUPTI_SUCCESS) {
    for (size_t i = 0; i < params.numChips; ++i)
      out += (i ? ", " : "") + std::string(params.ppChipNames[i]);
  }
  return out;
}

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

CuptiHostObject::~CuptiHostObject() {
  if (object_ == nullptr) return;
  GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params, params);
  params.pHostObject = object_;
  cuptiProfilerHostDeinitialize(&params);
}

Status CuptiHostObject::Initialize(const std::string& chip,
                                   const std::vector<uint8_t>& availability) {
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

std::vector<std::string> CuptiHostObject::BaseMetrics(CUpti_MetricType type) const {
  GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params, params);
  params.pHostObject = object_;
  params.metricType = type;
  std::vector<std::string> names;
  if (cuptiProfilerHostGetBaseMetrics(&params) != CUPTI_SUCCESS) return names;
  for (size_t i = 0; i < params.numMetrics; ++i) names.emplace_back(params.ppMetricNames[i]);
  return names;
}

std::vector<std::string> CuptiHostObject::AllBaseMetrics() const {
  std::vector<std::string> all;
  for (auto type : kMetricTypes) {
    auto names = BaseMetrics(type);
    all.insert(all.end(), names.begin(), names.end());
  }
  return all;
}

std::vector<std::string> CuptiHostObject::SubMetrics(const std::string& base,
                                                     CUpti_MetricType type) const {
  GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetSubMetrics_Params, params);
  params.pHostObject = object_;
  params.metricType = type;
  params.pMetricName = base.c_str();
  std::vector<std::string> names;
  if (cuptiProfilerHostGetSubMetrics(&params) != CUPTI_SUCCESS) return names;
  for (size_t i = 0; i < params.numOfSubmetrics; ++i) names.emplace_back(params.ppSubMetrics[i]);
  return names;
}

bool CuptiHostObject::Properties(const std::string& metric, std::string* description,
                                 std::string* unit, CUpti_MetricType* type) const {
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

Result<int> CountPasses(const std::string& chip, const std::vector<std::string>& metrics) {
  CuptiHostObject host;
  GPUBENCH_RETURN_IF_ERROR(host.Initialize(chip, {}));
  std::vector<const char*> names;
  for (const auto& metric : metrics) names.push_back(metric.c_str());
  std::vector<uint8_t> config;
  int passes = 0;
  GPUBENCH_RETURN_IF_ERROR(BuildConfig(host, names, &config, &passes));
  return passes;
}

Status CuptiMetricConfig::Build(const std::string& chip, std::vector<uint8_t> availability,
                                std::vector<std::string> metrics) {
  chip_ = chip;
  availability_ = std::move(availability);
  names_ = std::move(metrics);
  for (const auto& metric : names_) c_names_.push_back(metric.c_str());
  GPUBENCH_RETURN_IF_ERROR(host_.Initialize(chip_, availability_));
  const Status built = BuildConfig(host_, c_names_, &image_, &passes_);
  // Only when that fails are the metrics checked one by one, to name the unknown one.
  if (!built.ok()) GPUBENCH_RETURN_IF_ERROR(FindUnknownMetric());
  return built;
}

// The first metric that a fresh host object refuses, with close matches from the chip.
Status CuptiMetricConfig::FindUnknownMetric() const {
  for (const auto& metric : names_) {
    CuptiHostObject scratch;
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

std::map<std::string, std::string> CuptiMetricConfig::Units() const {
  std::map<std::string, std::string> units;
  for (const std::string& metric : names_) {
    std::string description, unit;
    CUpti_MetricType type;
    if (host_.Properties(metric, &description, &unit, &type) && !unit.empty()) {
      units[metric] = unit;
    }
  }
  return units;
}

Status CuptiMetricConfig::Evaluate(const std::vector<uint8_t>& counter_data, size_t range_count,
                                   std::vector<std::map<std::string, double>>* ranges) {
  std::vector<double> values(names_.size());
  for (size_t range = 0; range < range_count; ++range) {
    GPUBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, evaluate);
    evaluate.pHostObject = host_.get();
    evaluate.pCounterDataImage = counter_data.data();
    evaluate.counterDataImageSize = counter_data.size();
    evaluate.rangeIndex = range;
    evaluate.ppMetricNames = c_names_.data();
    evaluate.numMetrics = c_names_.size();
    evaluate.pMetricValues = values.data();
    GPUBENCH_RETURN_IF_ERROR(CuptiStatus(cuptiProfilerHostEvaluateToGpuValues(&evaluate),
                                         "cuptiProfilerHostEvaluateToGpuValues"));
    std::map<std::string, double> range_values;
    for (size_t m = 0; m < names_.size(); ++m) range_values[names_[m]] = values[m];
    ranges->push_back(std::move(range_values));
  }
  return Status::Ok();
}

}  // namespace gpubench::detail
