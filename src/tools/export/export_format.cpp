#include "tools/export/export_format.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <set>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/base/text.hpp"
#include "tools/export/run_table.hpp"
#include "tools/gate/run_summary.hpp"

namespace gpubench::tools {
namespace {

using detail::Result;
using detail::Status;

using OrderedJson = nlohmann::ordered_json;

// Every metric any benchmark of the run has, in order of first appearance.
std::vector<std::string> MetricsInRun(const BenchmarkFile& run) {
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  for (const BenchmarkRecord& record : run.benchmarks) {
    for (const MetricSeries& series : record.metrics) {
      if (seen.insert(series.name).second) names.push_back(series.name);
    }
  }
  return names;
}

// The repetitions' median, spread and count of one metric of one benchmark, or nothing (with a
// note) when its values cannot be exported.
struct Value {
  Spread spread;
  bool ok = false;
};

Value ValueOf(const BenchmarkRecord& record, const std::string& metric,
              std::vector<std::string>& notes) {
  Value value;
  const MetricSeries* series = record.FindMetric(metric);
  if (!series || series->values.empty()) return value;
  value.spread = Summarize(series->values);
  if (!value.spread.finite) {
    notes.push_back("benchmark \"" + record.name + "\": " + metric +
                    " is not finite in some repetition; not exported");
    return value;
  }
  value.ok = true;
  return value;
}

std::string FailureNote(const BenchmarkRecord& record) {
  return "benchmark \"" + record.name + "\" " + (record.skipped ? "was skipped" : "failed") +
         (record.failure_message.empty() ? "" : " (" + record.failure_message + ")") +
         "; not exported";
}

// github-action-benchmark's `extra` (shown in its dashboard's tooltips): the GPU, the clock
// the benchmark ran at against the rated one, the repetitions and the settings fingerprint.
std::string ExtraText(const BenchmarkFile& run, const BenchmarkRecord& record) {
  std::string extra = "gpu: " + ContextOr(run, context_key::kGpuName, "unknown");
  const std::string rated = ContextOr(run, context_key::kGpuSmClockRatedMhz, "unknown");
  const MetricSeries* clock = record.FindMetric(counter::kSmClockMhz);
  const Spread actual = clock ? Summarize(clock->values) : Spread{};
  extra += "\nsm_clock: " +
           (actual.count > 0 && actual.finite ? Printf("%.0f", actual.median) + " MHz"
                                              : std::string("not measured")) +
           " (rated " + rated + " MHz)";
  std::size_t throttled = 0;
  if (Throttled(record, &throttled)) {
    extra += "\nthrottled: " + std::to_string(throttled) + " of " +
             std::to_string(record.RepetitionCount()) + " repetitions";
  }
  std::size_t shared = 0;
  if (Shared(record, &shared)) {
    extra += "\ngpu_shared: another process used the GPU in " + std::to_string(shared) + " of " +
             std::to_string(record.RepetitionCount()) + " repetitions";
  }
  extra += "\nrepetitions: " + std::to_string(record.RepetitionCount());
  if (record.aggregates_only) {
    extra += " (file has aggregates only: the value is GB's median, no spread)";
  }
  extra += "\nsettings_fingerprint: " +
           ContextOr(run, context_key::kSettingsFingerprint, "none (not written by gpubench)");
  return extra;
}

// "± 12.3" in the value's unit: the sample standard deviation of the repetitions, in the form
// github-action-benchmark's extractRangeInfo reads ("±" or "+-", then a number).
std::string RangeText(const Spread& spread) { return "\u00b1 " + Printf("%.6g", spread.stddev); }

// A JSON number: the shortest text that reads back as the same double.
void AppendNumber(std::string& out, double value) {
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, error == std::errc() ? end : buffer);
}

// A JSON string with nlohmann's escaping. Printable ASCII without '"' and '\\' needs none and
// is copied as it is (150,000 strings for 10,000 benchmarks); anything else goes to nlohmann.
void AppendString(std::string& out, const std::string& text) {
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
  });
  if (!plain) {
    out += OrderedJson(text).dump();
    return;
  }
  out += '"';
  out += text;
  out += '"';
}

