// Console reporter that shows GPU counters with their units and a settings banner.
#pragma once

#include <benchmark/benchmark.h>

namespace gpubench {

/// GB's console columns, with the time column labelled as GPU time, gpubench's counters
/// formatted with units (B, B/s, s, MHz, %), and the settings banner after the context block.
/// Use it as the display reporter; GB's JSON file output (--benchmark_out) stays GB's own.
class CounterReporter : public benchmark::ConsoleReporter {
 public:
  explicit CounterReporter(OutputOptions options = OO_Defaults);
  bool ReportContext(const Context& context) override;

 protected:
  void PrintHeader(const Run& run) override;
  void PrintRunData(const Run& run) override;
};

}  // namespace gpubench
