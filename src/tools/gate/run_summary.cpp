#include "tools/gate/run_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <utility>

#include "gpubench/counters.hpp"
#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/gate/gate_tuning.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {
namespace {}  // namespace
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string Quoted(const std::optional<std::string>& value) {
  return value ? "\"" + *value + "\"" : std::string("absent");
}

}  // namespace

std::string DescribeSettingsMismatch(const SettingsCheck& check, const std::string& first_path,
                                     const std::string& second_path) {
  std::string text = "the gpubench settings fingerprints differ (" +
                     check.baseline_fingerprint.value_or("none") + " in " + first_path + ", " +
                     check.contender_fingerprint.value_or("none") + " in " + second_path + ")";
  for (const ValueDifference& difference : check.differences) {
    text += "\n  " + difference.key + ": " + Quoted(difference.baseline) + " in " + first_path +
            ", " + Quoted(difference.contender) + " in " + second_path;
  }
  for (const std::string& note : check.notes) text += "\n  note: " + note;
  return text;
}

detail::Result<BenchmarkFile> LoadRun(const std::vector<std::string>& paths) {
  using detail::Result;
  using detail::Status;
  if (paths.empty()) return Status::InvalidInput("no input file given");
  Result<BenchmarkFile> first = LoadBenchmarkFile(paths.front());
  if (!first.ok()) return first.status();
  BenchmarkFile merged = std::move(first).value();
  for (std::size_t i = 1; i < paths.size(); ++i) {
    Result<BenchmarkFile> loaded = LoadBenchmarkFile(paths[i]);
    if (!loaded.ok()) return loaded.status();
    BenchmarkFile& next = loaded.value();
    const SettingsCheck check = CheckSettings(merged, next);
    if (check.mismatch) {
      return Status::SettingsMismatch(DescribeSettingsMismatch(check, paths.front(), paths[i]));
    }
    // A comparison may set a plain GB run beside a gpubench one; shards of one run may not: the
    // merged run would carry the first file's settings and GPU for the other's rows.
    const std::string* first_print = merged.ContextValue(context_key::kSettingsFingerprint);
    const std::string* next_print = next.ContextValue(context_key::kSettingsFingerprint);
    if ((first_print == nullptr) != (next_print == nullptr)) {
      const std::string& by_gpubench = first_print ? paths.front() : paths[i];
      const std::string& plain = first_print ? paths[i] : paths.front();
      return Status::SettingsMismatch(
          by_gpubench + " was written by gpubench (settings fingerprint " +
          *(first_print ? first_print : next_print) + ") and " + plain + " was not (no " +
          context_key::kSettingsFingerprint + "): files given together must be shards of one run");
    }
    // The shard's aggregate rows name their metrics by index into its own table.
    std::vector<std::uint32_t> remap;
    for (const std::string& metric : next.aggregate_metrics) {
      const auto at =
          std::find(merged.aggregate_metrics.begin(), merged.aggregate_metrics.end(), metric);
      remap.push_back(static_cast<std::uint32_t>(at - merged.aggregate_metrics.begin()));
      if (at == merged.aggregate_metrics.end()) merged.aggregate_metrics.push_back(metric);
    }
    for (BenchmarkRecord& record : next.benchmarks) {
      for (AggregateRow& aggregate : record.aggregates) {
        for (auto& value : aggregate.values) value.first = remap[value.first];
      }
      if (merged.index_by_name.count(record.name) != 0) {
        return Status::InvalidInput(paths[i] + ": benchmark \"" + record.name +
                                    "\" is also in an earlier input file; files given together "
                                    "must hold different benchmarks of one run");
      }
      merged.index_by_name.emplace(record.name, merged.benchmarks.size());
      merged.benchmarks.push_back(std::move(record));
    }
    merged.warnings.insert(merged.warnings.end(), next.warnings.begin(), next.warnings.end());
    merged.cut_off.insert(merged.cut_off.end(), next.cut_off.begin(), next.cut_off.end());
    merged.path += ", " + paths[i];
  }
  return merged;
}

