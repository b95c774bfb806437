#include "tools/compare/report_format.hpp"

#include "tools/compare/report_csv.hpp"
#include "tools/gate/suite_summary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <ostream>
#include <string_view>
#include <vector>

#include "tools/base/halves.hpp"
#include "tools/base/json_writer.hpp"
#include "tools/base/text.hpp"
#include "tools/load/cut_off.hpp"

namespace gpubench::compare {
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

void AppendThreshold(std::string& out, const MetricComparison& metric) {
  if (!metric.applied_threshold_percent) {
    out += '-';
    return;
  }
  const double percent = *metric.applied_threshold_percent;
  if (std::isinf(percent)) {
    out += "inf";
  } else if (percent >= 10) {
    AppendFixed(out, percent, 1);
  } else {
    AppendGeneral(out, percent, 3);
  }
  out += "% (";
  out += metric.threshold_source;
  out += ')';
}

void AppendMetricValue(std::string& out, const MetricComparison& metric, double value) {
  if (metric.is_time) {
    AppendTimeNs(out, value);
  } else {
    AppendQuantity(out, value);
  }
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

std::string ShowValue(const std::optional<std::string>& value) {
  return value ? "\"" + *value + "\"" : std::string("(absent)");
}

bool AnyThrottled(const ComparisonReport& report) {
  return report.summary.throttled > 0 || report.summary.shared > 0;
}

// How a table cell should stand out; mapped to ANSI colours or Markdown bold.
enum class Tone { kPlain, kBad, kWarn, kGood, kInfo };

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
      return Tone::kInfo;
    default:
      return Tone::kWarn;
  }
}

enum Column {
  kBenchmark,
  kClock,
  kMetric,
  kBaseline,
  kContender,
  kChange,
  kP,
  kThreshold,
  kVerdict,
  kNotes,
  kColumnCount
};

const char* const kHeaders[kColumnCount] = {"Benchmark", "Clock",  "Metric",  "Baseline",
                                            "Contender", "Change", "p-value", "Threshold",
                                            "Verdict",   "Notes"};

// The cells of a table in one buffer, row after row and column after column: ten std::strings
// per row made up most of the time of a 140,000-row console table.
class TableRows {
 public:
  std::size_t size() const { return tones_.size(); }
  bool empty() const { return tones_.empty(); }
  std::string_view Cell(std::size_t row, int column) const {
    const std::size_t cell = row * kColumnCount + static_cast<std::size_t>(column);
    const std::size_t begin = cell == 0 ? 0 : ends_[cell - 1];
    return std::string_view(text_).substr(begin, ends_[cell] - begin);
  }
  Tone CellTone(std::size_t row, int column) const { return tones_[row][column]; }

  /// Starts a row whose cells are then written in column order with Text() and EndCell().
  void StartRow() { tones_.emplace_back().fill(Tone::kPlain); }
  std::string& Text() { return text_; }
  void EndCell(Tone tone = Tone::kPlain) {
    tones_.back()[ends_.size() % kColumnCount] = tone;
    ends_.push_back(text_.size());
  }
  void AddCell(std::string_view text, Tone tone = Tone::kPlain) {
    text_ += text;
    EndCell(tone);
  }

 private:
  std::string text_;
  std::vector<std::size_t> ends_;  // where each cell ends in text_
  std::vector<std::array<Tone, kColumnCount>> tones_;
};

// A row for a benchmark without compared metrics.
void AppendStatusRow(const BenchmarkComparison& benchmark, const std::string& clock,
                     const std::string& notes, TableRows& rows) {
  rows.StartRow();
  rows.AddCell(benchmark.name);
  rows.AddCell(clock, Tone::kWarn);
  for (int column = kMetric; column < kVerdict; ++column) rows.AddCell("");
  rows.AddCell(
      benchmark.status == BenchmarkStatus::kCompared ? "no common metrics" : StatusLabel(benchmark),
      StatusTone(benchmark));
  rows.AddCell(notes);
}

