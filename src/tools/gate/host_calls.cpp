#include "tools/gate/host_calls.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "common/busy_text.hpp"
#include "schema/counter_table.hpp"
#include "tools/base/text.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/history/history.hpp"
#include "tools/gate/run_summary.hpp"

namespace gpubench::tools {
namespace {

constexpr std::size_t kMaxProblemsShown = 5;
constexpr std::size_t kMaxQuoted = 60;
// Benchmarks listed one warning each; the others are named in one more.
constexpr std::size_t kMaxBusyListed = 20;

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// The text in quotes, cut to kMaxQuoted characters, control characters shown as '?'.
std::string Quote(std::string_view text) {
  std::string quoted = "\"";
  for (std::size_t i = 0; i < text.size() && i < kMaxQuoted; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    quoted += std::iscntrl(c) ? '?' : static_cast<char>(c);
  }
  return quoted + (text.size() > kMaxQuoted ? "...\"" : "\"");
}

// A decimal number >= 0 written as gpubench writes counts and seconds ("2", "0.5", "2.1e-03").
bool ParseNonNegative(std::string_view text, double* value) {
  if (text.empty() || text.size() > 40) return false;
  if (!std::isdigit(static_cast<unsigned char>(text.front())) && text.front() != '.') return false;
  // strtod would take hexadecimal too.
  if (text.find_first_of("xX") != std::string_view::npos) return false;
  const std::string copy(text);
  char* end = nullptr;
  *value = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size() && std::isfinite(*value) && *value >= 0;
}

bool IsName(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// The calls of one entry, or what is wrong with them.
bool ParseCalls(std::string_view text, std::vector<HostCall>* calls, std::string* problem) {
  if (Trim(text).empty()) {
    *problem = "lists no calls after '=' (expected NAME:COUNT:SECONDS,...)";
    return false;
  }
  std::size_t index = 0;
  while (true) {
    ++index;
    const std::size_t comma = text.find(',');
    const std::string_view call = Trim(text.substr(0, comma));
    const std::string where = "call " + std::to_string(index) + " (" + Quote(call) + ")";
    const std::size_t first = call.find(':');
    const std::size_t second = first == std::string_view::npos ? first : call.find(':', first + 1);
    if (second == std::string_view::npos || call.find(':', second + 1) != std::string_view::npos) {
      *problem = where + " is not NAME:COUNT:SECONDS";
      return false;
    }
    HostCall parsed;
    const std::string_view name = Trim(call.substr(0, first));
    const std::string_view count = Trim(call.substr(first + 1, second - first - 1));
    const std::string_view seconds = Trim(call.substr(second + 1));
    if (!IsName(name)) {
      *problem = where + ": the name " + Quote(name) + " is not a function name";
      return false;
    }
    if (!ParseNonNegative(count, &parsed.count)) {
      *problem = where + ": the count " + Quote(count) + " is not a number >= 0";
      return false;
    }
    if (!ParseNonNegative(seconds, &parsed.seconds)) {
      *problem = where + ": the host time " + Quote(seconds) + " is not a number of seconds >= 0";
      return false;
    }
    parsed.name = std::string(name);
    calls->push_back(std::move(parsed));
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 1);
  }
}

// Median of the finite values of `metric` over the repetitions; `count` gets how many there are.
double FiniteMedian(const BenchmarkRecord& record, std::string_view metric,
                    std::size_t* count = nullptr) {
  std::vector<double> values;
  if (const MetricSeries* series = record.FindMetric(metric)) {
    for (double value : series->values) {
      if (std::isfinite(value)) values.push_back(value);
    }
  }
  if (count) *count = values.size();
  return values.empty() ? NAN : Median(values);
}

std::string FormatCount(double count) { return Printf(count >= 100 ? "%.0f" : "%.3g", count); }

std::string FormatPercent(double percent) {
  return Printf(percent >= 10 ? "%.0f%%" : "%.2g%%", percent);
}

}  // namespace

const InstanceHostCalls* HostCallsContext::Match(std::string_view run_name) const {
  if (instances.empty()) return nullptr;
  std::string candidate(run_name);
  while (true) {
    if (auto it = instances.find(candidate); it != instances.end()) return &it->second;
    const std::size_t slash = candidate.rfind('/');
    if (slash == std::string::npos) return nullptr;
    candidate.resize(slash);
  }
}

HostCallsContext ParseHostCalls(std::string_view value) {
  HostCallsContext parsed;
  value = Trim(value);
  // "not measured", "not listed here: profile_process=same measures them after ...".
  if (value.substr(0, 4) == "not ") return parsed;
  parsed.recorded = true;
  if (value == "none") return parsed;
  if (value.empty()) {
    parsed.problems.push_back(
        "the value is empty (expected \"none\" or INSTANCE=NAME:COUNT:SECONDS,... entries "
        "separated by ';')");
    return parsed;
  }
  std::size_t index = 0;
  while (true) {
    ++index;
    const std::size_t semicolon = value.find(';');
    const std::string_view entry = Trim(value.substr(0, semicolon));
    const std::string where = "entry " + std::to_string(index);
    const std::size_t equals = entry.rfind('=');
    const std::string_view instance =
        equals == std::string_view::npos ? std::string_view() : Trim(entry.substr(0, equals));
    if (entry.empty()) {
      parsed.problems.push_back(where + " is empty (';' twice in a row, or at an end)");
    } else if (equals == std::string_view::npos) {
      parsed.problems.push_back(where + " (" + Quote(entry) +
                                ") has no '=' between the instance and its calls");
    } else if (instance.empty()) {
      parsed.problems.push_back(where + " (" + Quote(entry) + ") names no instance before '='");
    } else if (parsed.instances.count(std::string(instance))) {
      parsed.problems.push_back(where + ": the instance " + Quote(instance) +
                                " is listed a second time; the first entry is used");
    } else {
      InstanceHostCalls& calls = parsed.instances[std::string(instance)];
      std::string problem;
      if (!ParseCalls(entry.substr(equals + 1), &calls.calls, &problem)) {
        calls.calls.clear();
        calls.malformed = true;
        parsed.problems.push_back(where + " (" + Quote(instance) + "): " + problem);
      }
    }
    if (semicolon == std::string_view::npos) break;
    value.remove_prefix(semicolon + 1);
  }
  return parsed;
}

std::string DescribeHostCalls(const std::vector<HostCall>& calls, std::size_t max_calls) {
  std::string text;
  const std::size_t shown = std::min(max_calls, calls.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const HostCall& call = calls[i];
    const std::string count = FormatCount(call.count);
    text += (i ? ", " : "") + call.name + (count == "1" ? "" : " " + count + "x") + " (" +
            FormatTimeNs(call.seconds * 1e9) + ")";
  }
  if (calls.size() > shown) {
    double rest = 0;
    for (std::size_t i = shown; i < calls.size(); ++i) rest += calls[i].seconds;
    const std::size_t others = calls.size() - shown;
    text += (shown ? ", and " : "") + std::to_string(others) + " other call" +
            (others == 1 ? "" : "s") + " (" + FormatTimeNs(rest * 1e9) + ")";
  }
  return text;
}

std::vector<std::string> GpuBusyWarnings(const BenchmarkFile& run) {
  std::vector<std::string> warnings;
  HostCallsContext host_calls;
  if (const std::string* value = run.ContextValue(context_key::kHostCalls)) {
    host_calls = ParseHostCalls(*value);
  }
  if (!host_calls.problems.empty()) {
    std::string text = std::string(context_key::kHostCalls) + " in the context is malformed (" +
                       std::to_string(host_calls.problems.size()) +
                       " problem(s); those entries' host calls are left out): ";
    for (std::size_t i = 0; i < host_calls.problems.size() && i < kMaxProblemsShown; ++i) {
      text += (i ? "; " : "") + host_calls.problems[i];
    }
    if (host_calls.problems.size() > kMaxProblemsShown) text += "; ...";
    warnings.push_back(text);
  }
  std::size_t listed = 0;
  std::vector<std::string> more;
  for (const BenchmarkRecord& record : run.benchmarks) {
    // Another process used the GPU: the report lists the row as shared, which says why.
    if (Shared(record)) continue;
    std::size_t repetitions = 0;
    const double percent = FiniteMedian(record, counter::kGpuBusyPct, &repetitions);
    if (!std::isfinite(percent) || percent >= detail::kBusyWarnBelowPercent) continue;
    const double held = FiniteMedian(record, counter::kLaunchHeld);
    const bool launch_held = std::isfinite(held) && held >= 0.5;
    const double gpu_ns = FiniteMedian(record, counter::kRealTime);
    const double busy_seconds = FiniteMedian(record, counter::kGpuBusyTime);
    const double busy_ns =
        std::isfinite(busy_seconds) ? busy_seconds * 1e9 : gpu_ns * percent / 100;
    // gpubench's rule on stderr: a held row's idle time within the timer's floor around a
    // launch is that floor (a one-kernel body), not time between work items.
    if (launch_held && gpu_ns - busy_ns <= detail::kBusyHeldIdleFloorSeconds * 1e9) continue;
    if (listed == kMaxBusyListed) {
      more.push_back(record.name + " (" + FormatPercent(percent) + ")");
      continue;
    }
    std::string text = record.name;
    if (repetitions > 1) text += " (medians of " + std::to_string(repetitions) + " repetitions)";
    text += ": GPU time " + FormatTimeNs(gpu_ns) + ", GPU busy " + FormatTimeNs(busy_ns) + " (" +
            FormatPercent(percent) + "): ";
    const InstanceHostCalls* calls = host_calls.Match(record.name);
    const double work_items = FiniteMedian(record, counter::kGpuWorkItems);
    if (launch_held && work_items > 0 && work_items <= detail::kOneWorkItem) {
      text += detail::OneWorkItemIdleText(FormatTimeNs(gpu_ns - busy_ns));
    } else if (launch_held) {
      // gpubench's words on stderr: the host's calls did not pace a held body's GPU.
      text +=
          "the launches were held (launch_held=1), so the host did not pace the GPU; the idle "
          "time (" +
          FormatTimeNs(gpu_ns - busy_ns) +
          " per iteration, beyond the timer's floor of about 2 us around a launch) lies "
          "between the body's GPU work items (launch latency and dependencies between short "
          "kernels)";
    } else if (calls && calls->malformed) {
      text += "its host calls could not be read (" + std::string(context_key::kHostCalls) +
              " is malformed, see its warning)";
    } else if (calls && !calls->calls.empty()) {
      text += "per iteration the loop calls " + DescribeHostCalls(calls->calls);
    } else if (!host_calls.recorded) {
      text += "the host calls were not recorded (profile_process=same or an older gpubench)";
    } else if (!host_calls.problems.empty()) {
      text += "its host calls were not found (" + std::string(context_key::kHostCalls) +
              " is malformed, see its warning)";
    } else {
      // gpubench's words on stderr for the same case.
      text += "the loop body made no CUDA runtime call that would explain the idle time";
    }
    warnings.push_back(text);
    ++listed;
  }
  if (!more.empty()) {
    std::string text = "GPU busy below " + Printf("%.0f%%", detail::kBusyWarnBelowPercent) +
                       " of the GPU time in " + std::to_string(more.size()) +
                       " more benchmark(s): ";
    for (std::size_t i = 0; i < more.size() && i < kMaxBusyListed; ++i) {
      text += (i ? ", " : "") + more[i];
    }
    if (more.size() > kMaxBusyListed) text += ", ...";
    warnings.push_back(text);
  }
  return warnings;
}

}  // namespace gpubench::tools
