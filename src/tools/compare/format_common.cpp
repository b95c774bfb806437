// The table rows and the banner, summary and gate lines that the console and Markdown reports
// share (format_common.hpp).
#include "tools/compare/format_common.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "common/format.hpp"
#include "schema/context_keys.hpp"
#include "tools/base/text.hpp"
#include "tools/gate/suite_summary.hpp"
#include "tools/load/cut_off.hpp"

namespace gpubench::tools::internal {
namespace {

void AppendPValue(std::string& out, const MetricComparison& metric) {
  if (!metric.p_value) {
    out += '-';
  } else if (*metric.p_value < 1e-4) {
    out += "<0.0001";
  } else {
    AppendFixed(out, *metric.p_value, 4);
  }
}

// One side's value with its unit: the median of a time or counter ("83.46 us", "4.27 kB",
// "1980 MHz"), as gpubench's console prints counters; for a code, every distinct value of the
// repetitions by name ("precision, repetition"), since a median of codes is no code.
void AppendSideValue(std::string& out, const MetricComparison& metric, bool baseline) {
  const double median = baseline ? metric.baseline_median : metric.contender_median;
  if (metric.is_time) return AppendTimeNs(out, median);
  const detail::CounterUnit unit = detail::UnitNamed(metric.policy.unit);
  if (!metric.policy.code) {
    out += detail::FormatValue(median, unit);
    return;
  }
  const std::vector<double>& values = baseline ? metric.baseline_values : metric.contender_values;
  std::vector<double> seen;
  for (double value : values) {
    if (std::find(seen.begin(), seen.end(), value) != seen.end()) continue;
    if (!seen.empty()) out += ", ";
    seen.push_back(value);
    out += detail::FormatValue(value, unit);
  }
}

// Whether a metric gets a row by default: gated, or worth a look although report-only.
bool ShownByDefault(const MetricComparison& metric) {
  if (metric.policy.threshold_percent || metric.fails_gate) return true;
  if (metric.verdict != Verdict::kSame && metric.verdict != Verdict::kReportOnly) return true;
  // A value that could not be compared (non-finite) says something is wrong with the run.
  if (std::isnan(metric.change_percent) && !metric.policy.code) return true;
  if (metric.policy.gating != Gating::kFlag) return false;
  // A flag in its bad state (throttled, shared, paused; launches not held) on either side.
  const double good = metric.policy.direction == Direction::kHigherIsBetter ? 1 : 0;
  for (const std::vector<double>* values : {&metric.baseline_values, &metric.contender_values}) {
    for (double value : *values) {
      if (value != good) return true;
    }
  }
  return false;
}

const char* VerdictLabel(const MetricComparison& metric) {
  if (metric.verdict == Verdict::kUnconfirmed) {
    return metric.worse ? "unconfirmed (worse)" : "unconfirmed (better)";
  }
  if (metric.verdict == Verdict::kReportOnly) return "report";
  return VerdictName(metric.verdict);
}

std::string StatusLabel(const BenchmarkComparison& benchmark) {
  switch (benchmark.status) {
    case BenchmarkStatus::kMissing:
      return benchmark.fails_gate ? "MISSING in contender (fails: --fail-on-missing)"
                                  : "missing in contender";
    case BenchmarkStatus::kNew:
      return "new in contender";
    case BenchmarkStatus::kFailedInContender:
      return "FAILED in contender (" + benchmark.failure_message + ")";
    case BenchmarkStatus::kFailedInBaseline:
      return "failed in baseline (" + benchmark.failure_message + ")";
    case BenchmarkStatus::kFailedInBoth:
      return "failed in both (" + benchmark.failure_message + ")";
    case BenchmarkStatus::kReused:
      return "reused (an earlier run's values: not judged)";
    case BenchmarkStatus::kCompared:
      break;
  }
  return "";
}

// The Clock column: what makes a row's numbers doubtful (throttled clock, shared GPU).
std::string ThrottleFlag(const BenchmarkComparison& benchmark) {
  auto side = [](bool baseline, bool contender) {
    return baseline && contender ? std::string(" (both)")
           : baseline            ? std::string(" (baseline)")
                                 : std::string(" (contender)");
  };
  std::string flag;
  if (benchmark.throttled_baseline || benchmark.throttled_contender) {
    flag = "THROTTLED" + side(benchmark.throttled_baseline, benchmark.throttled_contender);
  }
  if (benchmark.shared_baseline || benchmark.shared_contender) {
    flag += (flag.empty() ? "" : ", ") + std::string("GPU SHARED") +
            side(benchmark.shared_baseline, benchmark.shared_contender);
  }
  return flag;
}

Tone MetricTone(const MetricComparison& metric) {
  switch (metric.verdict) {
    case Verdict::kRegression:
      return Tone::kBad;
    case Verdict::kImprovement:
      return Tone::kGood;
    case Verdict::kUnconfirmed:
      return metric.worse ? Tone::kWarn : Tone::kInfo;
    case Verdict::kUndecided:
      return Tone::kWarn;
    default:
      return Tone::kPlain;
  }
}

Tone StatusTone(const BenchmarkComparison& benchmark) {
  switch (benchmark.status) {
    case BenchmarkStatus::kFailedInContender:
      return Tone::kBad;
    case BenchmarkStatus::kMissing:
      return benchmark.fails_gate ? Tone::kBad : Tone::kWarn;
    case BenchmarkStatus::kNew:
    case BenchmarkStatus::kReused:
      return Tone::kInfo;
    default:
      return Tone::kWarn;
  }
}

// A row for a benchmark without compared metrics.
void AppendStatusRow(const BenchmarkComparison& benchmark, const std::string& clock,
                     const std::string& notes, TableRows& rows) {
  rows.StartRow();
  std::string shown;
  rows.AddCell(ShownName(benchmark.name, shown));
  rows.AddCell(clock, Tone::kWarn);
  for (int column = kMetric; column < kVerdict; ++column) rows.AddCell("");
  rows.AddCell(
      benchmark.status == BenchmarkStatus::kCompared ? "no common metrics" : StatusLabel(benchmark),
      StatusTone(benchmark));
  rows.AddCell(notes);
}

}  // namespace

std::string_view ShownName(std::string_view name, std::string& shown) {
  if (name.empty()) return kEmptyNameShown;
  const bool plain = std::none_of(name.begin(), name.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
  });
  if (plain) return name;
  shown = ShowableText(name);
  return shown;
}

