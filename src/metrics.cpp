#include "metrics.hpp"

#include <algorithm>
#include <set>

#include "gpubench/counters.hpp"

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

}  // namespace

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

std::map<std::string, double> AverageRanges(
    const std::vector<std::map<std::string, double>>& ranges) {
  std::map<std::string, double> sums;
  std::map<std::string, int> counts;
  for (const auto& range : ranges) {
    for (const auto& [name, value] : range) {
      sums[name] += value;
      ++counts[name];
    }
  }
  for (auto& [name, sum] : sums) sum /= counts[name];
  return sums;
}

std::map<std::string, double> DeriveMetricCounters(const std::map<std::string, double>& averaged,
                                                   const DeviceFacts& facts) {
  std::map<std::string, double> counters;
  std::set<std::string> renamed;  // metrics that become a vocabulary counter
  for (const CounterInfo& counter : kCounters) {
    if (counter.source_metric.empty()) continue;
    const std::string metric(counter.source_metric);
    renamed.insert(metric);
    if (auto found = averaged.find(metric); found != averaged.end()) {
      counters[std::string(counter.name)] = found->second * counter.source_scale;
    }
  }
  const bool read = counters.count("dram_read_bytes") > 0;
  const bool write = counters.count("dram_write_bytes") > 0;
  const bool duration = counters.count("gpu_duration") > 0;
  if (read && write) {
    counters["bytes_moved"] = counters["dram_read_bytes"] + counters["dram_write_bytes"];
    if (duration && counters["gpu_duration"] > 0) {
      counters["dram_bandwidth"] = counters["bytes_moved"] / counters["gpu_duration"];
      const double peak = facts.DramBandwidthBytesPerSecond();
      if (peak > 0) counters["dram_bandwidth_pct"] = 100.0 * counters["dram_bandwidth"] / peak;
    }
  }
  for (const auto& [name, value] : averaged) {
    if (renamed.count(name) == 0) counters[name] = value;
  }
  return counters;
}

std::map<std::string, double> ClockCounters(double sm_clock_mhz, const DeviceFacts& facts) {
  std::map<std::string, double> counters;
  counters["sm_clock_mhz"] = sm_clock_mhz;
  counters["sm_clock_rated_mhz"] = facts.sm_clock_rated_mhz;
  counters["sm_clock_throttled"] =
      (facts.sm_clock_rated_mhz > 0 && sm_clock_mhz < kThrottleFraction * facts.sm_clock_rated_mhz)
          ? 1.0
          : 0.0;
  return counters;
}

}  // namespace gpubench::detail
