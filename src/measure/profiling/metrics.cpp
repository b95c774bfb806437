#include "measure/profiling/metrics.hpp"

#include <algorithm>
#include <set>

#include "config/metric_groups.hpp"
#include "schema/counter_sink.hpp"
#include "schema/counter_table.hpp"

namespace gpubench::detail {

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

namespace {

double ValueOr(const std::map<std::string, double>& values, std::string_view name, double missing) {
  auto found = values.find(std::string(name));
  return found == values.end() ? missing : found->second;
}

// The groups whose every metric was collected (the ranges carry all configured metrics), those
// left out of the averages included.
std::set<std::string_view> ActiveGroups(const std::map<std::string, double>& averaged,
                                        const std::set<std::string>& left_out) {
  std::vector<std::string> names(left_out.begin(), left_out.end());
  for (const auto& entry : averaged) names.push_back(entry.first);
  std::set<std::string_view> active;
  for (const MetricGroup& group : MetricGroups()) {
    if (GroupActive(group, names)) active.insert(group.name);
  }
  return active;
}

}  // namespace

void AddFlopCounters(const std::map<std::string, double>& averaged,
                     std::map<std::string, double>* counters) {
  CounterSink<Writer::kCallEnd> out(*counters);
  const double clock_hz = ValueOr(averaged, "sm__cycles_elapsed.avg.per_second", 0);
  double total = 0;
  double seconds_at_peak = 0;  // how long the FP units would take for this work at their peak
  double fp32_peak = 0;
  for (const FlopMetrics& precision : kFlopMetrics) {
    const double flop = ValueOr(averaged, precision.add, 0) + ValueOr(averaged, precision.mul, 0) +
                        2 * ValueOr(averaged, precision.fma, 0);
    out.SetFromTable(precision.counter, flop);
    total += flop;
    // An FMA is 2 FLOP per cycle and lane; adds and multiplies issue at the same rate on the same
    // pipe but do 1, so only FMA-only code can reach the peak (as in Nsight Compute's roofline).
    const double peak = 2 * ValueOr(averaged, precision.fma_peak, 0) * clock_hz;
    if (peak > 0) seconds_at_peak += flop / peak;
    if (precision.precision == "fp32") fp32_peak = peak;
  }
  out.Set<counter::kFlopCount>(total);
  // The peak of this mix: each precision's FLOPs against its own peak. For one precision it is
  // that precision's peak; without FP work, FP32's (the usual roof).
  const double peak = total > 0 && seconds_at_peak > 0 ? total / seconds_at_peak : fp32_peak;
  if (peak > 0) out.Set<counter::kFlopRatePeak>(peak);
  const double duration = ValueOr(*counters, counter::kGpuDuration, 0);
  if (duration > 0) {
    out.Set<counter::kFlopRate>(total / duration);
    if (peak > 0) out.Set<counter::kFlopRatePct>(100.0 * (total / duration) / peak);
  }
  const double bytes = ValueOr(*counters, counter::kBytesMoved, 0);
  if (bytes > 0) out.Set<counter::kArithmeticIntensity>(total / bytes);
}

std::map<std::string, double> DeriveMetricCounters(const std::map<std::string, double>& averaged,
                                                   const DeviceFacts& facts,
                                                   const std::set<std::string>& left_out) {
  std::map<std::string, double> counters;
  CounterSink<Writer::kCallEnd> out(counters);
  const std::set<std::string_view> active = ActiveGroups(averaged, left_out);
  std::set<std::string> renamed;  // metrics that become a vocabulary counter or a group's input
  for (const MetricGroup& group : MetricGroups()) {
    if (active.count(group.name) > 0) renamed.insert(group.metrics.begin(), group.metrics.end());
  }
  for (const CounterInfo& counter : kCounters) {
    if (counter.source_metric.empty()) continue;
    // A metric named on its own keeps its name; only a whole group turns it into a counter.
    if (!counter.group.empty() && active.count(counter.group) == 0) continue;
    const std::string metric(counter.source_metric);
    renamed.insert(metric);
    if (auto found = averaged.find(metric); found != averaged.end()) {
      out.SetFromTable(counter.name, found->second * counter.source_scale);
    }
  }
  const bool read = counters.count(counter::kDramReadBytes) > 0;
  const bool write = counters.count(counter::kDramWriteBytes) > 0;
  const bool duration = counters.count(counter::kGpuDuration) > 0;
  if (read && write) {
    out.Set<counter::kBytesMoved>(counters.at(counter::kDramReadBytes) +
                                  counters.at(counter::kDramWriteBytes));
    if (duration && counters.at(counter::kGpuDuration) > 0) {
      out.Set<counter::kDramBandwidth>(counters.at(counter::kBytesMoved) /
                                       counters.at(counter::kGpuDuration));
      const double peak = facts.DramBandwidthBytesPerSecond();
      if (peak > 0) {
        out.Set<counter::kDramBandwidthPct>(100.0 * counters.at(counter::kDramBandwidth) / peak);
      }
    }
  }
  if (active.count("flops") > 0) AddFlopCounters(averaged, &counters);
  for (const auto& [name, value] : averaged) {
    if (renamed.count(name) == 0) out.SetMetric(name, value);
  }
  return counters;
}

std::map<std::string, double> ClockCounters(double sm_clock_mhz, const DeviceFacts& facts) {
  std::map<std::string, double> counters;
  CounterSink<Writer::kCallEnd> out(counters);
  out.Set<counter::kSmClockMhz>(sm_clock_mhz);
  out.Set<counter::kSmClockRatedMhz>(facts.sm_clock_rated_mhz);
  out.Set<counter::kSmClockThrottled>(
      (facts.sm_clock_rated_mhz > 0 && sm_clock_mhz < kThrottleFraction * facts.sm_clock_rated_mhz)
          ? 1.0
          : 0.0);
  return counters;
}

}  // namespace gpubench::detail
