#include "config/metric_groups.hpp"

#include <algorithm>

namespace gpubench::detail {
namespace {

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

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

std::string SuggestMetrics(const std::string& wanted, const std::vector<std::string>& base_metrics,
                           const std::vector<std::string>& rollups_of_base) {
  const std::string base = wanted.substr(0, wanted.find('.'));
  const bool base_known =
      std::find(base_metrics.begin(), base_metrics.end(), base) != base_metrics.end();
  std::string out;
  if (base_known) {
    out = "'" + base + "' exists; its forms are:";
    for (const auto& rollup : rollups_of_base) {
      out += " " + base + (rollup.rfind(".", 0) == 0 ? "" : ".") + rollup;
    }
    return out;
  }
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& name : base_metrics) scored.emplace_back(EditDistance(base, name), name);
  std::sort(scored.begin(), scored.end());
  scored.erase(std::unique(scored.begin(), scored.end()), scored.end());
  const std::string suffix = wanted.size() > base.size() ? wanted.substr(base.size()) : "";
  for (size_t i = 0; i < scored.size() && i < 3; ++i) {
    out += (out.empty() ? "did you mean: " : ", ") + scored[i].second + suffix;
  }
  return out;
}

}  // namespace gpubench::detail
