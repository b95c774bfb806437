// Which way each metric should move, and whether and how tightly it is gated. The defaults come
// from gpubench's counter vocabulary (schema/counter_table.hpp; the gate's rules:
// tools/gate/gate_tuning.hpp); a file's gpubench_counter_units context entry names the units and
// directions of the counters the vocabulary does not know (metrics added by name).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.hpp"
#include "schema/counter_table.hpp"
#include "tools/gate/gate_tuning.hpp"

namespace gpubench::tools {

enum class Direction { kLowerIsBetter, kHigherIsBetter, kUnknown };

struct MetricPolicy {
  Direction direction = Direction::kUnknown;
  /// Gated when set: the smallest relative change (percent) that can fail. From the vocabulary
  /// this is a minimum that noise and floors can raise; from --threshold it is used as given.
  std::optional<double> threshold_percent;
  bool threshold_from_user = false;  ///< --threshold: no noise or floor adjustment
  Gating gating = Gating::kReportOnly;
  /// Smallest absolute change that can fail, in the metric's unit (ns for times); 0: none.
  double floor = 0;
  /// Noisy metrics (time, rates) need the Mann-Whitney test to confirm a change; byte counts are
  /// judged on medians (with noise-aware thresholds and floors).
  bool statistical = true;
  std::string unit;  ///< "" when unknown
  /// A code (unit "reason", "reasons", "reuse", "signature" or "unix s": stop_reason,
  /// clock_event_reasons, reuse_status, work_signature, measured_at), not a measurement: never
  /// tested or gated, and shown by name, in hex or as a date.
  bool code = false;
  /// Why the metric got this policy, for reports ("vocabulary", "--threshold", ...).
  std::string rule;
};

/// User settings from --threshold and --direction.
struct PolicyOverrides {
  std::map<std::string, std::optional<double>> thresholds;  ///< nullopt: "off"
  std::map<std::string, Direction> directions;
};

/// Units and directions a file declares in gpubench_counter_units ("name=unit:better;...",
/// prefix entries end in "/*"). Malformed entries are skipped.
struct DeclaredCounter {
  std::string unit;
  Direction direction = Direction::kUnknown;
};
using DeclaredCounters = std::map<std::string, DeclaredCounter>;
DeclaredCounters ParseCounterUnits(std::string_view text);
const DeclaredCounter* FindDeclared(const DeclaredCounters& declared, std::string_view metric);

/// Whether values of `unit` are codes rather than quantities: "reason" (a code of kStopReasons),
/// "reasons" (a bit set of kClockEventReasons), "reuse" (a code of kReuseStatuses), "signature"
/// (a work signature) or "unix s" (when a value was measured). Their median, mean or change means
/// nothing.
bool IsCodeUnit(std::string_view unit);

MetricPolicy ResolveMetricPolicy(std::string_view metric, const PolicyOverrides& overrides,
                                 const DeclaredCounters& declared = {});

/// Parses "real_time=5%", "dram_write_bytes=1" (percent) or "cpu_time=off". Fails
/// (kInvalidInput) with a message saying what is expected.
detail::Result<std::pair<std::string, std::optional<double>>> ParseThresholdSpec(
    std::string_view spec);

/// Parses "my_counter=higher" or "my_counter=lower".
detail::Result<std::pair<std::string, Direction>> ParseDirectionSpec(std::string_view spec);

/// Adds --threshold and --direction specs (as the tools take them, in order) to `overrides`;
/// fails (kInvalidInput) at the first malformed one.
detail::Status AddPolicyOverrides(const std::vector<std::string>& threshold_specs,
                                  const std::vector<std::string>& direction_specs,
                                  PolicyOverrides& overrides);

const char* DirectionName(Direction direction);  ///< "lower_is_better", ...

}  // namespace gpubench::tools
