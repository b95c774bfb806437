#include "settings_parse.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>

extern char** environ;

namespace gpubench::detail {
namespace {

constexpr const char kFlagPrefix[] = "--gpubench_";
constexpr const char kEnvPrefix[] = "GPUBENCH_";

// One row per setting: flag name (after the prefix), accepted values, help text.
struct SettingSpec {
  const char* name;
  const char* values;
  const char* help;
};

const std::vector<SettingSpec>& SettingSpecs() {
  static const std::vector<SettingSpec> specs = {
      {"timer", "events|cupti",
       "GPU time per iteration: CUDA events around the iteration (events) or the sum of its "
       "kernels' durations from CUPTI activity records (cupti)"},
      {"cache", "flush|keep",
       "flush: evict L2 before every iteration, outside the timed region; keep: warm L2"},
      {"clock_control", "none",
       "gpubench never locks clocks; the actual SM clock is measured and reported"},
      {"metrics", "NAME[,NAME...]",
       "CUPTI metrics to add to the default ones (each adds replay passes)"},
      {"profile_iterations", "N>=0", "profiled iterations per run; 0 turns hardware metrics off"},
      {"profile_runs", "reported|all",
       "reported: profile the calls GB may report, not its iteration-count trials; all: every "
       "call"},
      {"device", "ORDINAL", "CUDA device to benchmark"},
      {"exclusive", "warn|wait|fail",
       "another process on the GPU: mark the runs gpu_shared and warn (warn), wait until it is "
       "free (wait, at most 600 s per benchmark), or skip the benchmark (fail)"},
      {"profile_out", "FILE", "append per-range metric values of every profiled run (JSON lines)"},
  };
  return specs;
}

// Actions: flags only, no environment variable.
const std::vector<SettingSpec>& ActionSpecs() {
  static const std::vector<SettingSpec> specs = {
      {"list_metrics", "[FILTER]", "print the metrics the chip supports (name, unit, description)"},
      {"chip", "NAME", "with list_metrics: list for this chip (e.g. GH100) without a GPU"},
  };
  return specs;
}

std::string ValidFlagList() {
  std::string out;
  for (const auto* specs : {&SettingSpecs(), &ActionSpecs()}) {
    for (const auto& spec : *specs) {
      out += "  " + std::string(kFlagPrefix) + spec.name + "=" + spec.values + "\n";
    }
  }
  return out;
}

std::string ValidEnvList() {
  std::string out;
  for (const auto& spec : SettingSpecs()) {
    std::string name = spec.name;
    std::transform(name.begin(), name.end(), name.begin(), ::toupper);
    out += "  " + std::string(kEnvPrefix) + name + "=" + spec.values + "\n";
  }
  return out;
}

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string> SplitMetricList(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream stream(list);
  std::string item;
  while (std::getline(stream, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Values as typed, before they become Settings.
struct RawValues {
  std::string timer = "events";
  std::string cache = "flush";
  std::string clock_control = "none";
  std::string metrics;
  int profile_iterations = 3;
  std::string profile_runs = "reported";
  int device = 0;
  std::string exclusive = "warn";
  std::string profile_out;
  std::string list_metrics_filter;
  std::string chip;
  bool list_metrics = false;
};

CLI::Validator MetricNameList() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        for (const auto& name : SplitMetricList(value)) {
          for (char c : name) {
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) {
              return "'" + name +
                     "' is not a metric name: names use letters, digits, '_' and '.', "
                     "e.g. lts__t_sector_hit_rate.pct (list them with --gpubench_list_metrics)";
            }
          }
        }
        if (SplitMetricList(value).empty()) return "empty metric list";
        return std::string();
      },
      "METRIC[,METRIC...]");
}

// Parses `args` (gpubench flags only) into `raw`; options not given leave `raw` as it was.
std::string ApplyFlags(const std::vector<std::string>& args, bool allow_actions, RawValues* raw) {
  CLI::App app("gpubench");
  app.set_help_flag();
  auto name = [](const char* flag) { return std::string(kFlagPrefix) + flag; };
  app.add_option(name("timer"), raw->timer)->check(CLI::IsMember({"events", "cupti"}));
  app.add_option(name("cache"), raw->cache)->check(CLI::IsMember({"flush", "keep"}));
  app.add_option(name("clock_control"), raw->clock_control)
      ->check(CLI::IsMember({"none"}).description(
          "gpubench never locks clocks: it reports the clock the kernels ran at"));
  app.add_option(name("metrics"), raw->metrics)->check(MetricNameList());
  app.add_option(name("profile_iterations"), raw->profile_iterations)->check(CLI::Range(0, 1000));
  app.add_option(name("profile_runs"), raw->profile_runs)
      ->check(CLI::IsMember({"reported", "all"}));
  app.add_option(name("device"), raw->device)->check(CLI::Range(0, 1023));
  app.add_option(name("exclusive"), raw->exclusive)->check(CLI::IsMember({"warn", "wait", "fail"}));
  app.add_option(name("profile_out"), raw->profile_out);
  CLI::Option* list = nullptr;
  if (allow_actions) {
    list = app.add_option(name("list_metrics"), raw->list_metrics_filter)->expected(0, 1);
    app.add_option(name("chip"), raw->chip);
  }
  std::vector<const char*> argv = {"gpubench"};
  for (const auto& arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& error) {
    return error.what();
  }
  if (list != nullptr && list->count() > 0) raw->list_metrics = true;
  return std::string();
}

}  // namespace