std::string ShowValue(const std::optional<std::string>& value) {
  return value ? "\"" + *value + "\"" : std::string("(absent)");
}

bool AnyThrottled(const ComparisonReport& report) {
  return report.summary.throttled > 0 || report.summary.shared > 0;
}

std::size_t AppendRows(const BenchmarkComparison& benchmark, TableRows& rows, RowFilter filter) {
  const std::string bench_notes = Join(benchmark.notes, "; ");
  const std::string clock = ThrottleFlag(benchmark);
  if (benchmark.status == BenchmarkStatus::kReused && filter == RowFilter::kNotable) {
    return 0;  // no change and no failure: the summary's reuse line counts it
  }
  if (benchmark.status != BenchmarkStatus::kCompared || benchmark.metrics.empty()) {
    AppendStatusRow(benchmark, clock, bench_notes, rows);
    return 0;
  }
  const bool only_notable = filter == RowFilter::kNotable;
  bool first = true;
  std::size_t hidden = 0;
  std::string shown;
  const std::string_view name = ShownName(benchmark.name, shown);
  for (const MetricComparison& metric : benchmark.metrics) {
    const bool notable = metric.verdict == Verdict::kRegression ||
                         metric.verdict == Verdict::kImprovement ||
                         metric.verdict == Verdict::kUnconfirmed;
    if ((only_notable && !notable) || (filter == RowFilter::kGated && !ShownByDefault(metric))) {
      ++hidden;
      continue;
    }
    const Tone tone = MetricTone(metric);
    std::string& text = rows.Text();
    rows.StartRow();
    rows.AddCell(first || only_notable ? name : std::string_view());
    rows.AddCell(first || only_notable ? std::string_view(clock) : std::string_view(), Tone::kWarn);
    rows.AddCell(metric.name);
    AppendSideValue(text, metric, true);
    rows.EndCell();
    AppendSideValue(text, metric, false);
    rows.EndCell();
    if (metric.policy.code) {
      text += '-';  // a code has no change, only another value
    } else {
      AppendChangePercent(text, metric.change_percent);
    }
    rows.EndCell(tone);
    AppendPValue(text, metric);
    rows.EndCell();
    AppendThreshold(text, metric);
    rows.EndCell();
    rows.AddCell(VerdictLabel(metric), tone);
    // As Join(notes, "; ") with the benchmark's notes after the first row's own.
    const std::size_t notes_start = text.size();
    auto add_note = [&](const std::string& note) {
      if (text.size() > notes_start) text += "; ";
      text += note;
    };
    for (const std::string& note : metric.notes) add_note(note);
    if (first && !bench_notes.empty()) add_note(bench_notes);
    rows.EndCell();
    first = false;
  }
  return hidden;
}