// One row per compared metric, or one row for a benchmark without metrics.
void AppendRows(const BenchmarkComparison& benchmark, TableRows& rows, bool only_notable) {
  const std::string bench_notes = Join(benchmark.notes, "; ");
  const std::string clock = ThrottleFlag(benchmark);
  if (benchmark.status != BenchmarkStatus::kCompared || benchmark.metrics.empty()) {
    AppendStatusRow(benchmark, clock, bench_notes, rows);
    return;
  }
  bool first = true;
  for (const MetricComparison& metric : benchmark.metrics) {
    const bool notable = metric.verdict == Verdict::kRegression ||
                         metric.verdict == Verdict::kImprovement ||
                         metric.verdict == Verdict::kUnconfirmed;
    if (only_notable && !notable) continue;
    const Tone tone = MetricTone(metric);
    std::string& text = rows.Text();
    rows.StartRow();
    rows.AddCell(first || only_notable ? std::string_view(benchmark.name) : std::string_view());
    rows.AddCell(first || only_notable ? std::string_view(clock) : std::string_view(), Tone::kWarn);
    rows.AddCell(metric.name);
    AppendMetricValue(text, metric, metric.baseline_median);
    rows.EndCell();
    AppendMetricValue(text, metric, metric.contender_median);
    rows.EndCell();
    AppendChangePercent(text, metric.change_percent);
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
  if (s.throttled) line += "; " + std::to_string(s.throttled) + " ran with a throttled SM clock";
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
    default:
      break;
  }
  return "exit " + std::to_string(report.exit_code);
}

