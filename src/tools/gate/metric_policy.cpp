#include "tools/gate/metric_policy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "schema/context_keys.hpp"

namespace gpubench::tools {
namespace {

Direction FromBetter(Better better) {
  return better == Better::kLower    ? Direction::kLowerIsBetter
         : better == Better::kHigher ? Direction::kHigherIsBetter
                                     : Direction::kUnknown;
}

MetricPolicy VocabularyPolicy(std::string_view metric, const DeclaredCounters& declared) {
  MetricPolicy policy;
  if (const CounterInfo* known = FindCounter(metric)) {
    const GateRule rule = GateRuleOf(known->name);
    policy.direction = FromBetter(known->better);
    policy.gating = rule.gating;
    policy.unit = std::string(known->unit);
    policy.floor = rule.floor;
    // A counter measured once per run has one value in all repetitions: nothing to test.
    policy.statistical = rule.gating != Gating::kBytes && rule.gating != Gating::kFlag &&
                         known->measured == Measured::kPerRepetition;
    if (rule.gating == Gating::kTime || rule.gating == Gating::kRate ||
        rule.gating == Gating::kBytes) {
      policy.threshold_percent = rule.min_threshold_percent;
    }
    policy.rule = "vocabulary";
    return policy;
  }
  if (const DeclaredCounter* counter = FindDeclared(declared, metric)) {
    policy.direction = counter->direction;
    policy.unit = counter->unit;
    policy.rule = context_key::kCounterUnits;
    return policy;
  }
  policy.rule = "unknown counter";
  return policy;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

detail::Result<std::pair<std::string_view, std::string_view>> SplitSpec(std::string_view spec,
                                                                        const char* example) {
  const auto equals = spec.rfind('=');
  if (equals == std::string_view::npos || Trim(spec.substr(0, equals)).empty()) {
    return detail::Status::InvalidInput("\"" + std::string(spec) + "\" is not of the form " +
                                        example);
  }
  const std::string_view name = Trim(spec.substr(0, equals));
  // "real_time=5%,cpu_time=3%" would otherwise set a metric named "real_time=5%,cpu_time".
  if (name.find_first_of("=,") != std::string_view::npos) {
    return detail::Status::InvalidInput("\"" + std::string(spec) +
                                        "\" holds more than one METRIC=VALUE: give each its own "
                                        "option (" +
                                        example + ")");
  }
  return std::pair(name, Trim(spec.substr(equals + 1)));
}

}  // namespace

DeclaredCounters ParseCounterUnits(std::string_view text) {
  DeclaredCounters declared;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find(';'), text.size());
    const std::string_view entry = Trim(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
    const std::size_t equals = entry.rfind('=');
    const std::size_t colon = entry.rfind(':');
    if (equals == std::string_view::npos || colon == std::string_view::npos || colon < equals ||
        equals == 0) {
      continue;
    }
    DeclaredCounter counter;
    counter.unit = std::string(entry.substr(equals + 1, colon - equals - 1));
    const std::string_view better = entry.substr(colon + 1);
    counter.direction = better == "lower"    ? Direction::kLowerIsBetter
                        : better == "higher" ? Direction::kHigherIsBetter
                                             : Direction::kUnknown;
    declared[std::string(entry.substr(0, equals))] = counter;
  }
  return declared;
}

const DeclaredCounter* FindDeclared(const DeclaredCounters& declared, std::string_view metric) {
  if (declared.empty()) return nullptr;
  if (auto it = declared.find(std::string(metric)); it != declared.end()) return &it->second;
  // Prefix entries ("kernel_time/*") cover every name that starts with the prefix.
  for (const auto& [name, counter] : declared) {
    if (name.size() >= 2 && name.compare(name.size() - 2, 2, "/*") == 0 &&
        metric.size() > name.size() - 1 &&
        metric.substr(0, name.size() - 1) == name.substr(0, name.size() - 1)) {
      return &counter;
    }
  }
  return nullptr;
}

bool IsCodeUnit(std::string_view unit) {
  return unit == "reason" || unit == "reasons" || unit == "reuse" || unit == "signature" ||
         unit == "unix s";
}

MetricPolicy ResolveMetricPolicy(std::string_view metric, const PolicyOverrides& overrides,
                                 const DeclaredCounters& declared) {
  MetricPolicy policy = VocabularyPolicy(metric, declared);
  const std::string key(metric);
  if (IsCodeUnit(policy.unit)) {
    // A code changes when the run stopped for another reason, not when the code got slower: no
    // threshold or direction applies, whatever --threshold says.
    policy.code = true;
    policy.statistical = false;
    policy.threshold_percent.reset();
    policy.gating = Gating::kReportOnly;
    policy.direction = Direction::kUnknown;
    if (overrides.thresholds.count(key) != 0 || overrides.directions.count(key) != 0) {
      policy.rule += ", --threshold/--direction ignored: a code is never gated";
    }
    return policy;
  }
  if (auto it = overrides.directions.find(key); it != overrides.directions.end()) {
    policy.direction = it->second;
    policy.rule = "--direction";
  }
  if (auto it = overrides.thresholds.find(key); it != overrides.thresholds.end()) {
    policy.threshold_percent = it->second;
    policy.threshold_from_user = it->second.has_value();
    if (policy.threshold_percent && policy.gating == Gating::kReportOnly) {
      policy.gating = policy.statistical ? Gating::kTime : Gating::kBytes;
    }
    policy.rule += policy.rule.empty() ? "--threshold" : ", --threshold";
    if (policy.threshold_percent && policy.direction == Direction::kUnknown) {
      policy.direction = Direction::kLowerIsBetter;
      policy.rule += " (assumed lower is better; set --direction " + key + "=higher if not)";
    }
  }
  if (policy.direction == Direction::kUnknown || !policy.threshold_percent) {
    policy.threshold_percent.reset();
    if (policy.gating != Gating::kFlag) policy.gating = Gating::kReportOnly;
  }
  return policy;
}

detail::Result<std::pair<std::string, std::optional<double>>> ParseThresholdSpec(
    std::string_view spec) {
  const char* example = "METRIC=PERCENT, e.g. real_time=5% or dram_write_bytes=1% or cpu_time=off";
  const auto split = SplitSpec(spec, example);
  if (!split.ok()) return split.status();
  auto [name, value] = split.value();
  if (value == "off" || value == "none") {
    return std::pair(std::string(name), std::optional<double>());
  }
  if (!value.empty() && value.back() == '%') value.remove_suffix(1);
  const std::string number(Trim(value));
  char* end = nullptr;
  const double percent = number.empty() ? NAN : std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(percent) ||
      percent < 0) {
    return detail::Status::InvalidInput("threshold \"" + std::string(spec) +
                                        "\" needs a non-negative percentage: " + example);
  }
  return std::pair(std::string(name), std::optional<double>(percent));
}