std::string HiddenRowsLine(std::size_t hidden) {
  if (hidden == 0) return "";
  return std::to_string(hidden) +
         " report-only metric row(s) not shown: --metrics all shows them (JSON and CSV have all)";
}

std::string SummaryLine(const ComparisonReport& report) {
  const Summary& s = report.summary;
  std::string line = std::to_string(s.compared) + " compared: " + std::to_string(s.regressions) +
                     " regression(s), " + std::to_string(s.unconfirmed_regressions) +
                     " unconfirmed regression(s), " + std::to_string(s.improvements) +
                     " improvement(s), " + std::to_string(s.same) + " same";
  if (s.unconfirmed_improvements) {
    line += ", " + std::to_string(s.unconfirmed_improvements) + " unconfirmed improvement(s)";
  }
  if (s.undecided) line += ", " + std::to_string(s.undecided) + " undecided";
  if (s.report_only) line += ", " + std::to_string(s.report_only) + " report-only";
  line += "; " + std::to_string(s.missing) + " missing, " + std::to_string(s.added) + " new, " +
          std::to_string(s.failed_in_contender) + " failed in contender";
  if (s.failed_in_baseline) {
    line += ", " + std::to_string(s.failed_in_baseline) + " failed in baseline";
  }
  if (s.failed_in_both) line += ", " + std::to_string(s.failed_in_both) + " failed in both";
  if (s.reused) line += ", " + std::to_string(s.reused) + " reused (not judged)";
  if (s.throttled) line += "; " + std::to_string(s.throttled) + " ran with a throttled SM clock";
  return line;
}

std::string ReuseLine(const ComparisonReport& report) {
  const ReuseCount& reuse = report.reuse;
  std::string line;
  if (reuse.contender_reused_rows > 0) {
    line = "reused: " + std::to_string(reuse.contender_reused_rows) + " of " +
           std::to_string(reuse.contender_rows) +
           " contender row(s) carry an earlier run's values (reuse_status reused";
    if (!reuse.source.empty()) line += ", from " + reuse.source;
    line += "): not new measurements, so not judged, nor in the geometric mean";
    if (report.summary.reused > 0) {
      line += " (" + std::to_string(report.summary.reused) + " benchmark(s) entirely)";
    }
  }
  if (reuse.baseline_reused_rows > 0) {
    line += std::string(line.empty() ? "" : "; ") + std::to_string(reuse.baseline_reused_rows) +
            " baseline row(s) were reused from an earlier run: they stand for that run's "
            "measurement";
  }
  return line;
}

std::string GateLine(const ComparisonReport& report) {
  switch (report.exit_code) {
    case kExitOk:
      return "PASS (exit 0)";
    case kExitRegression:
      return "FAIL (exit 1): " +
             std::string(report.contender_cut_off.empty()
                             ? ""
                             : "the contender file was cut off mid-write (a cut-off contender "
                               "never passes); ") +
             std::to_string(report.summary.failing) + " benchmark(s) fail the gate";
    case kExitSettingsMismatch:
      return "REFUSED (exit 3): the benchmark settings differ";
    case kExitNothingCompared:
      return "NOTHING COMPARED (exit 4): " + report.nothing_compared;
    case kExitAllReused:
      return "REUSED (exit 5): every row of the contender (" +
             std::to_string(report.reuse.contender_rows) +
             ") carries an earlier run's values; nothing was measured, so nothing was judged";
    default:
      break;
  }
  return "exit " + std::to_string(report.exit_code);
}

namespace {

// The banner of a prominent device difference (DeviceDifferences): another kind of GPU, another
// physical GPU of the same kind, another driver.
std::string DescribeProminent(const ValueDifference& difference) {
  const std::string values = difference.key + " baseline " + ShowValue(difference.baseline) +
                             ", contender " + ShowValue(difference.contender);
  if (difference.key == context_key::kGpuName) return "DIFFERENT GPU: " + values;
  const ContextKeyInfo* info = FindContextKey(difference.key);  // gpu_1_uuid is a gpu_uuid too
  if (info != nullptr && info->key == context_key::kGpuUuid) {
    return "DIFFERENT PHYSICAL GPU: " + values +
           ": two GPUs of the same kind (same gpu_name) can differ by a few percent, so a change "
           "between these runs may come from the GPU, not the code";
  }
  return "DIFFERENT DRIVER: " + values;
}

}  // namespace

