#include "frontend/hooks/self_timed_rows.hpp"

#include <cmath>
#include <iostream>
#include <sstream>

#include "common/format.hpp"
#include "frontend/hooks/aggregate_codes.hpp"
#include "frontend/hooks/paused_rows.hpp"
#include "gb/gb_internals.hpp"
#include "measure/process/process_access.hpp"

namespace gpubench::detail {
namespace {

using Run = benchmark::BenchmarkReporter::Run;

std::string Seconds(double seconds) { return FormatValue(seconds, CounterUnit::kSeconds); }

std::string RowMessage(double gpubench_seconds, double gb_seconds) {
  std::ostringstream out;
  out << "gpubench: the loop body calls state.SetIterationTime() itself, which GB adds to "
         "gpubench's GPU time (GB's "
      << Seconds(gb_seconds) << " for gpubench's " << Seconds(gpubench_seconds)
      << "); remove the body's own timing, gpubench::Loop times each iteration";
  return out.str();
}

void SayOnce(const std::string& instance, double gpubench_seconds, double gb_seconds) {
  if (!FirstTime("self_timed:" + instance)) return;
  std::ostringstream out;
  out.precision(3);
  out << "gpubench: " << instance << ": GB's GPU time of the timed iterations is "
      << Seconds(gb_seconds) << ", " << gb_seconds / gpubench_seconds << " times the "
      << Seconds(gpubench_seconds)
      << " gpubench measured: the loop body calls state.SetIterationTime() itself (a self-timing "
         "body, e.g. its own cudaEvent pair), and GB adds those seconds to gpubench's in every "
         "body gpubench runs, the warm-up and the hold check included. The rows are refused "
         "(error_occurred), not published with that time. Remove the body's own events and its "
         "SetIterationTime call: gpubench::Loop times each iteration (docs/user_guide.md "
         "\"Converting a suite\")\n";
  std::cerr << out.str();
}

void CheckInstance(const std::string& instance, const std::vector<Run*>& rows,
                   CallReadings& timed_gpu) {
  const CallReadings::Repetitions& readings = timed_gpu.Claim(instance);
  if (readings.seconds.empty()) return;
  bool any = false;
  double said_gpubench = 0, said_gb = 0;
  auto judge = [&](Run* run, double gpubench_seconds, double gb_seconds) {
    if (!GbAddedTime(gpubench_seconds, gb_seconds)) return false;
    if (!any) {
      said_gpubench = gpubench_seconds;
      said_gb = gb_seconds;
    }
    any = true;
    SetRunError(*run, RowMessage(gpubench_seconds, gb_seconds));
    return true;
  };
  bool aggregates_refused = false;
  for (Run* run : rows) {
    // GB sums the threads' manual times; a row the user switched to ->UseRealTime() reports
    // wall time, which GB's manual time is not.
    if (run->threads > 1 || !IsManualTime(*run)) {
      continue;
    }
    const std::optional<RowAgainstReading> pair =
        MatchReading(*run, readings, run->real_accumulated_time);
    if (!pair) continue;
    const bool refused = judge(run, pair->gpubench, pair->gb);
    if (IsAggregate(*run)) aggregates_refused = refused;
  }
  if (aggregates_refused) {
    for (Run* run : rows) {
      if (IsAggregate(*run) && !RunFailed(*run)) {
        SetRunError(*run, RowMessage(said_gpubench, said_gb));
      }
    }
  }
  if (any) SayOnce(instance, said_gpubench, said_gb);
}

}  // namespace

bool GbAddedTime(double gpubench_seconds, double gb_seconds) {
  return gb_seconds > gpubench_seconds + 1e-9 + 1e-6 * std::fabs(gpubench_seconds);
}

void RefuseSelfTimedRows(std::vector<Run>* runs, CallReadings& timed_gpu,
                         std::optional<int> tagged_device) {
  for (const auto& [instance, rows] : GpuRowsByInstance(runs, tagged_device)) {
    CheckInstance(instance, rows, timed_gpu);
  }
}

void CheckReportedRows(std::vector<Run>* runs) {
  const std::optional<int> tagged_device = TaggedDevice();
  MarkPausedTiming(runs, TimedCpuReadings(), tagged_device);
  RefuseSelfTimedRows(runs, TimedGpuReadings(), tagged_device);
  DropCodesFromAggregates(runs);
}

}  // namespace gpubench::detail