detail::Result<std::pair<std::string, Direction>> ParseDirectionSpec(std::string_view spec) {
  const char* example = "METRIC=higher or METRIC=lower, e.g. l2_hit_rate=higher";
  const auto split = SplitSpec(spec, example);
  if (!split.ok()) return split.status();
  const auto [name, value] = split.value();
  if (value == "higher") return std::pair(std::string(name), Direction::kHigherIsBetter);
  if (value == "lower") return std::pair(std::string(name), Direction::kLowerIsBetter);
  return detail::Status::InvalidInput("direction \"" + std::string(spec) +
                                      "\" is not of the form " + example);
}

detail::Status AddPolicyOverrides(const std::vector<std::string>& threshold_specs,
                                  const std::vector<std::string>& direction_specs,
                                  PolicyOverrides& overrides) {
  for (const std::string& spec : threshold_specs) {
    auto parsed = ParseThresholdSpec(spec);
    if (!parsed.ok()) return parsed.status();
    overrides.thresholds.insert_or_assign(parsed.value().first, parsed.value().second);
  }
  for (const std::string& spec : direction_specs) {
    auto parsed = ParseDirectionSpec(spec);
    if (!parsed.ok()) return parsed.status();
    overrides.directions.insert_or_assign(parsed.value().first, parsed.value().second);
  }
  return detail::Status::Ok();
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

}  // namespace gpubench::tools