std::vector<std::pair<Tone, std::string>> Banners(const ComparisonReport& report) {
  std::vector<std::pair<Tone, std::string>> banners;
  for (const CutOffFile& cut : report.contender_cut_off) {
    banners.emplace_back(Tone::kBad, "CONTENDER CUT OFF: " + DescribeCutOff(cut) +
                                         "; a cut-off contender never passes the gate");
  }
  for (const CutOffFile& cut : report.baseline_cut_off) {
    banners.emplace_back(Tone::kBad, "BASELINE CUT OFF: " + DescribeCutOff(cut) +
                                         " (the contender's benchmarks after the cut are shown "
                                         "as new and not judged)");
  }
  const SettingsCheck& settings = report.settings;
  if (settings.mismatch) {
    std::string text = report.refused_for_settings
                           ? "SETTINGS MISMATCH: refusing to compare (pass "
                             "--allow-settings-mismatch to compare anyway)"
                           : "SETTINGS MISMATCH (allowed by --allow-settings-mismatch): numbers "
                             "may not mean the same thing";
    text += "; fingerprint " + ShowValue(settings.baseline_fingerprint) + " -> " +
            ShowValue(settings.contender_fingerprint);
    if (report.baseline_paths.size() > 1) {
      text += " (baseline run " + settings.baseline_path + "; leave it out of the history)";
    }
    banners.emplace_back(Tone::kBad, text);
    for (const ValueDifference& difference : settings.differences) {
      banners.emplace_back(Tone::kBad, "  setting " + difference.key + ": baseline " +
                                           ShowValue(difference.baseline) + ", contender " +
                                           ShowValue(difference.contender));
    }
  }
  for (const std::string& note : settings.notes) banners.emplace_back(Tone::kWarn, note);
  for (const ValueDifference& difference : report.device_differences) {
    if (difference.prominent) banners.emplace_back(Tone::kWarn, DescribeProminent(difference));
  }
  if (report.physical_gpu.physical_gpu == PhysicalGpu::kUnknown) {
    banners.emplace_back(Tone::kInfo, "physical GPU unknown: the " +
                                          report.physical_gpu.without_uuid +
                                          " records no gpu_uuid (a file from before gpubench "
                                          "recorded it, or its UUID was unknown), so "
                                          "whether both ran on the same GPU cannot be told");
  }
  std::vector<std::string> other;
  for (const ValueDifference& difference : report.device_differences) {
    // An identity key one file does not record is not a difference of the device.
    const bool unrecorded =
        IsGpuIdentityKey(difference.key) && (!difference.baseline || !difference.contender);
    if (!difference.prominent && !unrecorded) {
      other.push_back(difference.key + " " + ShowValue(difference.baseline) + " -> " +
                      ShowValue(difference.contender));
    }
  }
  if (!other.empty())
    banners.emplace_back(Tone::kInfo, "device facts differ: " + Join(other, ", "));
  if (report.summary.throttled > 0) {
    banners.emplace_back(Tone::kWarn, std::to_string(report.summary.throttled) +
                                          " benchmark(s) ran with the SM clock below 90% of its "
                                          "rated clock (THROTTLED): their time comparisons are "
                                          "doubtful");
  }
  if (report.summary.shared > 0) {
    banners.emplace_back(Tone::kWarn, std::to_string(report.summary.shared) +
                                          " benchmark(s) ran while another process used the GPU "
                                          "(GPU SHARED, counter gpu_shared): their changes are "
                                          "shown but not judged");
  }
  for (const std::string& warning : report.warnings) {
    banners.emplace_back(Tone::kWarn, "warning: " + warning);
  }
  return banners;
}

std::string MarkdownCell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string MarkdownCode(std::string_view text) {
  std::size_t longest = 0, run = 0;
  std::string body;
  body.reserve(text.size());
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (c == '|') {
      body += "\\|";
    } else if (c == '\n' || c == '\r') {
      body += ' ';
    } else {
      body += c;
    }
  }
  const std::string fence(longest + 1, '`');
  // A span that starts or ends with a backtick needs a space inside its fence (stripped again).
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string MarkdownName(std::string_view name) {
  if (name.empty() || name == kEmptyNameShown) return "`\"\"` (an empty name)";
  std::string shown;
  return MarkdownCode(ShownName(name, shown));
}

}  // namespace gpubench::tools::internal
