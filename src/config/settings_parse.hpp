// Turning --gpubench_* flags and GPUBENCH_* environment variables into Settings, by the rows of
// the settings table (settings_table.hpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config/settings_table.hpp"

namespace gpubench::detail {

/// The process environment, or a fake one in tests.
using Environment = std::map<std::string, std::string>;
Environment ProcessEnvironment();

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
