#include "metric_groups.hpp"

#include <algorithm>

namespace gpubench::detail {
namespace {

std::vector<std::string> FlopsGroupMetrics() {
  std::vector<std::string> metrics;
  for (const FlopMetrics& precision : kFlopMetrics) {
    for (std::string_view metric :
         {precision.add, precision.mul, precision.fma, precision.fma_peak}) {
      metrics.emplace_back(metric);
    }
  }
  metrics.emplace_back(kTensorPipeMetric);
  return metrics;
}

}  // namespace

const std::vector<MetricGroup>& MetricGroups() {
  static const std::vector<MetricGroup> groups = {
      {"flops",
       "FP64/FP32/FP16 FLOP counts from the SASS instruction counters (add + mul + 2 x fma), "
       "FLOP rate, arithmetic intensity, % of the peak FLOP rate at the measured clock, and "
       "tensor-pipe utilisation (tensor-core work has no exact FLOP count)",
       FlopsGroupMetrics()},
      {"l2",
       "L2 hit rate and the bytes the SMs read from and wrote to L2, beside DRAM traffic",
       {std::string(kL2HitRateMetric), std::string(kL2ReadSectorsMetric),
        std::string(kL2WriteSectorsMetric)}},
  };
  return groups;
}

const MetricGroup* FindMetricGroup(std::string_view name) {
  for (const MetricGroup& group : MetricGroups()) {
    if (group.name == name) return &group;
  }
  return nullptr;
}

std::string MetricGroupNames() {
  std::string names;
  for (const MetricGroup& group : MetricGroups()) {
    names +=
        (names.empty() ? "" : ", ") + std::string(1, kMetricGroupPrefix) + std::string(group.name);
  }
  return names;
}

bool GroupActive(const MetricGroup& group, const std::vector<std::string>& metrics) {
  return std::all_of(group.metrics.begin(), group.metrics.end(), [&](const std::string& metric) {
    return std::find(metrics.begin(), metrics.end(), metric) != metrics.end();
  });
}

}  // namespace gpubench::detail