Environment ProcessEnvironment() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string text(*entry);
    auto equals = text.find('=');
    if (equals != std::string::npos) env[text.substr(0, equals)] = text.substr(equals + 1);
  }
  return env;
}

ParseResult ParseCommandLine(const std::vector<std::string>& args, const Environment& env) {
  ParseResult result;
  RawValues raw;

  // Environment first, so that flags override it.
  std::vector<std::string> env_flags;
  for (const auto& [key, value] : env) {
    if (!StartsWith(key, kEnvPrefix)) continue;
    std::string name = key.substr(sizeof(kEnvPrefix) - 1);
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    const auto& specs = SettingSpecs();
    bool known = std::any_of(specs.begin(), specs.end(),
                             [&](const SettingSpec& spec) { return name == spec.name; });
    if (!known) {
      result.error = "unknown environment variable " + key + "; gpubench reads:\n" + ValidEnvList();
      return result;
    }
    std::string error = ApplyFlags({kFlagPrefix + name + "=" + value}, false, &raw);
    if (!error.empty()) {
      result.error = "bad environment variable " + key + "=" + value + ": " + error +
                     "\nvalid variables:\n" + ValidEnvList();
      return result;
    }
  }

  std::vector<std::string> ours;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0 && StartsWith(args[i], kFlagPrefix)) {
      ours.push_back(args[i]);
    } else {
      result.command_line.remaining_args.push_back(args[i]);
    }
  }
  std::string error = ApplyFlags(ours, true, &raw);
  if (!error.empty()) {
    result.error = error + "\nvalid gpubench flags:\n" + ValidFlagList();
    return result;
  }

  Settings& settings = result.command_line.settings;
  settings.timer = raw.timer == "cupti" ? Timer::kCupti : Timer::kEvents;
  settings.cache = raw.cache == "keep" ? CachePolicy::kKeep : CachePolicy::kFlush;
  settings.metrics = DefaultMetrics();
  for (const auto& metric : SplitMetricList(raw.metrics)) {
    if (std::find(settings.metrics.begin(), settings.metrics.end(), metric) ==
        settings.metrics.end()) {
      settings.metrics.push_back(metric);
    }
  }
  settings.profile_iterations = raw.profile_iterations;
  settings.profile_runs = raw.profile_runs == "all" ? ProfileRuns::kAll : ProfileRuns::kReported;
  settings.device = raw.device;
  settings.exclusive = raw.exclusive == "wait"   ? Exclusive::kWait
                       : raw.exclusive == "fail" ? Exclusive::kFail
                                                 : Exclusive::kWarn;
  result.command_line.profile_out = raw.profile_out;
  result.command_line.list_metrics = raw.list_metrics;
  result.command_line.list_metrics_filter = raw.list_metrics_filter;
  result.command_line.chip = raw.chip;
  result.ok = true;
  return result;
}

std::string FlagHelp() {
  std::ostringstream out;
  out << "\ngpubench flags (environment variable GPUBENCH_<NAME> works too; flags win):\n";
  for (const auto* specs : {&SettingSpecs(), &ActionSpecs()}) {
    for (const auto& spec : *specs) {
      out << "  " << kFlagPrefix << spec.name << "=" << spec.values << "\n      " << spec.help
          << "\n";
    }
  }
  return out.str();
}

}  // namespace gpubench::detail