// One entry of github-action-benchmark's custom format. The files hold one entry per benchmark
// and counter (50,000 for 10,000 benchmarks), so they are written directly.
void AppendEntry(std::string& out, const std::string& name, const std::string& unit,
                 const Spread& spread, const std::string& extra) {
  out += out.size() <= 2 ? "\n  {\n    \"name\": " : ",\n  {\n    \"name\": ";
  AppendString(out, name);
  out += ",\n    \"unit\": ";
  AppendString(out, unit);
  out += ",\n    \"value\": ";
  AppendNumber(out, spread.median);
  if (spread.count >= 2) {
    out += ",\n    \"range\": ";
    AppendString(out, RangeText(spread));
  }
  out += ",\n    \"extra\": ";
  AppendString(out, extra);
  out += "\n  }";
}

// The Bencher slug of each metric; fails when one has none or two share one.
Status BencherSlugs(const std::vector<std::string>& metrics, std::vector<std::string>& slugs) {
  std::set<std::string> seen_slugs;
  for (const std::string& metric : metrics) {
    slugs.push_back(BencherSlug(metric));
    if (slugs.back().empty()) {
      return Status::InvalidInput("counter \"" + metric +
                                  "\" has no letters or digits for a Bencher slug");
    }
    if (!seen_slugs.insert(slugs.back()).second) {
      return Status::InvalidInput("two counters get the Bencher slug \"" + slugs.back() +
                                  "\" (the second is \"" + metric +
                                  "\"); export one of them with --counters");
    }
  }
  return Status::Ok();
}

// A dashboard charts one number per benchmark and counter, the median of its repetitions: for a
// code (stop_reason, clock_event_reasons) that median names nothing, so codes are refused.
Status RefuseCodes(const std::vector<std::string>& metrics, const BenchmarkFile& run,
                   const ExportOptions& options) {
  std::vector<std::string> codes;
  for (const std::string& metric : metrics) {
    const std::string unit = DescribeMetric(metric, run, options.overrides).unit;
    if (CodeKindOfUnit(unit) != CodeKind::kNone) codes.push_back(metric + " (unit " + unit + ")");
  }
  if (codes.empty()) return Status::Ok();
  return Status::InvalidInput(Join(codes, ", ") +
                              (codes.size() == 1 ? " is a code" : " are codes") +
                              ", not a quantity: a dashboard would chart the median of codes; "
                              "--to csv writes each repetition's in words");
}

}  // namespace

std::string WhyNothingExported(const BenchmarkFile& run, const std::vector<std::string>& notes) {
  if (run.benchmarks.empty()) return run.path + " has no benchmark";
  const BenchmarkRecord* first_ran = nullptr;
  const BenchmarkRecord* first_failed = nullptr;
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (!record.failed && !first_ran) first_ran = &record;
    if (record.failed && !first_failed) first_failed = &record;
  }
  if (!first_ran) {
    return "every benchmark of " + run.path +
           " is an error or skipped (first: " + first_failed->name + ": " +
           (first_failed->skipped ? "skipped" : "error") +
           (first_failed->failure_message.empty() ? "" : ": " + first_failed->failure_message) +
           ")";
  }
  // Some ran, but every value of theirs was left out (not finite, or a counter only failed
  // benchmarks have).
  return "no benchmark of " + run.path + " has a value of the exported counters to export" +
         (notes.empty() ? "" : " (first left out: " + notes.front() + ")");
}

Result<std::vector<std::string>> SelectExportMetrics(const BenchmarkFile& run,
                                                     const ExportOptions& options,
                                                     bool every_metric_by_default) {
  const std::vector<std::string> present = MetricsInRun(run);
  const auto has = [&](const std::string& name) {
    return std::find(present.begin(), present.end(), name) != present.end();
  };
  std::vector<std::string> selected;
  const auto add = [&](const std::string& name) {
    if (std::find(selected.begin(), selected.end(), name) == selected.end()) {
      selected.push_back(name);
    }
  };
  if (options.metrics.empty() && every_metric_by_default) return present;
  if (options.metrics.empty()) {
    for (const std::string& name : DefaultGatedMetrics()) {
      if (has(name)) add(name);
    }
    return selected;
  }
  for (std::string name : options.metrics) {
    if (name == "time") name = std::string(counter::kRealTime);
    if (!name.empty() && name.back() == '/') {
      bool any = false;
      for (const std::string& metric : present) {
        if (metric.size() > name.size() && metric.compare(0, name.size(), name) == 0) {
          add(metric);
          any = true;
        }
      }
      if (any) continue;
    } else if (has(name)) {
      add(name);
      continue;
    }
    return Status::InvalidInput(run.path + ": no benchmark has the counter \"" + name +
                                "\"; the benchmarks have: " + Join(present, ", "));
  }
  return selected;
}

