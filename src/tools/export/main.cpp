// gpubench-export: gpubench results for continuous-benchmarking dashboards
// (github-action-benchmark's custom format, Bencher Metric Format).
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/base/output_file.hpp"
#include "tools/export/export_format.hpp"
#include "tools/export/run_table.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/run_summary.hpp"
#include "tools/load/cut_off.hpp"
#include "tools/load/loader.hpp"

namespace {

using gpubench::detail::Result;
using gpubench::detail::Status;
using gpubench::tools::ExportResult;
using gpubench::tools::kExitBadInput;
using gpubench::tools::kExitOk;
using gpubench::tools::kExitSettingsMismatch;

// gpubench-compare's "nothing compared": CI already tells it from a pass and from a regression.
constexpr int kExitNothingExported = gpubench::tools::kExitNothingCompared;

constexpr const char* kDescription =
    "Export gpubench / Google Benchmark JSON for dashboards and notebooks: github-action-\n"
    "benchmark's custom format (two files, customSmallerIsBetter and customBiggerIsBetter) or\n"
    "Bencher Metric Format (medians over the repetitions; default counters: real_time and the\n"
    "counters gpubench-compare gates), or a tidy CSV table for pandas (--to csv: one row per\n"
    "benchmark, repetition or aggregate, and counter, with unit, direction and settings; every\n"
    "counter by default; codes such as stop_reason in words, without aggregates). A file cut\n"
    "off mid-write (a killed run) exports its complete rows,\n"
    "with a warning. Exit codes: 0 written, 2 bad input or usage (also an output that is an\n"
    "input, or a write that failed), 3 the input files' gpubench settings fingerprints differ\n"
    "(or one has none), 4 nothing exported (every benchmark an error or skipped, or none at all:\n"
    "a CSV of only its header, an empty Bencher file, no github-action-benchmark file).";

constexpr std::size_t kMaxNotes = 10;

// A failed write says why on stderr and exits 2: a dashboard step whose file is lost must not pass.
int WriteFailed(const Status& status) {
  std::cerr << "gpubench-export: error: " << status.message() << "\n";
  return kExitBadInput;
}

void PrintNotes(const std::vector<std::string>& notes) {
  for (std::size_t i = 0; i < notes.size() && i < kMaxNotes; ++i) {
    std::cerr << "gpubench-export: note: " << notes[i] << "\n";
  }
  if (notes.size() > kMaxNotes) {
    std::cerr << "gpubench-export: note: " << notes.size() - kMaxNotes
              << " more benchmarks or values left out\n";
  }
}

int ExitFor(const Status& status);

// Bencher's file and --list-measures' table: stdout for "" or "-", else the file, whole or not at
// all.
int WriteText(const std::string& output, const std::string& text) {
  const Status written = output.empty() || output == "-"
                             ? gpubench::tools::WriteStandardOutput(text)
                             : gpubench::tools::WriteOutputFile(output, text);
  return written.ok() ? kExitOk : WriteFailed(written);
}

// An export without a value is no success: a CI runner without a working GPU writes a run whose
// every row is an error, and its dashboard step must not pass as if it had measured something.
// One line says why; the notes would list every failed benchmark again.
int NothingExported(const gpubench::tools::BenchmarkFile& run,
                    const std::vector<std::string>& notes) {
  std::cerr << "gpubench-export: nothing exported: "
            << gpubench::tools::WhyNothingExported(run, notes) << "\n";
  return kExitNothingExported;
}

// --to csv: the table on stdout, or in `output` (a whole table or none: OutputFile).
int WriteCsv(const gpubench::tools::BenchmarkFile& run, const std::string& output,
             const gpubench::tools::ExportOptions& options) {
  const bool to_stdout = output.empty() || output == "-";
  gpubench::tools::OutputFile file;
  if (to_stdout) {
    file.OpenStandardOutput();
  } else if (Status opened = file.Open(output); !opened.ok()) {
    return WriteFailed(opened);
  }
  const Result<gpubench::tools::RunTableResult> written = gpubench::tools::WriteRunTable(
      run, options, [&file](std::string_view text) { file.Write(text); });
  if (!written.ok()) return ExitFor(written.status());  // the file's destructor removes it
  const bool nothing = written.value().rows == 0;
  if (!nothing) PrintNotes(written.value().notes);
  if (Status finished = file.Commit(); !finished.ok()) return WriteFailed(finished);
  if (!to_stdout) {
    std::cout << "wrote " << output << ": " << written.value().rows << " rows of "
              << written.value().benchmarks << " benchmarks\n";
  }
  return nothing ? NothingExported(run, written.value().notes) : kExitOk;
}

// github-action-benchmark's two files: PREFIX.customSmallerIsBetter.json and
// PREFIX.customBiggerIsBetter.json (a PREFIX ending in .json loses it).
std::string GithubActionBenchmarkPath(std::string prefix, std::string_view tool) {
  if (prefix.size() > 5 && prefix.compare(prefix.size() - 5, 5, ".json") == 0)
    prefix.resize(prefix.size() - 5);
  return prefix + "." + std::string(tool) + ".json";
}

// The files the export writes (or removes): none of them may be one of its inputs.
Status CheckOutputs(const std::vector<std::string>& inputs, const std::string& target,
                    const std::string& output) {
  if (target != "github-action-benchmark") {
    return gpubench::tools::CheckOutputIsNoInput(output, "--output", inputs);
  }
  const std::string prefix = output.empty() ? "gpubench" : output;
  for (std::string_view tool :
       {gpubench::tools::kSmallerIsBetterTool, gpubench::tools::kBiggerIsBetterTool}) {
    GPUBENCH_RETURN_IF_ERROR(gpubench::tools::CheckOutputIsNoInput(
        GithubActionBenchmarkPath(prefix, tool), "--output's file", inputs));
  }
  return Status::Ok();
}

// github-action-benchmark: a direction without values gets no file (the action fails on an empty
// array); a file of an earlier export at that path is removed so that it is not uploaded again.
int WriteGithubActionBenchmark(const ExportResult& result, const std::string& prefix) {
  const struct {
    const gpubench::tools::ExportedFile& file;
    std::string_view tool;
  } outputs[] = {{result.smaller_is_better, gpubench::tools::kSmallerIsBetterTool},
                 {result.bigger_is_better, gpubench::tools::kBiggerIsBetterTool}};
  for (const auto& output : outputs) {
    const std::string path = GithubActionBenchmarkPath(prefix, output.tool);
    if (output.file.count == 0) {
      const bool removed = std::remove(path.c_str()) == 0;
      std::cout << "no " << output.tool << " series: " << path << " not written"
                << (removed ? " (the earlier file was removed)" : "") << "\n";
      continue;
    }
    if (Status written = gpubench::tools::WriteOutputFile(path, output.file.text); !written.ok()) {
      return WriteFailed(written);
    }
    std::cout << "wrote " << path << ": " << output.file.count << " series (tool: " << output.tool
              << ")\n";
  }
  return kExitOk;
}

// Prints a failed Status and returns its exit code.
int ExitFor(const Status& status) {
  std::cerr << "gpubench-export: error: " << status.message() << "\n";
  if (status.code() != Status::Code::kSettingsMismatch) return kExitBadInput;
  std::cerr << "gpubench-export: files of one run must share their settings; not exporting.\n";
  return kExitSettingsMismatch;
}

// Everything after the command line: load, export, write.
int Export(const std::vector<std::string>& inputs, const std::string& target,
           const std::string& output, bool list_measures,
           const gpubench::tools::ExportOptions& options) {
  if (Status checked = list_measures
                           ? gpubench::tools::CheckOutputIsNoInput(output, "--output", inputs)
                           : CheckOutputs(inputs, target, output);
      !checked.ok()) {
    std::cerr << "gpubench-export: usage error: " << checked.message() << "\n";
    return kExitBadInput;
  }
  if (list_measures && inputs.empty()) {
    return WriteText(
        output, gpubench::tools::FormatMeasureTable(gpubench::tools::ListBencherMeasures(nullptr)));
  }
  const Result<gpubench::tools::BenchmarkFile> loaded = gpubench::tools::LoadRun(inputs);
  if (!loaded.ok()) return ExitFor(loaded.status());
  const gpubench::tools::BenchmarkFile& run = loaded.value();
  // A cut-off run is exported as far as it goes (exit 0): gating is gpubench-compare's job, and
  // a dashboard is better off with the benchmarks that finished than with none.
  for (const gpubench::tools::CutOffFile& cut : run.cut_off) {
    std::cerr << "gpubench-export: warning: " << gpubench::tools::DescribeCutOff(cut)
              << "; only the recovered benchmarks are exported\n";
  }
  for (const std::string& warning : run.warnings) {
    std::cerr << "gpubench-export: warning: " << warning << "\n";
  }
  if (list_measures) {
    return WriteText(
        output, gpubench::tools::FormatMeasureTable(gpubench::tools::ListBencherMeasures(&run)));
  }
  if (target == "csv") return WriteCsv(run, output, options);
  const bool bencher = target == "bencher";
  const Result<ExportResult> exported =
      bencher ? gpubench::tools::ExportBencher(run, options)
              : gpubench::tools::ExportGithubActionBenchmark(run, options);
  if (!exported.ok()) return ExitFor(exported.status());
  const ExportResult& result = exported.value();
  const bool nothing = result.benchmarks == 0;
  if (!nothing) PrintNotes(result.notes);
  if (!bencher) {
    const int written = WriteGithubActionBenchmark(result, output.empty() ? "gpubench" : output);
    return written == kExitOk && nothing ? NothingExported(run, result.notes) : written;
  }
  if (const int written = WriteText(output, result.bmf.text); written != kExitOk) return written;
  if (!output.empty() && output != "-") {
    std::cout << "wrote " << output << ": " << result.benchmarks << " benchmarks, "
              << result.bmf.count << " metrics (adapter: json)\n";
  }
  return nothing ? NothingExported(run, result.notes) : kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> inputs, counters, direction_specs;
  std::string target, output;
  bool list_measures = false;

  CLI::App app{kDescription, "gpubench-export"};
  app.add_option("RESULTS", inputs,
                 "gpubench JSON (--benchmark_out); several files are the shards of one run");
  app.add_option("--to", target, "Dashboard format")
      ->check(CLI::IsMember({"github-action-benchmark", "bencher", "csv"}));
  app.add_option("--counters", counters,
                 "Comma-separated metrics to export (time = real_time; a name ending in / takes "
                 "every counter with that prefix, e.g. kernel_time/). Default: real_time and "
                 "the gated counters (dram_read_bytes, dram_write_bytes, bytes_moved, "
                 "dram_bandwidth) the file has; for csv every counter")
      ->delimiter(',');
  app.add_option("--direction", direction_specs,
                 "METRIC=higher|lower for a counter gpubench does not know (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--output,-o", output,
                 "bencher and csv: the file (default: stdout). github-action-benchmark: the prefix "
                 "of the two files PATH.customSmallerIsBetter.json and "
                 "PATH.customBiggerIsBetter.json (default: gpubench)");
  app.add_flag("--list-measures", list_measures,
               "Print each Bencher measure's counter, name, slug and units (of RESULTS when "
               "given, else of every counter gpubench writes) and exit");

  gpubench::tools::ExportOptions options;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::ParseError& error) {
    std::cerr << "gpubench-export: usage error: " << error.what() << "\n"
              << "Run 'gpubench-export --help' for usage.\n";
    return kExitBadInput;
  }
  gpubench::detail::Status status =
      gpubench::tools::AddPolicyOverrides({}, direction_specs, options.overrides);
  if (status.ok() && !list_measures && (inputs.empty() || target.empty())) {
    status = gpubench::detail::Status::InvalidInput(
        "give RESULTS and --to github-action-benchmark|bencher|csv (or --list-measures)");
  }
  if (!status.ok()) {
    std::cerr << "gpubench-export: usage error: " << status.message() << "\n";
    return kExitBadInput;
  }
  options.metrics = counters;
  try {
    return Export(inputs, target, output, list_measures, options);
  } catch (const std::bad_alloc&) {
    std::cerr << "gpubench-export: error: out of memory\n";
    return kExitBadInput;
  } catch (const std::exception& error) {
    // Last resort (e.g. nlohmann rejecting a name while writing): a bug must not pass silently.
    std::cerr << "gpubench-export: internal error: " << error.what() << "\n";
    return kExitBadInput;
  }
}
