#include "config/settings_table.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "config/metric_groups.hpp"
#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"

namespace gpubench {

const std::vector<std::string>& DefaultMetrics() {
  // The CUPTI metrics behind the vocabulary's counters (schema/counter_table.hpp).
  static const std::vector<std::string> metrics = [] {
    std::vector<std::string> names;
    for (const CounterInfo& counter : kCounters) {
      // A group's metrics come only with the group (+flops, +l2).
      if (!counter.source_metric.empty() && counter.group.empty()) {
        names.emplace_back(counter.source_metric);
      }
    }
    return names;
  }();
  return metrics;
}

const char* ToString(Timer timer) { return timer == Timer::kCupti ? "cupti" : "events"; }

const char* ToString(CachePolicy cache) { return cache == CachePolicy::kKeep ? "keep" : "flush"; }

const char* ToString(ProfileRuns runs) { return runs == ProfileRuns::kAll ? "all" : "reported"; }

const char* ToString(ProfileProcess process) {
  return process == ProfileProcess::kSame ? "same" : "child";
}

const char* ToString(Exclusive exclusive) {
  return exclusive == Exclusive::kWait ? "wait" : exclusive == Exclusive::kFail ? "fail" : "warn";
}

const char* ToString(Thermal thermal) { return thermal == Thermal::kWait ? "wait" : "none"; }

const char* ToString(Stopping stopping) { return stopping == Stopping::kGb ? "gb" : "precision"; }

const char* ToString(Signature signature) { return signature == Signature::kOff ? "off" : "on"; }

const char* ToString(DeviceOrder order) {
  return order == DeviceOrder::kAllAtOnce ? "all_at_once" : "one_at_a_time";
}

namespace detail {
namespace {

// Reads one of an enum's names (those ToString prints) into `*out`.
template <typename Enum>
std::string ParseChoice(std::string_view text, std::initializer_list<Enum> choices, Enum* out) {
  std::string valid;
  for (Enum choice : choices) {
    if (text == ToString(choice)) {
      *out = choice;
      return "";
    }
    valid += (valid.empty() ? "" : "|") + std::string(ToString(choice));
  }
  return "'" + std::string(text) + "' is not one of " + valid;
}

std::string ParseInt(std::string_view text, int low, int high, int* out) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < low || value > high) {
    return "'" + std::string(text) + "' is not a whole number from " + std::to_string(low) +
           " to " + std::to_string(high);
  }
  *out = value;
  return "";
}

// A decimal number in [low, high] (low itself only when low_included); `what` names the unit.
std::string ParseNumber(std::string_view text, double low, bool low_included, double high,
                        const char* what, double* out) {
  const std::string copy(text);
  char* end = nullptr;
  const double value = copy.empty() ? 0 : std::strtod(copy.c_str(), &end);
  const bool read = !copy.empty() && end == copy.c_str() + copy.size() && std::isfinite(value);
  if (!read || value > high || value < low || (!low_included && value == low)) {
    char range[96];
    std::snprintf(range, sizeof(range), "%s %g to %g", low_included ? "from" : "above", low, high);
    return "'" + copy + "' is not a number " + range + " (" + what + ")";
  }
  *out = value;
  return "";
}

std::string PrintNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

// The settings of the rule are fingerprinted with it, in gpubench_stopping_rule.
KeyValues InStoppingRule(const Settings&) { return {}; }

// What gpubench_stopping_rule fingerprints: the rule and, for gpubench's, its settings.
std::string StoppingRuleText(const Settings& settings) {
  if (settings.stopping == Stopping::kGb) return "gb";
  return "precision:" + PrintNumber(settings.precision_percent) +
         "%,min_samples=" + std::to_string(settings.min_samples) +
         ",min_seconds=" + PrintNumber(settings.min_seconds) +
         ",max_seconds=" + PrintNumber(settings.max_seconds);
}

// --gpubench_thermal: none, wait, or wait:MARGIN_C.
std::string ParseThermal(std::string_view text, CommandLine* line) {
  Settings& settings = line->settings;
  if (text == "none") {
    settings.thermal = Thermal::kNone;
    return "";
  }
  if (text.substr(0, 4) != "wait" || (text.size() > 4 && text[4] != ':')) {
    return "'" + std::string(text) + "' is not one of none|wait|wait:MARGIN_C (e.g. wait:5)";
  }
  int margin = 5;
  if (text.size() > 4) {
    if (std::string error = ParseInt(text.substr(5), 1, 50, &margin); !error.empty()) {
      return "wait:MARGIN_C: " + error + " (degrees Celsius above the coolest temperature)";
    }
  }
  settings.thermal = Thermal::kWait;
  settings.thermal_margin_c = margin;
  return "";
}

std::string ThermalText(const Settings& settings) {
  return settings.thermal == Thermal::kNone ? "none"
                                            : "wait:" + std::to_string(settings.thermal_margin_c);
}

std::vector<std::string> SplitMetricList(std::string_view list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    std::string item(list.substr(start, comma - start));
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

// Additions to the default metrics, each name once, defaults first. "+name" adds a group's
// metrics (metric_groups.cpp); no metric name can start with '+', so the two never collide.
std::string ParseMetrics(std::string_view text, CommandLine* line) {
  const std::vector<std::string> items = SplitMetricList(text);
  if (items.empty()) return "empty metric list";
  std::vector<std::string> names;
  for (const std::string& item : items) {
    if (item[0] == kMetricGroupPrefix) {
      const MetricGroup* group = FindMetricGroup(std::string_view(item).substr(1));
      if (group == nullptr) {
        return "'" + item + "' is not a metric group; the groups are " + MetricGroupNames() +
               " (their metrics: --gpubench_list_metrics)";
      }
      names.insert(names.end(), group->metrics.begin(), group->metrics.end());
      continue;
    }
    for (char c : item) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) {
        return "'" + item +
               "' is not a metric name: names use letters, digits, '_' and '.', e.g. "
               "lts__t_sector_hit_rate.pct, and groups start with '+' (" +
               MetricGroupNames() + "; list them with --gpubench_list_metrics)";
      }
    }
    names.push_back(item);
  }
  std::vector<std::string>& metrics = line->settings.metrics;
  for (const std::string& name : names) {
    if (std::find(metrics.begin(), metrics.end(), name) == metrics.end()) metrics.push_back(name);
  }
  return "";
}