Result<ExportResult> ExportGithubActionBenchmark(const BenchmarkFile& run,
                                                 const ExportOptions& options) {
  const Result<std::vector<std::string>> selected = SelectExportMetrics(run, options, false);
  if (!selected.ok()) return selected.status();
  const std::vector<std::string>& metrics = selected.value();
  GPUBENCH_RETURN_IF_ERROR(RefuseCodes(metrics, run, options));
  std::vector<MetricDescription> descriptions;
  std::vector<std::string> undirected;
  for (const std::string& metric : metrics) {
    descriptions.push_back(DescribeMetric(metric, run, options.overrides));
    if (descriptions.back().direction == Direction::kUnknown) undirected.push_back(metric);
  }
  if (!undirected.empty()) {
    return Status::InvalidInput(
        "github-action-benchmark needs a direction for every series, and neither the counter "
        "vocabulary nor the file's gpubench_counter_units says which way is better for " +
        Join(undirected, ", ") + "; pass --direction NAME=higher or --direction NAME=lower");
  }
  ExportResult result;
  std::string smaller = "[", bigger = "[";
  std::size_t smaller_count = 0, bigger_count = 0;
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (record.failed) {
      result.notes.push_back(FailureNote(record));
      continue;
    }
    std::string extra;
    bool any = false;
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      const Value value = ValueOf(record, metrics[i], result.notes);
      if (!value.ok) continue;
      if (extra.empty()) extra = ExtraText(run, record);
      const bool higher = descriptions[i].direction == Direction::kHigherIsBetter;
      AppendEntry(higher ? bigger : smaller, record.name + " - " + metrics[i],
                  descriptions[i].unit.empty() ? "value" : descriptions[i].unit, value.spread,
                  extra);
      ++(higher ? bigger_count : smaller_count);
      any = true;
    }
    if (any) ++result.benchmarks;
  }
  result.smaller_is_better.count = smaller_count;
  result.bigger_is_better.count = bigger_count;
  if (smaller_count > 0) result.smaller_is_better.text = smaller + "\n]\n";
  if (bigger_count > 0) result.bigger_is_better.text = bigger + "\n]\n";
  return result;
}

