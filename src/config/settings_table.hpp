// The one table of gpubench's settings. The command line and environment parser, --help, the
// context block, the console banner and the settings fingerprint are all made from it, so a
// setting is spelled out once (settings_table.cpp).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpubench/settings.hpp"

namespace gpubench::detail {

/// Key/value pairs in a fixed order (the context block, the fingerprinted settings).
using KeyValues = std::vector<std::pair<std::string, std::string>>;

/// What the command line asked gpubench for.
struct CommandLine {
  Settings settings;
  /// argv without gpubench's flags, argv[0] first: what GB parses next.
  std::vector<std::string> remaining_args;
  /// --gpubench_list_metrics[=FILTER]: print the chip's metrics and exit.
  bool list_metrics = false;
  std::string list_metrics_filter;
  /// --gpubench_chip=NAME: the chip whose metrics are listed, no GPU needed (e.g. GH100).
  std::string chip;
  /// --gpubench_profile_out=FILE: per-range metric values of every profiled run, JSON lines.
  std::string profile_out;
  /// --gpubench_samples_out=FILE: every timed sample of every repetition, JSON lines.
  std::string samples_out;
  /// --gpubench_lock_dir=DIR: where --gpubench_exclusive=wait keeps its lock files ("" for the
  /// per-user default, gpu_lock.hpp DefaultGpuLockDirectory).
  std::string lock_dir;
  /// --gpubench_devices=all|N[,N...]: run the suite once per device, rows named .../gpu:N/...
  /// Neither set: one device (--gpubench_device), names as GB gives them.
  bool all_devices = false;
  std::vector<int> devices;
};

/// One setting: the flag --gpubench_<name>, the variable GPUBENCH_<NAME> (settings, not
/// actions) and, where it is recorded, the context key gpubench_<name>.
struct SettingRow {
  std::string_view name;
  std::string_view values;         ///< what is accepted, for --help and error messages
  std::string_view default_value;  ///< as typed ("" for none)
  std::string_view meaning;        ///< --help's line
  /// Written to the context block as gpubench_<name> (its fingerprint entries always are).
  bool in_context;
  bool in_banner;  ///< printed in the console banner as name=value
  /// Reads `text` into `line`: "" when it was valid, else what was wrong and what would be right.
  std::string (*parse)(std::string_view text, CommandLine* line);
  /// The value as the context block and the banner show it.
  std::string (*print)(const CommandLine& line);
  /// Its entries of the settings fingerprint (context keys and values), in order; null when the
  /// setting does not change what a number means.
  KeyValues (*fingerprint)(const Settings& settings);
};

/// Settings: flags and environment variables, in the order of --help.
const std::vector<SettingRow>& SettingRows();
/// Actions: flags only (list the metrics, for a chip).
const std::vector<SettingRow>& ActionRows();

/// Bumped whenever the measurement method changes what a number means (fingerprinted).
/// 2: cache=flush holds each timed body's launches behind a stream hold (launch_held).
/// 3: with hardware metrics on, a child process profiles (profile_process=child), so the timed
///    process never sets up CUPTI's profiler (held short kernels were 5-10% slower with it).
/// 4: a repetition samples until its mean GPU time is precise enough or its wall budget is spent
///    (stopping=precision), instead of GB's min_time of GPU time.
/// 5: the rule and precision_pct take correlated samples into account (the wider of independent
///    samples and 10 batch means), precision_pct adds the spread between the instance's calls,
///    and the default target is 0.2% (docs/accuracy.md "The precision of a repetition").
/// 6: the profiled range pauses where the body enters a gpubench::UntimedScope, as the GPU time
///    does, so the hardware counters (bytes, gpu_duration) leave the scope's work out.
inline constexpr int kMethodVersion = 6;

/// The settings that change what a number means, as context keys and values: the method version,
/// then each row's fingerprint entries. The fingerprint is a hash of exactly these.
KeyValues FingerprintedSettings(const Settings& settings);

/// 16 hex digits: FNV-1a (64 bit) of the sorted "key=value" lines of FingerprintedSettings.
std::string SettingsFingerprint(const Settings& settings);

}  // namespace gpubench::detail
