// The host side of CUPTI's profiler, which works from a chip name alone, without a GPU: the
// metric host object, the configuration image of a set of metrics with the replay passes it
// needs, the metrics' units, and the evaluation of a counter data image into metric values.
// Apart from the range profiler's session (cupti_profiler.cpp) because the metric listing
// (cupti_metric_list.cpp) uses it too, with or without a device.
#pragma once

#include <cupti_profiler_host.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace gpubench::detail {

/// cuptiProfilerInitialize, once per process (its result is kept).
Status InitializeProfilerApi();
/// CUPTI's chip name of the device `ordinal` ("GH100").
Status DeviceChipName(int ordinal, std::string* chip);
/// The chips CUPTI's host side knows, comma-separated ("" when CUPTI cannot say).
std::string SupportedChips();
/// "counter", "ratio", "throughput" or "other".
const char* MetricTypeName(CUpti_MetricType type);

/// The metric host object of one chip.
class CuptiHostObject {
 public:
  CuptiHostObject() = default;
  CuptiHostObject(const CuptiHostObject&) = delete;
  CuptiHostObject& operator=(const CuptiHostObject&) = delete;
  ~CuptiHostObject();

  /// `availability`: the device's counter availability image, or empty without a device.
  Status Initialize(const std::string& chip, const std::vector<uint8_t>& availability);
  CUpti_Profiler_Host_Object* get() const { return object_; }

  std::vector<std::string> BaseMetrics(CUpti_MetricType type) const;
  /// The base metrics of every type (counter, ratio, throughput).
  std::vector<std::string> AllBaseMetrics() const;
  /// The rollups and other forms of `base` (".sum", ".avg.per_second", ...).
  std::vector<std::string> SubMetrics(const std::string& base, CUpti_MetricType type) const;
  /// False when CUPTI does not know `metric`.
  bool Properties(const std::string& metric, std::string* description, std::string* unit,
                  CUpti_MetricType* type) const;

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

/// Replay passes of `metrics` on `chip`, or the reason CUPTI refused them.
Result<int> CountPasses(const std::string& chip, const std::vector<std::string>& metrics);

/// The metrics one range profiler collects on its chip: the host object that knows them, the
/// configuration image the profiler is set up with and the replay passes it needs. Neither
/// copied nor moved: c_names() points into names().
class CuptiMetricConfig {
 public:
  /// Builds the configuration image of `metrics` for `chip`; `availability`: the device's
  /// counter availability image. When CUPTI refuses the set, the error names the first unknown
  /// metric with close matches from the chip.
  Status Build(const std::string& chip, std::vector<uint8_t> availability,
               std::vector<std::string> metrics);

  const std::string& chip() const { return chip_; }
  const std::vector<std::string>& names() const { return names_; }
  /// names() as CUPTI takes them.
  const char** c_names() { return c_names_.data(); }
  const std::vector<uint8_t>& image() const { return image_; }
  int passes() const { return passes_; }
  /// CUPTI's unit of each metric, where it names one.
  std::map<std::string, std::string> Units() const;

  /// Appends the metric values of each of the first `range_count` ranges of a decoded counter
  /// data image to *ranges, in range order.
  Status Evaluate(const std::vector<uint8_t>& counter_data, size_t range_count,
                  std::vector<std::map<std::string, double>>* ranges);

 private:
  Status FindUnknownMetric() const;

  std::string chip_;
  std::vector<uint8_t> availability_;
  std::vector<std::string> names_;
  std::vector<const char*> c_names_;
  CuptiHostObject host_;
  std::vector<uint8_t> image_;
  int passes_ = 0;
};

}  // namespace gpubench::detail