std::string BencherSlug(std::string_view metric) {
  if (metric == counter::kRealTime) return "latency";
  std::string slug;
  for (char c : metric) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (c >= 'A' && c <= 'Z') {
      slug += static_cast<char>(c - 'A' + 'a');
    } else if (alnum) {
      slug += c;
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  if (slug.size() > kBencherMaxSlug) slug.resize(kBencherMaxSlug);
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug;
}

std::string BencherUnits(std::string_view unit) {
  // The first three are Bencher's own unit strings, which it scales (us, ms, KB, GB, ...).
  if (unit == "ns") return "nanoseconds (ns)";
  if (unit == "s") return "seconds (s)";
  if (unit == "bytes") return "bytes (B)";
  if (unit == "bytes/s") return "bytes / second (B/s)";
  if (unit == "1/s") return "items / second (1/s)";
  if (unit == "MHz") return "megahertz (MHz)";
  if (unit == "%") return "percentage (%)";
  if (unit == "count") return "count";
  if (unit == "flag") return "flag (0 or 1)";
  if (unit.empty()) return "units";
  return std::string(unit);
}

BencherMeasure DescribeBencherMeasure(std::string_view metric, const BenchmarkFile* file) {
  const BenchmarkFile empty;
  const MetricDescription description = DescribeMetric(metric, file ? *file : empty);
  BencherMeasure measure;
  measure.metric = std::string(metric);
  measure.slug = BencherSlug(metric);
  measure.built_in = metric == counter::kRealTime;
  measure.name = measure.built_in ? "Latency" : std::string(metric);
  measure.units = BencherUnits(description.unit);
  measure.better = description.direction == Direction::kLowerIsBetter    ? "lower"
                   : description.direction == Direction::kHigherIsBetter ? "higher"
                   : description.known                                   ? "neither"
                                                                         : "unknown";
  return measure;
}

Result<ExportResult> ExportBencher(const BenchmarkFile& run, const ExportOptions& options) {
  const Result<std::vector<std::string>> selected = SelectExportMetrics(run, options, false);
  if (!selected.ok()) return selected.status();
  const std::vector<std::string>& metrics = selected.value();
  GPUBENCH_RETURN_IF_ERROR(RefuseCodes(metrics, run, options));
  std::vector<std::string> slugs;
  GPUBENCH_RETURN_IF_ERROR(BencherSlugs(metrics, slugs));
  ExportResult result;
  std::string text = "{";
  std::size_t measures = 0;
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (record.failed) {
      result.notes.push_back(FailureNote(record));
      continue;
    }
    if (record.name.empty() || record.name.size() > kBencherMaxBenchmarkName) {
      return Status::InvalidInput(run.path + ": benchmark \"" + record.name.substr(0, 80) +
                                  "...\" has " + std::to_string(record.name.size()) +
                                  " bytes; Bencher takes benchmark names of 1 to " +
                                  std::to_string(kBencherMaxBenchmarkName) + " bytes");
    }
    std::string benchmark;
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      const Value value = ValueOf(record, metrics[i], result.notes);
      if (!value.ok) continue;
      benchmark += benchmark.empty() ? "{\"" : ", \"";
      benchmark += slugs[i];  // [a-z0-9-]: nothing to escape
      benchmark += "\": {\"value\": ";
      AppendNumber(benchmark, value.spread.median);
      if (value.spread.count >= 2) {
        benchmark += ", \"lower_value\": ";
        AppendNumber(benchmark, value.spread.min);
        benchmark += ", \"upper_value\": ";
        AppendNumber(benchmark, value.spread.max);
      }
      benchmark += "}";
      ++measures;
    }
    if (benchmark.empty()) continue;
    text += result.benchmarks == 0 ? "\n  " : ",\n  ";
    AppendString(text, record.name);
    text += ": " + benchmark + "}";
    ++result.benchmarks;
  }
  text += result.benchmarks == 0 ? "}\n" : "\n}\n";
  result.bmf.text = std::move(text);
  result.bmf.count = measures;
  return result;
}

std::vector<BencherMeasure> ListBencherMeasures(const BenchmarkFile* file) {
  std::vector<BencherMeasure> measures;
  const BenchmarkFile empty;
  const auto is_code = [&](std::string_view metric) {
    return CodeKindOfUnit(DescribeMetric(metric, file ? *file : empty).unit) != CodeKind::kNone;
  };
  if (file) {
    for (const std::string& metric : MetricsInRun(*file)) {
      if (!is_code(metric)) measures.push_back(DescribeBencherMeasure(metric, file));
    }
    return measures;
  }
  for (const CounterInfo& counter : kCounters) {
    if (is_code(counter.name)) continue;
    std::string name(counter.name);
    if (name.back() == '/') name += "<kernel>";
    measures.push_back(DescribeBencherMeasure(name, nullptr));
    if (counter.name.back() == '/') measures.back().slug = BencherSlug(counter.name) + "-<kernel>";
  }
  return measures;
}

std::string FormatMeasureTable(const std::vector<BencherMeasure>& measures) {
  std::vector<std::vector<std::string>> rows = {
      {"counter", "Bencher measure name", "slug (BMF key)", "units", "better", "default"}};
  const std::vector<std::string> defaults = DefaultGatedMetrics();
  for (const BencherMeasure& measure : measures) {
    const bool is_default =
        std::find(defaults.begin(), defaults.end(), measure.metric) != defaults.end();
    rows.push_back({measure.metric, measure.name + (measure.built_in ? " (built in)" : ""),
                    measure.slug, measure.units, measure.better, is_default ? "yes" : ""});
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string text;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    text += line + "\n";
  }
  return text;
}

}  // namespace gpubench::tools
