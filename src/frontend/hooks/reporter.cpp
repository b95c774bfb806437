#include "gpubench/reporter.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "common/format.hpp"
#include "config/settings_table.hpp"
#include "frontend/hooks/gpubench_counts.hpp"
#include "frontend/hooks/self_timed_rows.hpp"
#include "frontend/setup/context.hpp"
#include "gb/gb_internals.hpp"
#include "gpubench/version.hpp"
#include "measure/process/process_access.hpp"
#include "schema/counter_table.hpp"

namespace gpubench {
namespace {

const char* kGreen = "\033[32m";
const char* kYellow = "\033[33m";
const char* kCyan = "\033[36m";
const char* kRed = "\033[31m";
const char* kReset = "\033[0m";

}  // namespace

CounterReporter::CounterReporter(OutputOptions options) : ConsoleReporter(options) {}

bool CounterReporter::ReportContext(const Context& context) {
  const bool result = ConsoleReporter::ReportContext(context);
  const Settings& settings = detail::ProcessSettings();
  const detail::DeviceFacts& facts = detail::ProcessDeviceFacts();
  std::ostream& out = GetOutputStream();
  out << "gpubench " << kVersion << ": ";
  if (facts.available) {
    char line[256];
    std::snprintf(
        line, sizeof(line), "%s (sm_%d%d, %d SMs, L2 %s, rated SM clock %.0f MHz, DRAM %s)",
        facts.name.c_str(), facts.compute_capability_major, facts.compute_capability_minor,
        facts.sm_count,
        detail::FormatValue(static_cast<double>(facts.l2_bytes), detail::CounterUnit::kBytes)
            .c_str(),
        facts.sm_clock_rated_mhz,
        detail::FormatValue(facts.DramBandwidthBytesPerSecond(),
                            detail::CounterUnit::kBytesPerSecond)
            .c_str());
    out << line << "\n";
  } else {
    out << "no usable GPU (" << facts.unavailable_reason << "): GPU benchmarks are skipped\n";
  }
  detail::CommandLine line;
  line.settings = settings;
  out << " ";
  for (const detail::SettingRow& row : detail::SettingRows()) {
    if (row.in_banner) out << " " << row.name << "=" << row.print(line);
  }
  out << " metrics=" << settings.metrics.size() << " profiler=" << detail::ProfilerStatus()
      << "\n  settings fingerprint " << detail::SettingsFingerprint(settings)
      << "\n  rows under a \"GPU time\" header: GPU time per iteration (gpubench::Loop); rows "
         "under GB's \"Time\" header: GB's own time (other benchmarks)\n";
  return result;
}

bool CounterReporter::IsGpuTimed(const Run& run) {
  return !detail::RunFailed(run) && run.counters.count(counter::kSmClockMhz) != 0;
}

CounterReporter::RowKind CounterReporter::KindOf(const Run& run) {
  if (detail::RunFailed(run) || run.report_big_o || run.report_rms) return RowKind::kNone;
  return IsGpuTimed(run) ? RowKind::kGpu : RowKind::kCpu;
}

void CounterReporter::ReportRuns(const std::vector<Run>& given) {
  std::vector<Run> reports = given;
  detail::RestoreRunNames(&reports);
  detail::CheckReportedRows(&reports);
  for (const Run& run : reports) {
    // A header before the first row and whenever the kind of time changes, so that every time
    // is under its own title; GB's rows in tabular mode also when their counters change (GB
    // titles each counter's column). gpubench's rows print counters as name=value: no columns.
    const RowKind kind = KindOf(run);
    bool header = !printed_header_ || (kind != RowKind::kNone && kind != header_kind_);
    if (!header && kind == RowKind::kCpu && (output_options_ & OO_Tabular) != 0) {
      header = run.counters.size() != prev_counters_.size() ||
               !std::equal(run.counters.begin(), run.counters.end(), prev_counters_.begin(),
                           [](const auto& a, const auto& b) { return a.first == b.first; });
    }
    if (header) {
      printed_header_ = true;
      prev_counters_ = run.counters;
      PrintHeader(run);
    }
    PrintRunData(run);
  }
}

void CounterReporter::PrintHeader(const Run& run) {
  RowKind kind = KindOf(run);
  if (kind == RowKind::kNone) kind = header_kind_ == RowKind::kNone ? RowKind::kGpu : header_kind_;
  header_kind_ = kind;
  if (kind == RowKind::kCpu) {
    ConsoleReporter::PrintHeader(run);
    return;
  }
  std::string header;
  char line[256];
  std::snprintf(line, sizeof(line), "%-*s %15s %15s %12s  %s", static_cast<int>(name_field_width_),
                "Benchmark", "GPU time", "CPU time", "Iterations", "GPU counters");
  header = line;
  GetOutputStream() << std::string(header.size(), '-') << "\n"
                    << header << "\n"
                    << std::string(header.size(), '-') << "\n";
}

void CounterReporter::PrintRunData(const Run& run) {
  if (!detail::RunFailed(run) && !IsGpuTimed(run)) {
    // Not GPU time: GB's own row (a CPU benchmark, or a complexity fit, which GB formats).
    ConsoleReporter::PrintRunData(run);
    return;
  }
  std::ostream& out = GetOutputStream();
  const bool color = (output_options_ & OO_Color) != 0;
  auto paint = [&](const char* code, const std::string& text) {
    return color ? std::string(code) + text + kReset : text;
  };
  // Padded, never cut: a long templated name stays whole.
  std::string name = run.benchmark_name();
  if (name.size() < name_field_width_) name.append(name_field_width_ - name.size(), ' ');
  out << paint(kGreen, name) << " ";
  if (detail::RunFailed(run)) {
    // A deliberate skip (SkipWithMessage) is no error, as GB's own console says.
    const bool skipped = detail::RunSkippedWithMessage(run);
    out << paint(skipped ? kYellow : kRed, std::string(skipped ? "SKIPPED" : "ERROR OCCURRED") +
                                               ": '" + detail::RunErrorMessage(run) + "'")
        << "\n";
    return;
  }
  const std::map<std::string, std::string>& metric_units = detail::MetricUnits();
  const bool percentage = run.aggregate_unit == benchmark::kPercentage;
  char times[128];
  if (percentage) {
    // A cv row holds the fraction itself: GetAdjusted*Time would scale it by the time unit and
    // divide it by the repetition count (GB's own console reporter prints it unadjusted too).
    std::snprintf(times, sizeof(times), "%13.2f %% %13.2f %% %12s", 100 * run.real_accumulated_time,
                  100 * run.cpu_accumulated_time, "");
  } else {
    const char* unit = benchmark::GetTimeUnitString(run.time_unit);
    std::snprintf(times, sizeof(times), "%12.4g %-2s %12.4g %-2s %12lld", run.GetAdjustedRealTime(),
                  unit, run.GetAdjustedCPUTime(), unit, static_cast<long long>(run.iterations));
  }
  out << paint(kYellow, times);
  for (const auto& [counter, value] : run.counters) {
    const std::string text =
        percentage ? detail::FormatValue(100 * value.value, detail::CounterUnit::kPercent)
                   : detail::FormatValue(value.value, detail::UnitOfCounter(counter, metric_units));
    out << "  " << counter << "=" << paint(kCyan, text);
  }
  if (auto shared = run.counters.find(counter::kGpuShared);
      !percentage && shared != run.counters.end() && shared->second.value >= 0.5) {
    out << "  " << paint(kRed, "[GPU SHARED: another process used the GPU]");
  }
  if (!run.report_label.empty()) out << "  " << run.report_label;
  out << "\n";
}

}  // namespace gpubench