// Lines that must be seen before any number is trusted.
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
    if (!difference.prominent) continue;
    banners.emplace_back(
        Tone::kWarn,
        std::string(difference.key == "gpu_name" ? "DIFFERENT GPU" : "DIFFERENT DRIVER") + ": " +
            difference.key + " baseline " + ShowValue(difference.baseline) + ", contender " +
            ShowValue(difference.contender));
  }
  std::vector<std::string> other;
  for (const ValueDifference& difference : report.device_differences) {
    if (!difference.prominent) {
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

// --- console ---------------------------------------------------------------

const char* AnsiColor(Tone tone) {
  switch (tone) {
    case Tone::kBad:
      return "\033[1;31m";
    case Tone::kWarn:
      return "\033[1;33m";
    case Tone::kGood:
      return "\033[32m";
    case Tone::kInfo:
      return "\033[36m";
    case Tone::kPlain:
      break;
  }
  return "";
}

void AppendColored(std::string& out, std::string_view text, Tone tone, bool color) {
  if (color && tone != Tone::kPlain && !text.empty()) {
    out += AnsiColor(tone);
    out += text;
    out += "\033[0m";
  } else {
    out += text;
  }
}

// Display width in terminal columns: counts UTF-8 code points, not bytes.
std::size_t DisplayWidth(std::string_view text) {
  std::size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;
  return width;
}

// --- markdown --------------------------------------------------------------

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

void AppendMarkdownTable(const TableRows& rows, bool with_clock, std::size_t limit,
                         std::string& out) {
  out += "|";
  for (int column = 0; column < kColumnCount; ++column) {
    if (column == kClock && !with_clock) continue;
    out += " ";
    out += kHeaders[column];
    out += " |";
  }
  out += "\n|";
  for (int column = 0; column < kColumnCount; ++column) {
    if (column == kClock && !with_clock) continue;
    out += column >= kBaseline && column <= kThreshold ? " ---: |" : " --- |";
  }
  out += "\n";
  std::size_t written = 0;
  for (std::size_t row = 0; row < rows.size(); ++row) {
    if (written == limit) break;
    ++written;
    out += "|";
    for (int column = 0; column < kColumnCount; ++column) {
      if (column == kClock && !with_clock) continue;
      std::string cell = MarkdownCell(rows.Cell(row, column));
      if (column == kBenchmark && !cell.empty()) cell = "`" + cell + "`";
      const Tone tone = rows.CellTone(row, column);
      if (!cell.empty() && (tone == Tone::kBad || tone == Tone::kWarn || tone == Tone::kGood)) {
        cell = "**" + cell + "**";
      }
      out += " " + cell + " |";
    }
    out += "\n";
  }
  if (rows.size() > written) {
    out += "\n_" + std::to_string(rows.size() - written) +
           " more rows not shown; use --format json for all of them._\n";
  }
}

void AppendConsoleLine(const TableRows& rows, std::size_t row, const std::size_t* widths,
                       bool with_clock, bool color, std::string& out) {
  const std::size_t line_start = out.size();
  for (int column = 0; column < kColumnCount; ++column) {
    if (column == kClock && !with_clock) continue;
    const std::string_view cell = row < rows.size() ? rows.Cell(row, column) : kHeaders[column];
    const Tone tone = row < rows.size() ? rows.CellTone(row, column) : Tone::kPlain;
    const std::size_t padding = widths[column] - DisplayWidth(cell);
    const bool right = column >= kBaseline && column <= kThreshold;
    if (right) out.append(padding, ' ');
    AppendColored(out, cell, tone, color);
    if (column == kNotes) break;  // no trailing spaces
    if (!right) out.append(padding, ' ');
    out += "  ";
  }
  while (out.size() > line_start && out.back() == ' ') out.pop_back();
  out += '\n';
}

// The header, then a row per compared metric, each column as wide as its widest cell. Large
// reports are built in two halves on two threads.
void AppendConsoleTable(const ComparisonReport& report, bool color, std::string& out) {
  const bool with_clock = AnyThrottled(report);
  const std::vector<BenchmarkComparison>& benchmarks = report.benchmarks;
  TableRows rows[2];
  OnTwoHalves(benchmarks.size(), [&](int half, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) AppendRows(benchmarks[i], rows[half], false);
  });
  std::size_t widths[kColumnCount];
  for (int column = 0; column < kColumnCount; ++column) {
    widths[column] = DisplayWidth(kHeaders[column]);
    for (const TableRows& half : rows) {
      for (std::size_t row = 0; row < half.size(); ++row) {
        widths[column] = std::max(widths[column], DisplayWidth(half.Cell(row, column)));
      }
    }
  }
  out += "\n";
  AppendConsoleLine(rows[0], rows[0].size(), widths, with_clock, color, out);  // the header
  std::string second_half;
  OnTwoHalves(benchmarks.size(), [&](int half, std::size_t, std::size_t) {
    std::string& text = half == 0 ? out : second_half;
    for (std::size_t row = 0; row < rows[half].size(); ++row) {
      AppendConsoleLine(rows[half], row, widths, with_clock, color, text);
    }
  });
  out += second_half;
}

// --- json ------------------------------------------------------------------
//
// Streamed with JsonWriter, which writes what nlohmann's dump(2) wrote for the DOM this report
// used to be built as (tests/compare/json_report_dom.hpp keeps that DOM builder, and
// json_report_test.cpp compares the two byte for byte).
// Each Write* function writes one object; its keys come out in the order of the Member() calls.
// A field is added with one more Member() call where it belongs; the C++ type of the value
// decides the JSON type as it did for the DOM (size_t and int -> integer, double -> number or
// null when not finite, std::optional -> null when empty, std::vector -> array).

// null for a complete file; what was recovered from one cut off mid-write (gpubench-compare
// loads one file per side, so there is at most one entry).
void WriteCutOff(JsonWriter& json, const std::vector<CutOffFile>& cut_off) {
  if (cut_off.empty()) return json.Null();
  const CutOffFile& cut = cut_off.front();
  json.BeginObject();
  json.Member("bytes", cut.bytes);
  json.Member("rows_recovered", cut.rows_recovered);
  json.Member("benchmarks_recovered", cut.benchmarks_recovered);
  json.Member("message", DescribeCutOff(cut));
  json.EndObject();
}

// `files`: the baseline's files (one, or the runs of a history); null for the contender.
void WriteSide(JsonWriter& json, const std::string& path, const std::vector<std::string>* files,
               std::size_t benchmarks, const std::optional<std::string>& fingerprint,
               const std::vector<CutOffFile>& cut_off) {
  json.BeginObject();
  json.Member("file", path);
  if (files) json.Member("files", *files);
  json.Member("benchmarks", benchmarks);
  json.Member("settings_fingerprint", fingerprint);
  WriteCutOff(json.Key("cut_off"), cut_off);
  json.EndObject();
}

void WriteOptions(JsonWriter& json, const CompareOptions& options) {
  json.BeginObject();
  json.Member("alpha", options.alpha);
  json.Member("unconfirmed", options.unconfirmed == UnconfirmedPolicy::kFail ? "fail" : "warn");
  json.Member("allow_settings_mismatch", options.allow_settings_mismatch);
  json.Member("fail_on_missing", options.fail_on_missing);
  json.Key("threshold_overrides").BeginObject();
  for (const auto& [name, percent] : options.overrides.thresholds) {
    if (percent) {
      json.Member(name, *percent);
    } else {
      json.Member(name, "off");
    }
  }
  json.EndObject();
  json.EndObject();
}

void WriteDifferences(JsonWriter& json, const std::vector<ValueDifference>& differences) {
  json.BeginArray();
  for (const ValueDifference& difference : differences) {
    json.BeginObject();
    json.Member("key", difference.key);
    json.Member("baseline", difference.baseline);
    json.Member("contender", difference.contender);
    json.Member("prominent", difference.prominent);
    json.EndObject();
  }
  json.EndArray();
}

void WriteSettings(JsonWriter& json, const ComparisonReport& report) {
  const SettingsCheck& settings = report.settings;
  json.BeginObject();
  json.Member("checked", settings.baseline_fingerprint.has_value() &&
                             settings.contender_fingerprint.has_value());
  json.Member("mismatch", settings.mismatch);
  json.Member("refused", report.refused_for_settings);
  json.Member("baseline_file", settings.baseline_path);  // the run checked, or the first differing
  WriteDifferences(json.Key("differences"), settings.differences);
  json.Member("notes", settings.notes);
  json.EndObject();
}

void WriteSummary(JsonWriter& json, const Summary& s) {
  json.BeginObject();
  json.Member("compared", s.compared);
  json.Member("regressions", s.regressions);
  json.Member("unconfirmed_regressions", s.unconfirmed_regressions);
  json.Member("improvements", s.improvements);
  json.Member("unconfirmed_improvements", s.unconfirmed_improvements);
  json.Member("same", s.same);
  json.Member("report_only", s.report_only);
  json.Member("missing", s.missing);
  json.Member("new", s.added);
  json.Member("failed_in_contender", s.failed_in_contender);
  json.Member("failed_in_baseline", s.failed_in_baseline);
  json.Member("failed_in_both", s.failed_in_both);
  json.Member("throttled", s.throttled);
  json.Member("gpu_shared", s.shared);
  json.Member("failing", s.failing);
  json.Member("undecided", s.undecided);
  json.EndObject();
}

void WriteTesting(JsonWriter& json, const ComparisonReport& report) {
  const Testing& t = report.testing;
  json.BeginObject();
  json.Member("gated_tests", t.gated_tests);
  json.Member("history_tests", t.history_tests);
  json.Member("family_alpha", t.family_alpha);
  json.Member("per_test_alpha", t.per_test_alpha);
  json.Member("text", TestingLine(report));
  json.EndObject();
}

void WriteSuite(JsonWriter& json, const SuiteRatio& suite) {
  json.BeginObject();
  json.Member("benchmarks", suite.benchmarks);
  json.Member("metric", "real_time");
  json.Member("geometric_mean_ratio", suite.geometric_mean);
  if (suite.low && suite.high) {
    json.Member("interval_95_low", *suite.low);
    json.Member("interval_95_high", *suite.high);
  }
  json.EndObject();
}

// {"median": ..., "values": [...]} of one side of a metric.
void WriteValues(JsonWriter& json, double median, const std::vector<double>& values) {
  json.BeginObject();
  json.Member("median", median);
  json.Member("values", values);
  json.EndObject();
}

void WriteMetric(JsonWriter& json, const MetricComparison& metric) {
  json.BeginObject();
  json.Member("name", metric.name);
  json.Member("unit", metric.is_time ? std::string_view("ns") : metric.policy.unit);
  json.Member("direction", DirectionName(metric.policy.direction));
  json.Member("gated", metric.policy.threshold_percent.has_value());
  json.Member("threshold_percent", metric.applied_threshold_percent);  // null when inf or unset
  json.Member("threshold_source", metric.threshold_source);
  json.Member("floor", metric.applied_floor);
  json.Member("noise_percent", metric.noise_percent);
  json.Member("history_runs", metric.history_runs);
  json.Member("between_run_sd_percent", metric.between_run_sd_percent);
  json.Member("statistical", metric.policy.statistical);
  json.Member("rule", metric.policy.rule);
  WriteValues(json.Key("baseline"), metric.baseline_median, metric.baseline_values);
  WriteValues(json.Key("contender"), metric.contender_median, metric.contender_values);
  json.Member("change_percent", metric.change_percent);
  json.Member("change", FormatChangePercent(metric.change_percent));
  json.Member("p_value", metric.p_value);
  json.Member("test", TestName(metric));
  json.Member("verdict", VerdictName(metric.verdict));
  json.Member("worse", metric.worse);
  json.Member("fails_gate", metric.fails_gate);
  json.Member("notes", metric.notes);
  json.EndObject();
}

// {"baseline": ..., "contender": ...} of a flag or count of each side.
template <typename T>
void WritePair(JsonWriter& json, const T& baseline, const T& contender) {
  json.BeginObject();
  json.Member("baseline", baseline);
  json.Member("contender", contender);
  json.EndObject();
}

void WriteBenchmark(JsonWriter& json, const BenchmarkComparison& benchmark) {
  json.BeginObject();
  json.Member("name", benchmark.name);
  json.Member("status", StatusName(benchmark.status));
  if (benchmark.status == BenchmarkStatus::kCompared) {
    json.Member("verdict", VerdictName(benchmark.verdict));
  } else {
    json.Member("verdict", nullptr);
  }
  json.Member("worse", benchmark.worse);
  json.Member("fails_gate", benchmark.fails_gate);
  WritePair(json.Key("repetitions"), benchmark.baseline_repetitions,
            benchmark.contender_repetitions);
  WritePair(json.Key("throttled"), benchmark.throttled_baseline, benchmark.throttled_contender);
  WritePair(json.Key("gpu_shared"), benchmark.shared_baseline, benchmark.shared_contender);
  if (benchmark.failure_message.empty()) {
    json.Member("failure_message", nullptr);
  } else {
    json.Member("failure_message", benchmark.failure_message);
  }
  json.Key("metrics").BeginArray();
  for (const MetricComparison& metric : benchmark.metrics) WriteMetric(json, metric);
  json.EndArray();
  json.Member("notes", benchmark.notes);
  json.EndObject();
}

// Receives the text of the JSON report piece by piece, in order.
using JsonSink = std::function<void(std::string_view)>;

// The "benchmarks" array, most of the report (200 MB for 10,000 benchmarks x 12 metrics x 10
// repetitions). Written in rounds of kBenchmarksPerJsonRound, after each of which the text goes
// to `sink` and the writers' buffers are reused: the whole text is never held, and only a few
// MB of buffer are ever touched (page faults are costly on the 2-core CI VMs: writing that report
// took 3,400 with these rounds, 26,700 with rounds of 2,000). In a report large enough to be
// worth a thread each round is written in two halves on two threads.
constexpr std::size_t kBenchmarksPerJsonRound = 256;

void WriteBenchmarks(JsonWriter& json, const std::vector<BenchmarkComparison>& benchmarks,
                     const JsonSink& sink) {
  json.BeginArray();
  JsonWriter second_half = json.Continuation();
  InRoundsOnTwoHalves(
      benchmarks.size(), kBenchmarksPerJsonRound,
      [&](int half, std::size_t i) {
        WriteBenchmark(half == 0 ? json : second_half, benchmarks[i]);
      },
      [&] {
        for (JsonWriter* writer : {&json, &second_half}) {
          sink(writer->text());
          writer->ClearText();
        }
      });
  json.EndArray();
}

void StreamJson(const ComparisonReport& report, const JsonSink& sink) {
  JsonWriter json;
  json.BeginObject();
  json.Member("tool", "gpubench-compare");
  json.Member("format_version", 1);
  json.Member("exit_code", report.exit_code);
  json.Member("gate", report.exit_code == kExitOk                 ? "pass"
                      : report.exit_code == kExitSettingsMismatch ? "settings_mismatch"
                                                                  : "fail");
  WriteSide(json.Key("baseline"), report.baseline_path, &report.baseline_paths,
            report.baseline_benchmark_count, report.settings.baseline_fingerprint,
            report.baseline_cut_off);
  WriteSide(json.Key("contender"), report.contender_path, nullptr, report.contender_benchmark_count,
            report.settings.contender_fingerprint, report.contender_cut_off);
  WriteOptions(json.Key("options"), report.options);
  WriteSettings(json.Key("settings"), report);
  WriteDifferences(json.Key("device_differences"), report.device_differences);
  json.Member("different_gpu_or_driver",
              std::any_of(report.device_differences.begin(), report.device_differences.end(),
                          [](const ValueDifference& difference) { return difference.prominent; }));
  json.Member("warnings", report.warnings);
  WriteSummary(json.Key("summary"), report.summary);
  WriteTesting(json.Key("testing"), report);
  WriteSuite(json.Key("suite"), report.suite);
  WriteBenchmarks(json.Key("benchmarks"), report.benchmarks, sink);
  json.EndObject();
  sink(json.text());
  sink("\n");
}

}  // namespace