std::string JoinSortedUnique(std::vector<std::string> items) {
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

// "all", or ordinals separated by commas, each once, in the order given.
std::string ParseDevices(std::string_view text, CommandLine* line) {
  line->devices.clear();
  line->all_devices = text == "all";
  if (line->all_devices) return "";
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    int device = 0;
    std::string error = ParseInt(text.substr(start, comma - start), 0, 1023, &device);
    if (!error.empty()) return error + " (give all, or device ordinals such as 0,2)";
    if (std::find(line->devices.begin(), line->devices.end(), device) != line->devices.end()) {
      return "device " + std::to_string(device) + " is listed twice";
    }
    line->devices.push_back(device);
    start = comma + 1;
  }
  return "";
}

std::string PrintDevices(const CommandLine& line) {
  if (line.all_devices) return "all";
  std::string out;
  for (int device : line.devices) out += (out.empty() ? "" : ",") + std::to_string(device);
  return out;
}

bool Profiling(const Settings& settings) { return settings.profile_iterations > 0; }

// The units of a duration (--gpubench_reuse_max_age), largest first.
constexpr std::pair<char, double> kDurationUnits[] = {
    {'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}};

// A number of seconds, or a number followed by s, m, h or d ("7d", "36h", "600").
std::string ParseDuration(std::string_view text, double* seconds) {
  double unit = 1;
  std::string_view number = text;
  for (const auto& [suffix, factor] : kDurationUnits) {
    if (!text.empty() && text.back() == suffix) {
      unit = factor;
      number.remove_suffix(1);
    }
  }
  double value = 0;
  const std::string error =
      ParseNumber(number, 0, false, 3650.0 * 86400 / unit, "a duration up to 3650 days", &value);
  if (!error.empty() || number.find_first_not_of("0123456789.") != std::string_view::npos) {
    return "'" + std::string(text) +
           "' is not a duration: give a number above 0 followed by s, m, h or d (e.g. 7d, 36h, "
           "90m; a bare number is seconds), at most 3650 days";
  }
  *seconds = value * unit;
  return "";
}

// In the largest unit that holds it whole ("7d" for 604800 s).
std::string PrintDuration(double seconds) {
  for (const auto& [suffix, factor] : kDurationUnits) {
    const double count = seconds / factor;
    if (count >= 1 && count == std::floor(count)) return PrintNumber(count) + suffix;
  }
  return PrintNumber(seconds) + "s";
}

const std::vector<SettingRow> kSettingRows = {
    {"timer", "events|cupti", "events",
     "GPU time per iteration: CUDA events around the iteration (events) or the sum of its "
     "kernels' durations from CUPTI activity records (cupti)",
     false, true,
     [](std::string_view text, CommandLine* line) {
       return ParseChoice(text, {Timer::kEvents, Timer::kCupti}, &line->settings.timer);
     },
     [](const CommandLine& line) { return std::string(ToString(line.settings.timer)); },
     [](const Settings& settings) -> KeyValues {
       return {{context_key::kTimer, ToString(settings.timer)}};
     }},
    {"cache", "flush|keep", "flush",
     "flush: evict L2 before every iteration, outside the timed region; keep: warm L2", false, true,
     [](std::string_view text, CommandLine* line) {
       return ParseChoice(text, {CachePolicy::kFlush, CachePolicy::kKeep}, &line->settings.cache);
     },
     [](const CommandLine& line) { return std::string(ToString(line.settings.cache)); },
     [](const Settings& settings) -> KeyValues {
       return {{context_key::kCache, ToString(settings.cache)},
               {context_key::kFlushMethod,
                settings.cache == CachePolicy::kFlush ? "l2_read_evict" : "none"},
               {context_key::kLaunchHold,
                settings.cache == CachePolicy::kFlush ? "hold_kernel" : "none"}};
     }},
    {"clock_control", "none", "none",
     "gpubench never locks clocks; the actual SM clock is measured and reported", false, true,
     [](std::string_view text, CommandLine*) -> std::string {
       if (text == "none") return "";
       return "'" + std::string(text) +
              "' is not one of none: gpubench never locks clocks, it reports the clock the "
              "kernels ran at";
     },
     [](const CommandLine&) { return std::string("none"); },
     [](const Settings&) -> KeyValues {
       return {{context_key::kClockControl, "none"}};
     }},
    {"profile_iterations", "N>=0", "3", "profiled iterations per run; 0 turns hardware metrics off",
     true, true,
     [](std::string_view text, CommandLine* line) {
       return ParseInt(text, 0, 1000, &line->settings.profile_iterations);
     },
     [](const CommandLine& line) { return std::to_string(line.settings.profile_iterations); },
     [](const Settings& settings) -> KeyValues {
       return {{context_key::kProfiling, Profiling(settings) ? "on" : "off"}};
     }},
    {"metrics", "NAME[,+GROUP,...]", "",
     "CUPTI metrics, or groups of them (+flops, +l2), to add to the default ones (each may add "
     "replay passes)",
     false, false, ParseMetrics,
     [](const CommandLine& line) { return JoinSortedUnique(line.settings.metrics); },
     [](const Settings& settings) -> KeyValues {
       return {{context_key::kMetrics,
                Profiling(settings) ? JoinSortedUnique(settings.metrics) : "none"}};
     }},
    {"profile_runs", "reported|all", "reported",
     "with profile_process=same: reported profiles the calls GB may report, not its "
     "iteration-count trials; all: every call (the profiling child profiles each instance once)",
     true, true,
     [](std::string_view text, CommandLine* line) {
       return ParseChoice(text, {ProfileRuns::kReported, ProfileRuns::kAll},
                          &line->settings.profile_runs);
     },
     [](const CommandLine& line) { return std::string(ToString(line.settings.profile_runs)); },
     nullptr},
    {"profile_process", "child|same", "child",
     "child: a child process profiles every benchmark before this one times them, so no timed "
     "iteration runs where CUPTI's profiler was set up; same: profile after each timed run in "
     "this process (held short kernels then time 5-10% slower)",
     false, true,
     [](std::string_view text, CommandLine* line) {
       return ParseChoice(text, {ProfileProcess::kChild, ProfileProcess::kSame},
                          &line->settings.profile_process);
     },
     [](const CommandLine& line) { return std::string(ToString(line.settings.profile_process)); },
     [](const Settings& settings) -> KeyValues {
       return {{context_key::kProfileProcess,
                Profiling(settings) ? ToString(settings.profile_process) : "none"}};
     }},
    {"device", "ORDINAL", "0", "CUDA device to benchmark", true, false,
     [](std::string_view text, CommandLine* line) {
       return ParseInt(text, 0, 1023, &line->settings.device);
     },
     [](const CommandLine& line) { return std::to_string(line.settings.device); }, nullptr},
    {"devices", "all|N[,N...]", "",
     "run the suite once per listed GPU, each in a process of its own (one after another, or "
     "at once: device_order); every row's name gets /gpu:N before its time type, e.g. "
     "BM_Copy/1024/gpu:1/"
     "manual_time; needs GPUBENCH_MAIN() or gpubench::Main",
     false, false, ParseDevices, PrintDevices, nullptr},
    {"device_order", "one_at_a_time|all_at_once", "one_at_a_time",
     "--gpubench_devices: run the devices' children one after another, or all at the same time "
     "(the suite takes about as long as one device's; what neighbours do to the numbers is not "
     "measured yet, so all_at_once enters the settings fingerprint)",
     true, false,
     [](std::string_view text, CommandLine* line) {
       return ParseChoice(text, {DeviceOrder::kOneAtATime, DeviceOrder::kAllAtOnce},
                          &line->settings.device_order);
     },
     [](const CommandLine& line) { return std::string(ToString(line.settings.device_order)); },
     // Only all_at_once: the fingerprints of every run made before this setting stay as they were.
     [](const Settings& settings) -> KeyValues {
       if (settings.device_order != DeviceOrder::kAllAtOnce) return {};
       return {{context_key::kDeviceOrder, ToString(settings.device_order)}};
     }},
    {"exclusive", "warn|wait|fail", "warn",
     "another process on the GPU: mark the runs gpu_shared and warn (warn), wait until it is "
     "free (wait: gpubench jobs take turns through a lock file per GPU, other processes are "
     "waited for, at most 600 s each), or skip the benchmark (fail)",
     true, true,
     [](std::string_view text, CommandLine* line) {
       return ParseChoice(text, {Exclusive::kWarn, Exclusive::kWait, Exclusive::kFail},
                          &line->settings.exclusive);
     },
     [](const CommandLine& line) { return std::string(ToString(line.settings.exclusive)); },
     nullptr},
    {"lock_dir", "DIR", "",
     "exclusive=wait: the folder of the lock files, one per GPU (default: a folder of this user's "
     "alone, $XDG_RUNTIME_DIR, else $TMPDIR, else /tmp, then /gpubench-<uid>); give a folder the "
     "users share, such as /run/lock, for jobs of several users to take turns",
     false, false,
     [](std::string_view text, CommandLine* line) -> std::string {
       if (text.empty()) return "an empty folder name (give a folder, e.g. /run/lock)";
       line->lock_dir = std::string(text);
       return "";
     },
     [](const CommandLine& line) { return line.lock_dir; }, nullptr},
    {"thermal", "none|wait[:MARGIN_C]", "none",
     "the GPU's heat before each benchmark: time it as it is (none; every row still records "
     "temperature, power and NVML's clock-event reasons), or first wait until it is at most "
     "MARGIN_C degrees (default 5) above the coolest temperature read since the start, with no "
     "heat or power clock-event reason active (wait; at most 120 s per benchmark)",
     true, false, ParseThermal, [](const CommandLine& line) { return ThermalText(line.settings); },
     [](const Settings& settings) -> KeyValues {
       // A cooled GPU boosts higher at first: such numbers are not compared with uncooled ones.
       // Absent for none, so that the fingerprints of runs made before the setting stay valid.
       if (settings.thermal == Thermal::kNone) return {};
       return {{context_key::kThermal, ThermalText(settings)}};
     }},
    {"stopping", "precision|gb", "precision",
     "when a repetition has taken enough timed samples: precision (the 95% confidence "
     "half-width of its mean GPU time, from its own samples taken as correlated, within "
     "--gpubench_precision percent of it, after "
     "--gpubench_min_samples samples and --gpubench_min_seconds, or --gpubench_max_seconds of "
     "wall time if that comes first) or gb (GB's trial calls until one holds "
     "--benchmark_min_time of GPU time, 0.5 s by default); --benchmark_min_time, ->MinTime() and "
     "->Iterations() keep GB's rule, and so does a main of your own on GB 1.7 or beside a "
     "benchmark of GB's own",
     true, true,
     [](std::string_view text, CommandLine* line) {
       return ParseChoice(text, {Stopping::kPrecision, Stopping::kGb}, &line->settings.stopping);
     },
     [](const CommandLine& line) { return std::string(ToString(line.settings.stopping)); },
     [](const Settings& settings) -> KeyValues {
       return {{context_key::kStoppingRule, StoppingRuleText(settings)}};
     }},
    {"precision", "PERCENT", "0.2",
     "stopping=precision: the target half-width of the 95% confidence interval of a "
     "repetition's mean GPU time, in percent of it (from the repetition's own samples: the wider "
     "of independent samples and 10 batch means)",
     true, false,
     [](std::string_view text, CommandLine* line) {
       if (!text.empty() && text.back() == '%') text.remove_suffix(1);
       return ParseNumber(text, 0, false, 100, "percent of the mean GPU time, e.g. 0.2",
                          &line->settings.precision_percent);
     },
     [](const CommandLine& line) { return PrintNumber(line.settings.precision_percent); },
     InStoppingRule},
    {"min_samples", "N>=2", "10", "stopping=precision: the fewest timed samples per repetition",
     true, false,
     [](std::string_view text, CommandLine* line) {
       return ParseInt(text, 2, 1000000000, &line->settings.min_samples);
     },
     [](const CommandLine& line) { return std::to_string(line.settings.min_samples); },
     InStoppingRule},
    {"min_seconds", "SECONDS", "0.1",
     "stopping=precision: the fewest wall seconds of timed samples per repetition", true, false,
     [](std::string_view text, CommandLine* line) {
       return ParseNumber(text, 0, true, 3600, "seconds", &line->settings.min_seconds);
     },
     [](const CommandLine& line) { return PrintNumber(line.settings.min_seconds); },
     InStoppingRule},
    {"max_seconds", "SECONDS", "0.5",
     "stopping=precision: the most wall seconds a repetition spends, its warm-up included; it "
     "wins over the precision target and the minimums (but a repetition takes two samples)",
     true, false,
     [](std::string_view text, CommandLine* line) {
       return ParseNumber(text, 0, false, 3600, "seconds", &line->settings.max_seconds);
     },
     [](const CommandLine& line) { return PrintNumber(line.settings.max_seconds); },
     InStoppingRule},
    {"profile_out", "FILE", "", "append per-range metric values of every profiled run (JSON lines)",
     false, false,
     [](std::string_view text, CommandLine* line) {
       line->profile_out = std::string(text);
       return std::string();
     },
     [](const CommandLine& line) { return line.profile_out; }, nullptr},
    {"samples_out", "FILE", "",
     "append every timed sample's GPU time of every repetition (JSON lines; cache=flush, "
     "timer=events)",
     false, false,
     [](std::string_view text, CommandLine* line) {
       line->samples_out = std::string(text);
       return std::string();
     },
     [](const CommandLine& line) { return line.samples_out; }, nullptr},
    // The signature and reuse decide which rows are measured, not what a measured number means:
    // never in the fingerprint, so that a run that reuses compares equal with a full run.
    {"signature", "on|off", "on",
     "record each instance's work signature (counter work_signature), so that a later run can "
     "reuse this one's rows; off takes no CUPTI callbacks before a warm-up body (reuse needs on)",
     true, false,
     [](std::string_view text, CommandLine* line) {
       return ParseChoice(text, {Signature::kOn, Signature::kOff}, &line->settings.signature);
     },
     [](const CommandLine& line) { return std::string(ToString(line.settings.signature)); },
     nullptr},
    {"reuse", "PATH", "",
     "a previous run's JSON file, or a folder of runs (its newest is read): an instance whose "
     "work signature equals its row there is not measured, its row carries that row's values "
     "(counter reuse_status says which and why)",
     false, false,
     [](std::string_view text, CommandLine* line) -> std::string {
       if (text.empty()) {
         return "an empty path: give a previous run's JSON file or a folder of runs (leave the "
                "flag out to measure everything)";
       }
       line->settings.reuse_path = std::string(text);
       return "";
     },
     [](const CommandLine& line) { return line.settings.reuse_path; }, nullptr},
    {"reuse_max_runs", "N>=0", "5",
     "reuse: a row's values are reused at most N runs in a row, then measured again; 0 measures "
     "every row",
     false, false,
     [](std::string_view text, CommandLine* line) {
       return ParseInt(text, 0, 1000000, &line->settings.reuse_max_runs);
     },
     [](const CommandLine& line) { return std::to_string(line.settings.reuse_max_runs); }, nullptr},
    {"reuse_max_age", "DURATION", "7d",
     "reuse: a source row measured longer ago than this is measured again (a number followed by "
     "s, m, h or d; a bare number is seconds)",
     false, false,
     [](std::string_view text, CommandLine* line) {
       return ParseDuration(text, &line->settings.reuse_max_age_seconds);
     },
     [](const CommandLine& line) { return PrintDuration(line.settings.reuse_max_age_seconds); },
     nullptr},
};

const std::vector<SettingRow> kActionRows = {
    {"list_metrics", "[FILTER]", "",
     "print the metrics the chip supports (name, unit, description)", false, false,
     [](std::string_view text, CommandLine* line) {
       line->list_metrics = true;
       line->list_metrics_filter = std::string(text);
       return std::string();
     },
     [](const CommandLine& line) { return line.list_metrics_filter; }, nullptr},
    {"chip", "NAME", "", "with list_metrics: list for this chip (e.g. GH100) without a GPU", false,
     false,
     [](std::string_view text, CommandLine* line) {
       line->chip = std::string(text);
       return std::string();
     },
     [](const CommandLine& line) { return line.chip; }, nullptr},
};

}  // namespace

const std::vector<SettingRow>& SettingRows() { return kSettingRows; }

const std::vector<SettingRow>& ActionRows() { return kActionRows; }

KeyValues FingerprintedSettings(const Settings& settings) {
  KeyValues entries = {{context_key::kMethodVersion, std::to_string(kMethodVersion)}};
  for (const SettingRow& row : kSettingRows) {
    if (row.fingerprint == nullptr) continue;
    for (auto& entry : row.fingerprint(settings)) entries.push_back(std::move(entry));
  }
  return entries;
}

std::string SettingsFingerprint(const Settings& settings) {
  KeyValues entries = FingerprintedSettings(settings);
  std::sort(entries.begin(), entries.end());
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a offset basis
  for (const auto& [key, value] : entries) {
    for (unsigned char c : key + "=" + value + "\n") {
      hash ^= c;
      hash *= 0x100000001b3ULL;  // FNV prime
    }
  }
  char buffer[17];
  std::snprintf(buffer, sizeof(buffer), "%016" PRIx64, hash);
  return buffer;
}

}  // namespace detail
}  // namespace gpubench
