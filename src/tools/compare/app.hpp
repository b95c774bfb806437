// Everything gpubench-compare does after its command line is parsed.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "tools/compare/report_format.hpp"
#include "tools/gate/comparison.hpp"

namespace gpubench::tools {

enum class ColorMode { kAuto, kAlways, kNever };

struct AppOptions {
  /// One baseline file, or several runs of the same suite (a history, see CompareWithHistory).
  std::vector<std::string> baseline_paths;
  std::string contender_path;
  CompareOptions compare;
  OutputFormat format = OutputFormat::kConsole;
  ColorMode color = ColorMode::kAuto;
  /// --metrics: the console and Markdown tables' metric rows (JSON and CSV have every row).
  MetricRows metric_rows = MetricRows::kGated;
  std::string output_path;  ///< empty: the report goes to `out`
  /// false: RunComparison leaves the loaded files and the report allocated
  /// (for a process that exits right after; freeing millions of small blocks
  /// of large inputs takes about 0.1 s).
  bool free_memory = true;
};

/// Loads the files (in parallel), compares, writes the report and returns
/// the exit code. With --output and a non-console format, `out` also gets the
/// console table so one run serves both the log and the artifact.
int RunComparison(const AppOptions& options, std::ostream& out, std::ostream& err,
                  bool out_is_terminal);

}  // namespace gpubench::tools
