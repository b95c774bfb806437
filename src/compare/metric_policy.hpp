// Which way each metric should move, and whether and how tightly it is gated.
#ifndef GPUBENCH_COMPARE_METRIC_POLICY_H_
#define GPUBENCH_COMPARE_METRIC_POLICY_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace gpubench::compare {

enum class Direction { kLowerIsBetter, kHigherIsBetter, kUnknown };

struct MetricPolicy {
  Direction direction = Direction::kUnknown;
  // Gated when set: a change beyond this many percent in the bad direction.
  std::optional<double> threshold_percent;
  // Noisy metrics (time, rates) need the Mann-Whitney test to confirm a
  // change; deterministic ones (byte counts) are judged on medians alone.
  bool statistical = true;
  // Why the metric got this policy, for reports ("built-in", "name ends in ...").
  std::string rule;
};

// User settings from --threshold and --direction.
struct PolicyOverrides {
  std::map<std::string, std::optional<double>> thresholds;  // nullopt: "off"
  std::map<std::string, Direction> directions;
};

MetricPolicy ResolveMetricPolicy(std::string_view metric, const PolicyOverrides& overrides);

// Parses "real_time=5%", "dram_write_bytes=1" (percent) or "cpu_time=off".
// Throws std::invalid_argument with a message saying what is expected.
std::pair<std::string, std::optional<double>> ParseThresholdSpec(std::string_view spec);

// Parses "my_counter=higher" or "my_counter=lower".
std::pair<std::string, Direction> ParseDirectionSpec(std::string_view spec);

const char* DirectionName(Direction direction);  // "lower_is_better", ...

}  // namespace gpubench::compare

#endif  // GPUBENCH_COMPARE_METRIC_POLICY_H_
