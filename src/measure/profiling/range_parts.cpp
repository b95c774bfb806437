#include "measure/profiling/range_parts.hpp"

#include <algorithm>
#include <cmath>

#include "schema/counter_table.hpp"

namespace gpubench::detail {
namespace {

// The ranges of each iteration, in iteration order: by name where every returned name is one
// gpubench pushed, else by position; an error when they cannot be placed.
Result<std::map<int, std::vector<const ProfiledRange*>>> PlaceRanges(
    const std::vector<ProfiledRange>& ranges, const std::vector<PushedRange>& pushed) {
  std::map<int, std::vector<const ProfiledRange*>> placed;
  std::map<std::string, int> iteration_of;
  for (const PushedRange& range : pushed) iteration_of[range.name] = range.iteration;
  const auto unknown = std::find_if(ranges.begin(), ranges.end(), [&](const ProfiledRange& range) {
    return iteration_of.count(range.name) == 0;
  });
  if (unknown == ranges.end()) {
    for (const ProfiledRange& range : ranges) placed[iteration_of[range.name]].push_back(&range);
    return placed;
  }
  std::set<int> iterations;
  for (const PushedRange& range : pushed) iterations.insert(range.iteration);
  const bool whole = iterations.size() == pushed.size();  // one range per iteration
  if (ranges.size() != pushed.size() && !whole) {
    return Status::Error("the profiler returned " + std::to_string(ranges.size()) +
                         " ranges for the " + std::to_string(pushed.size()) +
                         " gpubench pushed (each profiled iteration is split where its body enters "
                         "gpubench::UntimedScope), " +
                         (unknown->name.empty()
                              ? std::string("unnamed")
                              : "one of them named '" + unknown->name + "', not a pushed name") +
                         ", so they cannot be told apart");
  }
  for (size_t index = 0; index < ranges.size(); ++index) {
    // With one range per iteration, whatever the profiler returned is in order (as before
    // iterations had parts); with parts, the counts agree (above).
    const int iteration = whole ? static_cast<int>(index) : pushed[index].iteration;
    placed[iteration].push_back(&ranges[index]);
  }
  return placed;
}

// One iteration's parts put together; metrics that cannot be go to *left_out.
std::map<std::string, double> PutTogether(const std::vector<const ProfiledRange*>& parts,
                                          std::set<std::string>* left_out) {
  if (parts.size() == 1) return parts.front()->values;
  std::map<std::string, double> whole;
  std::map<std::string, double> weights;  // a rate's summed durations
  for (const ProfiledRange* part : parts) {
    const auto duration = part->values.find(kPartsDurationMetric);
    for (const auto& [metric, value] : part->values) {
      switch (PartsRuleOf(metric)) {
        case PartsRule::kSum:
          whole[metric] += value;
          break;
        case PartsRule::kRate:
          if (duration == part->values.end()) {
            left_out->insert(metric);
          } else if (duration->second > 0 && std::isfinite(value)) {
            // A part with no GPU work (a scope at the body's start) lasts ~0 and may read 0/0:
            // it weighs nothing.
            whole[metric] += value * duration->second;
            weights[metric] += duration->second;
          } else {
            weights.emplace(metric, 0.0);
          }
          break;
        case PartsRule::kSame:
          if (!std::isfinite(value)) break;
          whole[metric] = whole.count(metric) > 0 ? std::max(whole[metric], value) : value;
          break;
        case PartsRule::kNone:
          left_out->insert(metric);
          break;
      }
    }
  }
  for (const auto& [metric, weight] : weights) {
    if (weight > 0) {
      whole[metric] /= weight;
    } else {
      left_out->insert(metric);
    }
  }
  return whole;
}

}  // namespace

PartsRule PartsRuleOf(const std::string& metric) {
  const size_t dot = metric.rfind('.');
  if (dot == std::string::npos) return PartsRule::kNone;
  const std::string last = metric.substr(dot + 1);
  if (last == "sum" || last == "avg") return PartsRule::kSum;
  if (last == "per_second") return PartsRule::kRate;
  if (last == "peak_sustained") return PartsRule::kSame;
  return PartsRule::kNone;
}

Result<IterationValues> CombineRangeParts(const std::vector<ProfiledRange>& ranges,
                                          const std::vector<PushedRange>& pushed) {
  Result<std::map<int, std::vector<const ProfiledRange*>>> placed = PlaceRanges(ranges, pushed);
  if (!placed.ok()) return placed.status();
  IterationValues values;
  for (const auto& [iteration, parts] : placed.value()) {
    values.iterations.push_back(PutTogether(parts, &values.left_out));
  }
  // Left out of every iteration, so that the mean is over the same iterations for each metric.
  for (auto& iteration : values.iterations) {
    for (const std::string& metric : values.left_out) iteration.erase(metric);
  }
  return values;
}

std::string LeftOutNote(const std::set<std::string>& left_out) {
  if (left_out.empty()) return "";
  std::string names;
  for (const std::string& metric : left_out) {
    names += names.empty() ? "" : ", ";
    names += metric;
    for (const CounterInfo& counter : kCounters) {
      if (counter.source_metric == metric) names += " (" + std::string(counter.name) + ")";
    }
  }
  return "the profiled ranges pause where the body enters gpubench::UntimedScope, so each "
         "profiled iteration is several ranges, and these metrics cannot be put together from "
         "their parts (a share, a ratio or an extreme of each part is none of the whole): " +
         names + " left out; the byte, instruction and duration counters are the parts' sums";
}

}  // namespace gpubench::detail
