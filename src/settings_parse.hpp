// Turning --gpubench_* flags and GPUBENCH_* environment variables into Settings.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gpubench/settings.hpp"

namespace gpubench::detail {

/// The process environment, or a fake one in tests.
using Environment = std::map<std::string, std::string>;
Environment ProcessEnvironment();

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
};

struct ParseResult {
  bool ok = false;
  std::string error;  ///< what was wrong and what would be right (when !ok)
  CommandLine command_line;
};

/// Flags win over environment variables, which win over defaults. Unknown --gpubench_* flags
/// and GPUBENCH_* variables are errors, like bad values.
ParseResult ParseCommandLine(const std::vector<std::string>& args, const Environment& env);

/// gpubench's part of --help.
std::string FlagHelp();

}  // namespace gpubench::detail
