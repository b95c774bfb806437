#include "frontend/hooks/paused_rows.hpp"

#include <iostream>
#include <numeric>
#include <sstream>

#include "common/format.hpp"
#include "gb/gb_internals.hpp"
#include "gpu/plan/range_names.hpp"
#include "measure/checks/paused_timing.hpp"
#include "measure/process/process_access.hpp"
#include "schema/counter_sink.hpp"

namespace gpubench::detail {
namespace {

using Run = benchmark::BenchmarkReporter::Run;

std::string Ms(double seconds) { return FormatValue(seconds, CounterUnit::kSeconds); }

void SayOnce(const std::string& instance, PausedTiming verdict, double gpubench_cpu,
             double gb_cpu) {
  if (!FirstTime("timing_paused:" + instance)) return;
  std::ostringstream out;
  out << "gpubench: " << instance << ": GB's CPU time of the timed iterations is " << Ms(gb_cpu)
      << ", the thread's CPU time over them " << Ms(gpubench_cpu) << ": ";
  if (verdict == PausedTiming::kLower) {
    out << "the loop body pauses GB's timer (state.PauseTiming()). Under manual time that stops "
           "only GB's CPU timer: the paused GPU work stays in the GPU time.";
  } else {
    out << "the loop body calls state.PauseTiming() also in the bodies gpubench runs outside "
           "GB's timed iterations (the warm-up, the hold check), which this GB build does not "
           "check, so GB's CPU time is meaningless, and the paused GPU work stays in the GPU "
           "time.";
  }
  out << " The row is marked timing_paused=1. Put the work that must stay untimed in a "
         "gpubench::UntimedScope (docs/user_guide.md \"Benchmarks that synchronise\")\n";
  std::cerr << out.str();
}

// The rows of one instance in this batch: its repetitions against their readings, its
// aggregates through the mean (GB's mean holds the repetitions' mean CPU time).
void MarkInstance(const std::string& instance, const std::vector<Run*>& rows,
                  CallReadings& timed_cpu) {
  const CallReadings::Repetitions& readings = timed_cpu.Claim(instance);
  if (readings.seconds.empty()) return;
  PausedTiming worst = PausedTiming::kConsistent;
  double worst_gpubench = 0, worst_gb = 0;
  auto judge = [&](double gpubench_cpu, double gb_cpu, bool process_time) {
    const PausedTiming verdict = ComparePausedTiming(gpubench_cpu, gb_cpu, process_time);
    if (verdict != PausedTiming::kConsistent && worst == PausedTiming::kConsistent) {
      worst = verdict;
      worst_gpubench = gpubench_cpu;
      worst_gb = gb_cpu;
    }
    return verdict != PausedTiming::kConsistent;
  };
  bool aggregates_paused = false;
  for (Run* run : rows) {
    const std::optional<RowAgainstReading> pair =
        MatchReading(*run, readings, run->cpu_accumulated_time);
    if (!pair) continue;
    const bool paused = judge(pair->gpubench, pair->gb, IsProcessTime(*run));
    if (IsIteration(*run)) {
      if (paused) CounterSink<Writer::kReporter>(run->counters).Set<counter::kTimingPaused>(1);
    } else {
      aggregates_paused = paused;
    }
  }
  if (aggregates_paused) {
    for (Run* run : rows) {
      if (IsAggregate(*run)) {
        CounterSink<Writer::kReporter>(run->counters).Set<counter::kTimingPaused>(1);
      }
    }
  }
  if (worst != PausedTiming::kConsistent) {
    SayOnce(instance, worst, worst_gpubench, worst_gb);
  }
}

}  // namespace

std::optional<RowAgainstReading> MatchReading(const Run& run,
                                              const CallReadings::Repetitions& readings,
                                              double gb_accumulated) {
  if (IsIteration(run)) {
    const auto index = static_cast<size_t>(RepetitionIndex(run));
    if (run.iterations != readings.iterations || index >= readings.seconds.size()) {
      return std::nullopt;
    }
    return RowAgainstReading{readings.seconds[index], gb_accumulated};
  }
  if (!IsMean(run) || run.iterations <= 0 || readings.seconds.empty()) {
    return std::nullopt;
  }
  const double gpubench_mean =
      std::accumulate(readings.seconds.begin(), readings.seconds.end(), 0.0) /
      static_cast<double>(readings.seconds.size());
  return RowAgainstReading{gpubench_mean, gb_accumulated *
                                              static_cast<double>(readings.iterations) /
                                              static_cast<double>(run.iterations)};
}

std::vector<std::pair<std::string, std::vector<Run*>>> GpuRowsByInstance(
    std::vector<Run>* runs, std::optional<int> tagged_device) {
  // Rows of one instance arrive together (its repetitions, or its aggregates).
  std::vector<std::pair<std::string, std::vector<Run*>>> instances;
  for (Run& run : *runs) {
    if (RunFailed(run) || run.counters.count(counter::kSmClockMhz) == 0) continue;  // not GPU-timed
    std::string instance = InstanceNameOfRun(run);
    if (tagged_device) instance = TagInstanceName(instance, *tagged_device);
    if (instances.empty() || instances.back().first != instance) {
      instances.push_back({instance, {}});
    }
    instances.back().second.push_back(&run);
  }
  return instances;
}

void MarkPausedTiming(std::vector<Run>* runs, CallReadings& timed_cpu,
                      std::optional<int> tagged_device) {
  for (const auto& [instance, rows] : GpuRowsByInstance(runs, tagged_device)) {
    MarkInstance(instance, rows, timed_cpu);
  }
}

}  // namespace gpubench::detail
