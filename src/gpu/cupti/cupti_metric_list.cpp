// --gpubench_list_metrics: the metric groups with the replay passes each needs, then the chip's
// metrics with their type, unit, description and forms. Apart from the range profiler
// (cupti_profiler.cpp) because it needs no device and no session: CUPTI's host side answers
// from a chip name (cupti_metric_config.hpp).
#include <cupti_profiler_host.h>

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "config/metric_groups.hpp"
#include "gpu/backend.hpp"
#include "gpu/cupti/cupti_metric_config.hpp"

namespace gpubench::detail {
namespace {

std::string Passes(const Result<int>& passes) {
  if (!passes.ok()) return "unavailable: " + passes.status().message();
  return std::to_string(passes.value()) + (passes.value() == 1 ? " pass" : " passes");
}

// The metric groups with their metrics and the replay passes of the defaults with each.
// Returns whether any group matched `filter`.
bool ListGroups(const std::string& chip, const std::string& filter, std::ostream& out) {
  const std::string wanted =
      filter.empty() || filter[0] != kMetricGroupPrefix ? filter : filter.substr(1);
  std::vector<const MetricGroup*> shown;
  for (const MetricGroup& group : MetricGroups()) {
    bool match = wanted.empty() || group.name.find(wanted) != std::string_view::npos;
    for (const auto& metric : group.metrics) match |= metric.find(filter) != std::string::npos;
    if (match) shown.push_back(&group);
  }
  if (shown.empty()) return false;
  out << "# metric groups of chip " << chip
      << ": --gpubench_metrics=+NAME adds a group's metrics to the defaults; name, replay passes "
         "of the defaults with the group (CUPTI's count for the chip, no GPU needed), metrics, "
         "what it reports\n";
  out << "defaults\t" << Passes(CountPasses(chip, DefaultMetrics())) << "\t";
  for (size_t i = 0; i < DefaultMetrics().size(); ++i) {
    out << (i ? "," : "") << DefaultMetrics()[i];
  }
  out << "\tthe default counters\n";
  std::vector<std::string> all = DefaultMetrics();
  for (const MetricGroup* group : shown) {
    std::vector<std::string> metrics = DefaultMetrics();
    metrics.insert(metrics.end(), group->metrics.begin(), group->metrics.end());
    all.insert(all.end(), group->metrics.begin(), group->metrics.end());
    out << kMetricGroupPrefix << group->name << "\t" << Passes(CountPasses(chip, metrics)) << "\t";
    for (size_t i = 0; i < group->metrics.size(); ++i) {
      out << (i ? "," : "") << group->metrics[i];
    }
    out << "\t" << group->meaning << "\n";
  }
  if (shown.size() > 1) {
    out << "all of them\t" << Passes(CountPasses(chip, all)) << "\t\tthe defaults and every "
        << "group above together\n";
  }
  return true;
}

}  // namespace

std::string ListMetrics(const std::string& chip_flag, const DeviceFacts& facts,
                        const std::string& filter, std::ostream& out) {
  std::string chip = chip_flag;
  if (chip.empty()) {
    if (!facts.available) {
      return "no GPU to read the chip name from (" + facts.unavailable_reason +
             "); name one with --gpubench_chip=NAME (supported: " + SupportedChips() + ")";
    }
    if (Status status = DeviceChipName(facts.ordinal, &chip); !status.ok()) return status.message();
  }
  CuptiHostObject host;
  if (Status status = host.Initialize(chip, {}); !status.ok()) {
    return status.message() + "; supported chips: " + SupportedChips();
  }
  const bool groups_shown = ListGroups(chip, filter, out);
  // "+name" asks for groups only.
  if (!filter.empty() && filter[0] == kMetricGroupPrefix) {
    if (groups_shown) return "";
    return "no metric group contains '" + filter.substr(1) + "'; the groups are " +
           MetricGroupNames();
  }
  out << "# metrics of chip " << chip << (filter.empty() ? "" : " matching '" + filter + "'")
      << ": name, type, unit, description, forms (append one to the name, e.g. .sum)\n";
  size_t shown = 0;
  for (auto type :
       {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    for (const auto& name : host.BaseMetrics(type)) {
      if (!filter.empty() && name.find(filter) == std::string::npos) continue;
      std::string description, unit;
      CUpti_MetricType actual = type;
      host.Properties(name, &description, &unit, &actual);
      out << name << "\t" << MetricTypeName(actual) << "\t" << (unit.empty() ? "-" : unit) << "\t"
          << description << "\t";
      std::string forms;
      for (const auto& rollup : host.SubMetrics(name, type))
        forms += (forms.empty() ? "" : " ") + rollup;
      out << forms << "\n";
      ++shown;
    }
  }
  if (shown == 0 && !groups_shown)
    return "no metric of chip " + chip + " contains '" + filter + "'";
  return "";
}

}  // namespace gpubench::detail
