// Console reporter that shows GPU counters with their units and a settings banner.
#pragma once

#include <benchmark/benchmark.h>

#include <vector>

namespace gpubench {

/// GB's console columns with honest labels: rows of benchmarks timed by gpubench::Loop come under
/// a header that titles the time column "GPU time", with gpubench's counters formatted with
/// units (B, B/s, s, MHz, %); rows of other benchmarks (plain CPU benchmarks in the same binary)
/// are printed by GB's console reporter under GB's own header ("Time"). A new header is printed
/// whenever the kind of row changes. The settings banner follows the context block.
/// Use it as the display reporter; GB's JSON file output (--benchmark_out) stays GB's own.
class CounterReporter : public benchmark::ConsoleReporter {
 public:
  explicit CounterReporter(OutputOptions options = OO_Defaults);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& reports) override;

  /// Whether GB's time in `run` is GPU time: the run was timed by gpubench::Loop, which sets
  /// the clock counters (sm_clock_mhz) on every run it times, aggregates included.
  static bool IsGpuTimed(const Run& run);

 protected:
  void PrintHeader(const Run& run) override;
  void PrintRunData(const Run& run) override;

 private:
  // kNone: a row that prints no time of its own (an error, a complexity fit).
  enum class RowKind { kNone, kGpu, kCpu };
  static RowKind KindOf(const Run& run);
  RowKind header_kind_ = RowKind::kNone;
};

}  // namespace gpubench