std::string FormatConsole(const ComparisonReport& report, bool color) {
  std::string out;
  out += "gpubench-compare: baseline " + report.baseline_path + " (" +
         std::to_string(report.baseline_benchmark_count) + " benchmarks) vs contender " +
         report.contender_path + " (" + std::to_string(report.contender_benchmark_count) +
         " benchmarks), alpha " + Printf("%g", report.options.alpha) + "\n";
  for (const auto& [tone, text] : Banners(report)) {
    AppendColored(out, "!! " + text, tone, color);
    out += "\n";
  }
  if (!report.refused_for_settings) {
    AppendConsoleTable(report, color, out);
    out += "\n" + SummaryLine(report) + "\n" + TestingLine(report) + "\n";
    if (const std::string suite = SuiteLine(report); !suite.empty()) out += suite + "\n";
  }
  const Tone gate_tone = report.exit_code == kExitOk ? Tone::kGood : Tone::kBad;
  AppendColored(out, GateLine(report), gate_tone, color);
  out += "\n";
  return out;
}

std::string FormatMarkdown(const ComparisonReport& report) {
  std::string out;
  const char* icon = report.exit_code == kExitOk ? "✅" : "❌";
  out +=
      "## " + std::string(icon) + " gpubench-compare: " + MarkdownCell(GateLine(report)) + "\n\n";
  out += "Baseline `" + MarkdownCell(report.baseline_path) + "` (" +
         std::to_string(report.baseline_benchmark_count) + " benchmarks) vs contender `" +
         MarkdownCell(report.contender_path) + "` (" +
         std::to_string(report.contender_benchmark_count) + " benchmarks), alpha " +
         Printf("%g", report.options.alpha) + ".\n\n";
  const auto banners = Banners(report);
  if (!banners.empty()) {
    out += "> [!WARNING]\n";
    for (const auto& [tone, text] : banners) {
      // Bold must not start with a space in Markdown, so drop the indent.
      const std::string cell = MarkdownCell(text.substr(text.find_first_not_of(' ')));
      out += "> " + (tone == Tone::kBad ? "**" + cell + "**" : cell) + "<br>\n";
    }
    out += "\n";
  }
  if (report.refused_for_settings) {
    out += "| Setting | Baseline | Contender |\n| --- | --- | --- |\n";
    for (const ValueDifference& difference : report.settings.differences) {
      out += "| `" + MarkdownCell(difference.key) + "` | " +
             MarkdownCell(ShowValue(difference.baseline)) + " | " +
             MarkdownCell(ShowValue(difference.contender)) + " |\n";
    }
    return out;
  }
  out += "**Summary:** " + MarkdownCell(SummaryLine(report)) + "\n\n";
  out += "**Tests:** " + MarkdownCell(TestingLine(report)) + "\n\n";
  if (const std::string suite = SuiteLine(report); !suite.empty()) {
    out += "**Suite:** " + MarkdownCell(suite) + "\n\n";
  }
  const bool with_clock = AnyThrottled(report);
  TableRows notable;
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    AppendRows(benchmark, notable, true);
  }
  if (!notable.empty()) {
    out += "### Changes, failures, missing and new benchmarks\n\n";
    AppendMarkdownTable(notable, with_clock, kMarkdownMaxDetailRows, out);
    out += "\n";
  }
  TableRows all;
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    AppendRows(benchmark, all, false);
  }
  out += "<details><summary>All results (" + std::to_string(all.size()) + " rows)</summary>\n\n";
  AppendMarkdownTable(all, with_clock, kMarkdownMaxDetailRows, out);
  out += "\n</details>\n";
  return out;
}

std::string FormatJson(const ComparisonReport& report) {
  std::string text;
  StreamJson(report, [&](std::string_view piece) { text += piece; });
  return text;
}

void WriteJson(const ComparisonReport& report, std::ostream& out) {
  StreamJson(report, [&](std::string_view piece) {
    out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
  });
}

}  // namespace gpubench::compare
