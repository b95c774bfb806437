#include "compare/metric_policy.hpp"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace gpubench::compare {
namespace {

struct BuiltInMetric {
  std::string_view name;
  Direction direction;
  double default_threshold_percent;  // < 0: report only
  bool statistical;
};

// Defaults. Time is gated with statistics; byte counts from hardware
// counters are deterministic, so a small change is already real.
constexpr BuiltInMetric kBuiltInMetrics[] = {
    {"real_time", Direction::kLowerIsBetter, 5.0, true},
    {"cpu_time", Direction::kLowerIsBetter, -1, true},
    {"gpu_duration", Direction::kLowerIsBetter, -1, true},
    {"dram_read_bytes", Direction::kLowerIsBetter, 1.0, false},
    {"dram_write_bytes", Direction::kLowerIsBetter, 1.0, false},
    {"bytes_moved", Direction::kLowerIsBetter, 1.0, false},
    {"dram_bandwidth", Direction::kHigherIsBetter, 5.0, true},
    {"dram_bandwidth_pct", Direction::kHigherIsBetter, -1, true},
    {"bytes_per_second", Direction::kHigherIsBetter, -1, true},
    {"items_per_second", Direction::kHigherIsBetter, -1, true},
    {"sm_clock_mhz", Direction::kHigherIsBetter, -1, true},
    {"profiled_sm_clock_mhz", Direction::kHigherIsBetter, -1, true},
    {"sm_clock_rated_mhz", Direction::kUnknown, -1, false},
    {"sm_clock_throttled", Direction::kLowerIsBetter, -1, false},
    {"profile_passes", Direction::kUnknown, -1, false},
};

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}
bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

MetricPolicy BuiltInOrRulePolicy(std::string_view metric) {
  for (const BuiltInMetric& known : kBuiltInMetrics) {
    if (known.name == metric) {
      MetricPolicy policy;
      policy.direction = known.direction;
      if (known.default_threshold_percent >= 0) {
        policy.threshold_percent = known.default_threshold_percent;
      }
      policy.statistical = known.statistical;
      policy.rule = "built-in";
      return policy;
    }
  }
  MetricPolicy policy;
  if (EndsWith(metric, "per_second") || Contains(metric, "throughput") ||
      Contains(metric, "bandwidth") || Contains(metric, "hit_rate")) {
    policy.direction = Direction::kHigherIsBetter;
    policy.rule = "name: rate, bandwidth, throughput or hit rate";
  } else if (EndsWith(metric, "duration") || EndsWith(metric, "_time")) {
    policy.direction = Direction::kLowerIsBetter;
    policy.rule = "name: duration or time";
  } else if (EndsWith(metric, "bytes")) {
    policy.direction = Direction::kLowerIsBetter;
    policy.statistical = false;
    policy.rule = "name: byte count";
  } else {
    policy.rule = "unknown counter";
  }
  return policy;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::pair<std::string_view, std::string_view> SplitSpec(std::string_view spec,
                                                        const char* example) {
  const auto equals = spec.rfind('=');
  if (equals == std::string_view::npos || Trim(spec.substr(0, equals)).empty()) {
    throw std::invalid_argument("\"" + std::string(spec) + "\" is not of the form " + example);
  }
  return {Trim(spec.substr(0, equals)), Trim(spec.substr(equals + 1))};
}

}  // namespace

MetricPolicy ResolveMetricPolicy(std::string_view metric, const PolicyOverrides& overrides) {
  MetricPolicy policy = BuiltInOrRulePolicy(metric);
  const std::string key(metric);
  if (auto it = overrides.directions.find(key); it != overrides.directions.end()) {
    policy.direction = it->second;
    policy.rule = "--direction";
  }
  if (auto it = overrides.thresholds.find(key); it != overrides.thresholds.end()) {
    policy.threshold_percent = it->second;
    policy.rule += policy.rule.empty() ? "--threshold" : ", --threshold";
    if (policy.threshold_percent && policy.direction == Direction::kUnknown) {
      policy.direction = Direction::kLowerIsBetter;
      policy.rule += " (assumed lower is better; set --direction " + key + "=higher if not)";
    }
  }
  if (policy.direction == Direction::kUnknown) policy.threshold_percent.reset();
  return policy;
}

std::pair<std::string, std::optional<double>> ParseThresholdSpec(std::string_view spec) {
  const char* example = "METRIC=PERCENT, e.g. real_time=5% or dram_write_bytes=1% or cpu_time=off";
  auto [name, value] = SplitSpec(spec, example);
  if (value == "off" || value == "none") return {std::string(name), std::nullopt};
  if (!value.empty() && value.back() == '%') value.remove_suffix(1);
  const std::string number(Trim(value));
  char* end = nullptr;
  const double percent = number.empty() ? NAN : std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(percent) ||
      percent < 0) {
    throw std::invalid_argument("threshold \"" + std::string(spec) +
                                "\" needs a non-negative percentage: " + example);
  }
  return {std::string(name), percent};
}

std::pair<std::string, Direction> ParseDirectionSpec(std::string_view spec) {
  const char* example = "METRIC=higher or METRIC=lower, e.g. l2_hit_rate=higher";
  auto [name, value] = SplitSpec(spec, example);
  if (value == "higher") return {std::string(name), Direction::kHigherIsBetter};
  if (value == "lower") return {std::string(name), Direction::kLowerIsBetter};
  throw std::invalid_argument("direction \"" + std::string(spec) + "\" is not of the form " +
                              example);
}

const char* DirectionName(Direction direction) {
  switch (direction) {
    case Direction::kLowerIsBetter:
      return "lower_is_better";
    case Direction::kHigherIsBetter:
      return "higher_is_better";
    case Direction::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace gpubench::compare