Spread Summarize(const std::vector<double>& values) {
  Spread spread{values.size(), true, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
  if (values.empty()) return spread;
  spread.finite =
      std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  if (!spread.finite) return spread;
  spread.median = Median(values);
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  spread.min = *low;
  spread.max = *high;
  double sum = 0;
  for (double v : values) sum += v;
  spread.mean = sum / static_cast<double>(values.size());
  if (values.size() >= 2) {
    double squares = 0;
    for (double v : values) squares += (v - spread.mean) * (v - spread.mean);
    spread.stddev = std::sqrt(squares / static_cast<double>(values.size() - 1));
    spread.cv_percent = spread.mean != 0     ? spread.stddev / std::fabs(spread.mean) * 100
                        : spread.stddev == 0 ? 0
                                             : kNaN;
  }
  return spread;
}

std::string ContextOr(const BenchmarkFile& file, std::string_view key, std::string_view fallback) {
  const std::string* value = file.ContextValue(key);
  return value ? *value : std::string(fallback);
}

std::optional<double> ContextNumber(const BenchmarkFile& file, std::string_view key) {
  const std::string* value = file.ContextValue(key);
  if (!value || value->empty()) return std::nullopt;
  char* end = nullptr;
  const double number = std::strtod(value->c_str(), &end);
  if (end != value->c_str() + value->size() || !std::isfinite(number)) return std::nullopt;
  return number;
}

MetricDescription DescribeMetric(std::string_view metric, const BenchmarkFile& file,
                                 const PolicyOverrides& overrides) {
  DeclaredCounters declared;
  if (const std::string* units = file.ContextValue(context_key::kCounterUnits)) {
    declared = ParseCounterUnits(*units);
  }
  const MetricPolicy policy = ResolveMetricPolicy(metric, overrides, declared);
  MetricDescription description;
  description.name = std::string(metric);
  description.unit = policy.unit;
  description.direction = policy.direction;
  const CounterInfo* known = FindCounter(metric);
  const Gating gating = known ? GateRuleOf(known->name).gating : Gating::kReportOnly;
  description.gated = gating != Gating::kReportOnly && gating != Gating::kFlag;
  description.known = known != nullptr || FindDeclared(declared, metric) != nullptr;
  return description;
}

std::vector<std::string> DefaultGatedMetrics() {
  std::vector<std::string> names;
  for (const CounterInfo& counter : kCounters) {
    // dram_bandwidth is reported, not gated (its inputs are), but dashboards and the report
    // show it as before.
    const Gating gating = GateRuleOf(counter.name).gating;
    if ((gating != Gating::kReportOnly && gating != Gating::kFlag && counter.name.back() != '/') ||
        counter.name == counter::kDramBandwidth) {
      names.emplace_back(counter.name);
    }
  }
  return names;
}

namespace {
// Repetitions whose 0/1 flag `counter` is `set` (1) or clear (0); absent counters count none.
bool Flagged(const BenchmarkRecord& record, std::string_view counter, std::size_t* count,
             bool set = true) {
  std::size_t flagged = 0;
  if (const MetricSeries* series = record.FindMetric(counter)) {
    flagged =
        static_cast<std::size_t>(std::count_if(series->values.begin(), series->values.end(),
                                               [set](double v) { return (v >= 0.5) == set; }));
  }
  if (count) *count = flagged;
  return flagged > 0;
}
}  // namespace

bool Throttled(const BenchmarkRecord& record, std::size_t* count) {
  return Flagged(record, counter::kSmClockThrottled, count);
}

bool Shared(const BenchmarkRecord& record, std::size_t* count) {
  return Flagged(record, counter::kGpuShared, count);
}

bool NotHeld(const BenchmarkRecord& record, std::size_t* count) {
  return Flagged(record, counter::kLaunchHeld, count, /*set=*/false);
}

std::string HeatOrPowerReasons(const BenchmarkRecord& record, std::size_t* count) {
  uint64_t seen = 0;
  std::size_t repetitions = 0;
  if (const MetricSeries* series = record.FindMetric(counter::kClockEventReasons)) {
    for (double value : series->values) {
      if (!(value >= 0) || value > 1.8e19) continue;  // not a bit set
      const uint64_t reasons = static_cast<uint64_t>(value) & kClockEventsOfHeatOrPower;
      seen |= reasons;
      repetitions += reasons != 0;
    }
  }
  if (count) *count = repetitions;
  std::string names;
  for (const ClockEventReason& reason : kClockEventReasons) {
    if ((seen & reason.bit) != 0) names += (names.empty() ? "" : ", ") + std::string(reason.name);
  }
  return names;
}

bool TimingPaused(const BenchmarkRecord& record, std::size_t* count) {
  return Flagged(record, counter::kTimingPaused, count);
}

}  // namespace gpubench::tools
