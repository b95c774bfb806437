// gpubench::Main: Initialize, then GB's run with gpubench's reporters (the console reporter, and
// the forwarding reporter that flushes each row and tags it with its device).
#include "gpubench/main.hpp"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "common/environment.hpp"
#include "config/settings_parse.hpp"
#include "frontend/hooks/gpubench_counts.hpp"
#include "frontend/setup/devices.hpp"
#include "frontend/setup/initialize.hpp"
#include "gb/gb_internals.hpp"
#include "gpubench/reporter.hpp"
#include "measure/call/abort_note.hpp"
#include "measure/process/process_access.hpp"

namespace gpubench {
namespace {

void PrintHelp() {
  benchmark::PrintDefaultHelp();
  std::cout << detail::FlagHelp();
}

bool UseColor(int argc, char** argv) {
  const std::string flag = detail::GbFlagValue(argc, argv, "color");
  if (flag == "false" || flag == "no" || flag == "0") return false;
  if (flag == "true" || flag == "yes" || flag == "1") return true;
  const char* term = detail::TerminalVariable();
  return isatty(STDOUT_FILENO) != 0 && term != nullptr && std::strcmp(term, "dumb") != 0;
}

// GB's reporter for a format name (--benchmark_format, --benchmark_out_format).
std::unique_ptr<benchmark::BenchmarkReporter> MakeGbReporter(const std::string& name) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // GB still offers csv; so do we
  if (name == "csv") return std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  if (name == "console") return std::make_unique<benchmark::ConsoleReporter>();
  return std::make_unique<benchmark::JSONReporter>();
}

// Whether MakeGbReporter(name) writes JSON, which an abort closes.
bool WritesJson(const std::string& name) { return name != "csv" && name != "console"; }

// gpubench's console reporter for the console (GB's own for --benchmark_format=json|csv). Rows
// reach GB's reporters through ForwardingReporter, which flushes after every benchmark (a killed
// run keeps what finished) and, for one device of a --gpubench_devices run, names every row after
// the device.
// Returns how many benchmark instances GB selected (0 when the filter matched none).
size_t RunBenchmarks(const std::string& format, const std::string& out,
                     const std::string& out_format, bool color) {
  CounterReporter console(color ? benchmark::ConsoleReporter::OO_ColorTabular
                                : benchmark::ConsoleReporter::OO_Tabular);
  const std::optional<int> device = detail::TaggedDevice();
  const bool console_display = format.empty() || format == "console";
  std::unique_ptr<benchmark::BenchmarkReporter> display_format =
      console_display ? nullptr : MakeGbReporter(format);
  detail::ForwardingReporter forwarded_display(display_format ? display_format.get() : &console,
                                               device,
                                               {!console_display && WritesJson(format), ""});
  // The console reporter is GB's own class, which GB treats specially (colour, tabular counters),
  // so it stays unwrapped when there is nothing to tag.
  benchmark::BenchmarkReporter* display = console_display && !device
                                              ? static_cast<benchmark::BenchmarkReporter*>(&console)
                                              : &forwarded_display;
  if (out.empty()) return benchmark::RunSpecifiedBenchmarks(display);
  std::unique_ptr<benchmark::BenchmarkReporter> file_format = MakeGbReporter(out_format);
  detail::ForwardingReporter file(file_format.get(), device, {WritesJson(out_format), out});
  return benchmark::RunSpecifiedBenchmarks(display, &file);
}

// A filter that selects nothing would leave CI an empty result and exit 0: say so instead.
void SayNothingSelected(const std::string& filter) {
  if (filter.empty() || filter == "all") {
    std::cerr << "gpubench: this binary registers no benchmark that GB would run; nothing ran\n";
    return;
  }
  std::cerr << "gpubench: --benchmark_filter='" << filter
            << "' selects no benchmark (or is not a valid regular expression: GB says which "
               "above), so nothing ran: --benchmark_list_tests lists the names GB matches it "
               "against (gpubench widens it so that the names it prints, and the plain GB names a "
               "suite had before its conversion, select too; GB's message above quotes the "
               "widened filter)\n";
}

}  // namespace

int Main(int argc, char** argv) { return Main(argc, argv, nullptr); }

int Main(int argc, char** argv, void (*before_benchmarks)()) {
  detail::SetMainReports();
  InitResult init = Initialize(&argc, argv);
  if (!init.run_benchmarks) return init.exit_code;
  // Read before benchmark::Initialize, which removes GB's flags from argv.
  const std::string format = detail::GbFlagValue(argc, argv, "format");
  const std::string out = detail::GbFlagValue(argc, argv, "out");
  const std::string out_format = detail::GbFlagValue(argc, argv, "out_format");
  const bool color = UseColor(argc, argv);
  benchmark::Initialize(&argc, argv, PrintHelp);
  if (argc > 1) {
    for (int i = 1; i < argc; ++i) {
      std::cerr << "gpubench: unrecognized argument '" << argv[i]
                << "': gpubench flags start with --gpubench_ and GB's with --benchmark_ (see "
                   "--help)\n";
    }
    return 2;
  }
  // GB matches the filter against its full names, which carry "/manual_time" for gpubench's
  // forms and the counts gpubench set: widened, the names gpubench prints and the plain GB names
  // of converted benchmarks select them too.
  const std::string filter = benchmark::GetBenchmarkFilter();
  benchmark::SetBenchmarkFilter(
      detail::WidenFilterForGpubenchNames(filter, detail::CountsTaken() > 0));
  // The profiling child runs the benchmarks only to profile them: the suite's own output comes
  // from the timing process.
  if (before_benchmarks != nullptr && !detail::IsProfilingChild()) before_benchmarks();
  // An abort in a benchmark from here on keeps the rows before it and closes the JSON.
  detail::InstallAbortHandler();
  const size_t selected = RunBenchmarks(format, out, out_format, color);
  if (selected == 0) SayNothingSelected(filter);
  // The benchmarks the profiling child aborted in have error rows; the run is not whole.
  const std::set<std::string>& aborted = detail::ProcessProfilingPass().aborted_in_child();
  for (const std::string& instance : aborted) {
    std::cerr << "gpubench: the profiling child aborted (SIGABRT) in " << instance
              << ": its row is an error and this process exits with code 1\n";
  }
  detail::PrintRunCost();
  benchmark::Shutdown();
  detail::ShutdownProcess();
  return selected == 0 ? 2 : !aborted.empty() ? 1 : 0;
}

}  // namespace gpubench
