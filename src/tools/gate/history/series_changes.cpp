#include "tools/gate/history/series_changes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/gate_tuning.hpp"
#include "tools/gate/history/history.hpp"

namespace gpubench::tools {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string ContextOr(const BenchmarkFile& file, const char* key) {
  const std::string* value = file.ContextValue(key);
  return value ? *value : std::string();
}

// The metrics of the series that the gate judges, in order of first appearance.
std::vector<std::string> JudgedMetrics(const std::vector<const BenchmarkFile*>& runs,
                                       const PolicyOverrides& overrides,
                                       std::map<std::string, MetricPolicy>& policies) {
  std::vector<std::string> metrics;
  for (const BenchmarkFile* run : runs) {
    DeclaredCounters declared;
    if (const std::string* units = run->ContextValue(context_key::kCounterUnits)) {
      declared = ParseCounterUnits(*units);
    }
    for (const BenchmarkRecord& record : run->benchmarks) {
      for (const MetricSeries& series : record.metrics) {
        if (policies.count(series.name)) continue;
        MetricPolicy policy = ResolveMetricPolicy(series.name, overrides, declared);
        const bool judged = policy.threshold_percent.has_value() && !policy.code &&
                            policy.gating != Gating::kFlag && policy.gating != Gating::kReportOnly;
        const bool from_user = policy.threshold_from_user && policy.threshold_percent.has_value();
        if (judged || from_user) metrics.push_back(series.name);
        policies.emplace(series.name, std::move(policy));
      }
    }
  }
  return metrics;
}

// The repetitions of a record that count: those not marked gpu_shared or sm_clock_throttled,
// and not reused from an earlier run (reuse_status reused: its source's value, no new sample).
// Empty `keep` means all. Sets *why to the reason when some are held out (*reused for reuse).
std::vector<bool> CountingRepetitions(const BenchmarkRecord& record, std::string* why,
                                      bool* reused) {
  std::vector<bool> keep = ReusedRepetitions(record);
  *reused = std::find(keep.begin(), keep.end(), true) != keep.end();
  keep.flip();
  bool held = false;
  for (const char* flag : {counter::kGpuShared, counter::kSmClockThrottled}) {
    const MetricSeries* series = record.FindMetric(flag);
    if (!series) continue;
    for (std::size_t i = 0; i < series->values.size(); ++i) {
      if (!(series->values[i] >= 0.5)) continue;
      if (series->values.size() == keep.size()) {
        keep[i] = false;
      } else {
        std::fill(keep.begin(), keep.end(), false);  // cannot tell which row: the run is out
      }
      if (!held || why->find(flag) == std::string::npos) {
        *why += (why->empty() ? "" : ", ") + std::string(flag);
      }
      held = true;
    }
  }
  return keep;
}

double RunValue(const BenchmarkRecord& record, const std::string& metric,
                const std::vector<bool>& keep) {
  const MetricSeries* series = record.FindMetric(metric);
  if (!series || series->values.empty()) return kNaN;
  std::vector<double> kept;
  for (std::size_t i = 0; i < series->values.size(); ++i) {
    if (series->values.size() != keep.size() || keep[i]) kept.push_back(series->values[i]);
  }
  return kept.empty() ? kNaN : Median(kept);
}

// One benchmark's values of every judged metric, per run (NaN: no value), and its traffic.
struct BenchmarkSeries {
  std::string name;
  std::map<std::string, std::vector<double>> values;  // by metric
};

ChangeDirection DirectionOf(const MetricPolicy& policy, double before, double after) {
  if (policy.direction == Direction::kUnknown || before == after) return ChangeDirection::kUnknown;
  const bool up = after > before;
  return up == (policy.direction == Direction::kLowerIsBetter) ? ChangeDirection::kRegression
                                                               : ChangeDirection::kImprovement;
}

// A stretch of runs (global indices) of one fingerprint on one GPU, in series order.
struct GpuRuns {
  std::string gpu;
  std::vector<std::size_t> runs;
};

// Groups of runs that may be compared: one per settings fingerprint (in order of first
// appearance), each split by GPU.
struct FingerprintGroup {
  std::string fingerprint;
  std::vector<std::size_t> runs;  // in series order
  std::vector<GpuRuns> gpus;      // by first appearance
};

std::vector<FingerprintGroup> GroupRuns(const std::vector<SeriesRun>& runs) {
  std::vector<FingerprintGroup> groups;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto group = std::find_if(groups.begin(), groups.end(), [&](const FingerprintGroup& g) {
      return g.fingerprint == runs[i].fingerprint;
    });
    if (group == groups.end()) {
      groups.push_back({runs[i].fingerprint, {}, {}});
      group = std::prev(groups.end());
    }
    group->runs.push_back(i);
    auto gpu = std::find_if(group->gpus.begin(), group->gpus.end(),
                            [&](const GpuRuns& g) { return g.gpu == runs[i].gpu; });
    if (gpu == group->gpus.end()) {
      group->gpus.push_back({runs[i].gpu, {}});
      gpu = std::prev(group->gpus.end());
    }
    gpu->runs.push_back(i);
  }
  return groups;
}

// Where a fingerprint group's runs move from one GPU to the next: [begin, end) of `runs`.
struct GpuBlock {
  std::size_t begin = 0, end = 0;
};
std::vector<GpuBlock> Blocks(const FingerprintGroup& group, const std::vector<SeriesRun>& runs) {
  std::vector<GpuBlock> blocks;
  for (std::size_t i = 0; i < group.runs.size(); ++i) {
    if (i == 0 || runs[group.runs[i]].gpu != runs[group.runs[i - 1]].gpu) {
      blocks.push_back({i, i});
    }
    blocks.back().end = i + 1;
  }
  return blocks;
}

std::size_t Finite(const std::vector<double>& values) {
  return static_cast<std::size_t>(
      std::count_if(values.begin(), values.end(), [](double v) { return std::isfinite(v); }));
}

ChangeOptions EngineOptions(const MetricPolicy& policy, double traffic,
                            const SeriesOptions& options, std::size_t tests) {
  ChangeOptions engine;
  engine.family_alpha = options.family_alpha;
  engine.series_tested = std::max<std::size_t>(1, tests);
  if (policy.threshold_from_user && policy.threshold_percent) {
    engine.minimum_percent = *policy.threshold_percent;
  }
  if (policy.gating == Gating::kBytes && !policy.threshold_from_user) {
    const double share = std::isfinite(traffic) ? kGateTrafficFractionPercent / 100 * traffic : 0;
    engine.absolute_floor = std::max(policy.floor, share);
  }
  return engine;
}

// Presence notes: a benchmark missing from some runs (added or dropped part-way).
void NotePresence(const std::string& name, const std::vector<bool>& present,
                  const std::vector<SeriesRun>& runs, std::vector<std::string>& notes) {
  const std::size_t count =
      static_cast<std::size_t>(std::count(present.begin(), present.end(), true));
  if (count == present.size() || count == 0) return;
  const std::size_t first =
      static_cast<std::size_t>(std::find(present.begin(), present.end(), true) - present.begin());
  const std::size_t last =
      present.size() - 1 -
      static_cast<std::size_t>(std::find(present.rbegin(), present.rend(), true) -
                               present.rbegin());
  std::string text =
      name + ": in " + std::to_string(count) + " of " + std::to_string(present.size()) + " runs";
  if (last + 1 - first == count) {
    if (first > 0) text += ", added in " + runs[first].file->path;
    if (last + 1 < present.size()) text += ", last in " + runs[last].file->path;
  }
  notes.push_back(text + " (its series has the runs that have it)");
}

}  // namespace

std::size_t SeriesReport::PracticalChanges() const {
  return static_cast<std::size_t>(std::count_if(changes.begin(), changes.end(),
                                                [](const SeriesChange& c) { return c.practical; }));
}

const char* SeriesChangeKindName(SeriesChangeKind kind) {
  switch (kind) {
    case SeriesChangeKind::kDrift:
      return "drift";
    case SeriesChangeKind::kGpu:
      return "gpu";
    case SeriesChangeKind::kStep:
      break;
  }
  return "step";
}

const char* ChangeDirectionName(ChangeDirection direction) {
  switch (direction) {
    case ChangeDirection::kRegression:
      return "regression";
    case ChangeDirection::kImprovement:
      return "improvement";
    case ChangeDirection::kGpuOffset:
      return "gpu_offset";
    case ChangeDirection::kUnknown:
      break;
  }
  return "unknown";
}

namespace {

// Seconds since 1970-01-01 UTC of an ISO 8601 date and time as GB writes "date"
// ("2026-11-29T20:26:41+00:00": local time and its offset; also "Z", "+0100", a fraction of a
// second, or no offset at all, read as UTC); nullopt for anything else.
std::optional<double> UtcSeconds(const std::string& text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, consumed = 0;
  double second = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%n", &year, &month, &day, &hour, &minute,
                  &second, &consumed) != 6 ||
      month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second < 0 ||
      second >= 61) {
    return std::nullopt;
  }
  std::string_view zone = std::string_view(text).substr(static_cast<std::size_t>(consumed));
  double offset = 0;
  if (zone == "Z") {
    zone = "";
  } else if (!zone.empty()) {
    int hours = 0, minutes = 0, used = 0;
    const std::string rest(zone.substr(1));
    if ((zone[0] != '+' && zone[0] != '-') ||
        (std::sscanf(rest.c_str(), "%2d:%2d%n", &hours, &minutes, &used) != 2 &&
         std::sscanf(rest.c_str(), "%2d%2d%n", &hours, &minutes, &used) != 2) ||
        static_cast<std::size_t>(used) != rest.size() || hours > 23 || minutes > 59) {
      return std::nullopt;
    }
    offset = (zone[0] == '-' ? -1 : 1) * (hours * 3600.0 + minutes * 60.0);
  }
  // Days from the civil date (the proleptic Gregorian calendar).
  const int y = year - (month <= 2 ? 1 : 0);
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int year_of_era = y - era * 400;
  const int day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  const double days = era * 146097.0 + day_of_era - 719468.0;
  return days * 86400 + hour * 3600.0 + minute * 60.0 + second - offset;
}

}  // namespace

detail::Status OrderRunsBy(std::vector<const BenchmarkFile*>& runs, const std::string& key) {
  bool numbers = true, times = true;
  for (const BenchmarkFile* run : runs) {
    const std::string* value = run->ContextValue(key);
    if (!value) {
      return detail::Status::InvalidInput(
          run->path + " has no context key '" + key +
          "' to order the runs by: pass --order-by with a key every run has (GB writes 'date'; "
          "--benchmark_context=KEY=VALUE adds one), or give the files oldest first without "
          "--order-by");
    }
    char* end = nullptr;
    std::strtod(value->c_str(), &end);
    numbers = numbers && !value->empty() && end == value->c_str() + value->size();
    times = times && UtcSeconds(*value).has_value();
  }
  // Dates in time order, whatever their offsets: runners in other time zones, or either side of
  // a change to summer time, would otherwise sort by their local clocks.
  std::stable_sort(runs.begin(), runs.end(), [&](const BenchmarkFile* a, const BenchmarkFile* b) {
    const std::string& x = *a->ContextValue(key);
    const std::string& y = *b->ContextValue(key);
    if (numbers) return std::strtod(x.c_str(), nullptr) < std::strtod(y.c_str(), nullptr);
    if (times) return *UtcSeconds(x) < *UtcSeconds(y);
    return x < y;
  });
  return detail::Status::Ok();
}

SeriesReport AnalyseSeries(const std::vector<const BenchmarkFile*>& files,
                           const SeriesOptions& options) {
  SeriesReport report;
  for (const BenchmarkFile* file : files) {
    report.runs.push_back({file, ContextOr(*file, options.commit_key.c_str()),
                           ContextOr(*file, context_key::kGpuUuid),
                           ContextOr(*file, context_key::kSettingsFingerprint)});
  }
  const std::vector<SeriesRun>& runs = report.runs;
  for (std::size_t i = 1; i < runs.size(); ++i) {
    if (runs[i].fingerprint != runs[i - 1].fingerprint) {
      report.settings_changes.push_back({i, runs[i - 1].fingerprint, runs[i].fingerprint});
    }
  }
  {
    std::vector<std::string> gpus;
    for (const SeriesRun& run : runs) {
      if (std::find(gpus.begin(), gpus.end(), run.gpu) == gpus.end()) gpus.push_back(run.gpu);
    }
    report.gpus = gpus.size();
  }

  std::map<std::string, MetricPolicy> policies;
  const std::vector<std::string> metrics = JudgedMetrics(files, options.overrides, policies);

  // Each benchmark's per-run values, with held-out rows noted per run.
  std::vector<BenchmarkSeries> benchmarks;
  std::unordered_map<std::string, std::size_t> index;
  for (const BenchmarkFile* file : files) {
    for (const BenchmarkRecord& record : file->benchmarks) {
      if (index.emplace(record.name, benchmarks.size()).second) {
        benchmarks.push_back({record.name, {}});
      }
    }
  }
  report.benchmarks = benchmarks.size();
  std::map<std::string, std::vector<std::string>> held_out_by_reason;  // reason -> "run: bench"
  std::vector<std::string> reused_rows;                                // "run bench (n of m)"
  for (BenchmarkSeries& series : benchmarks) {
    std::vector<bool> present(runs.size(), false);
    for (const std::string& metric : metrics) series.values[metric].assign(runs.size(), kNaN);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const BenchmarkRecord* record = runs[r].file->Find(series.name);
      if (!record || record->failed) continue;
      present[r] = true;
      std::string why;
      bool reused = false;
      const std::vector<bool> keep = CountingRepetitions(*record, &why, &reused);
      if (reused) {
        reused_rows.push_back(runs[r].file->path + " " + series.name + " (" +
                              std::to_string(CountReused(*record)) + " of " +
                              std::to_string(keep.size()) + " repetitions)");
      }
      if (!why.empty()) {
        const std::size_t kept =
            static_cast<std::size_t>(std::count(keep.begin(), keep.end(), true));
        held_out_by_reason[why].push_back(runs[r].file->path + " " + series.name + " (" +
                                          std::to_string(keep.size() - kept) + " of " +
                                          std::to_string(keep.size()) + " repetitions)");
      }
      for (const std::string& metric : metrics) {
        series.values[metric][r] = RunValue(*record, metric, keep);
      }
    }
    NotePresence(series.name, present, runs, report.notes);
  }
  for (const auto& [why, rows] : held_out_by_reason) {
    std::string text = std::to_string(rows.size()) + " benchmark run(s) with rows marked " + why +
                       " (another process used the GPU, or its clock was throttled): those rows "
                       "are held out of the series: ";
    for (std::size_t i = 0; i < rows.size() && i < 4; ++i) text += (i ? "; " : "") + rows[i];
    if (rows.size() > 4) text += "; …";
    report.notes.push_back(text);
  }
  if (!reused_rows.empty()) {
    std::string text = std::to_string(reused_rows.size()) +
                       " benchmark run(s) with rows reused from an earlier run (reuse_status "
                       "reused: the earlier run's values, no new measurement): those rows are "
                       "held out of the series: ";
    for (std::size_t i = 0; i < reused_rows.size() && i < 4; ++i) {
      text += (i ? "; " : "") + reused_rows[i];
    }
    if (reused_rows.size() > 4) text += "; …";
    report.notes.push_back(text);
  }

  const std::vector<FingerprintGroup> groups = GroupRuns(runs);
  const std::size_t minimum_runs = 2 * kChangeMinimumSegmentRuns;

  // First pass: count the tests that share family_alpha (series with enough runs, and each GPU
  // boundary with enough runs either side).
  std::size_t tests = 0, short_series = 0;
  for (const FingerprintGroup& group : groups) {
    const std::vector<GpuBlock> blocks = Blocks(group, runs);
    for (const BenchmarkSeries& series : benchmarks) {
      for (const std::string& metric : metrics) {
        const std::vector<double>& all = series.values.at(metric);
        for (const GpuRuns& gpu : group.gpus) {
          std::vector<double> values;
          for (std::size_t r : gpu.runs) values.push_back(all[r]);
          const std::size_t finite = Finite(values);
          if (finite >= minimum_runs) {
            ++tests;
            ++report.series_tested;
          } else if (finite > 0) {
            ++short_series;
          }
        }
        for (std::size_t b = 1; b < blocks.size(); ++b) {
          std::size_t left = 0, right = 0;
          for (std::size_t i = blocks[b - 1].begin; i < blocks[b - 1].end; ++i)
            left += std::isfinite(all[group.runs[i]]);
          for (std::size_t i = blocks[b].begin; i < blocks[b].end; ++i)
            right += std::isfinite(all[group.runs[i]]);
          tests += left >= kChangeMinimumSegmentRuns && right >= kChangeMinimumSegmentRuns;
        }
      }
    }
  }
  report.tests = tests;
  report.level = options.family_alpha / static_cast<double>(std::max<std::size_t>(1, tests));
  if (short_series > 0) {
    report.notes.push_back(std::to_string(short_series) +
                           " series (benchmark x metric x settings x GPU) have fewer than " +
                           std::to_string(minimum_runs) +
                           " runs with a value: not analysed (a change needs 3 runs either side)");
  }

  for (const BenchmarkSeries& series : benchmarks) {
    const std::vector<double>* traffic_values = nullptr;
    if (auto it = series.values.find(counter::kBytesMoved); it != series.values.end()) {
      traffic_values = &it->second;
    }
    for (const std::string& metric : metrics) {
      const MetricPolicy& policy = policies.at(metric);
      const std::vector<double>& all = series.values.at(metric);
      for (const FingerprintGroup& group : groups) {
        // The benchmark's traffic in this group: its median bytes_moved.
        double traffic = kNaN;
        if (traffic_values) {
          std::vector<double> moved;
          for (std::size_t r : group.runs) {
            if (std::isfinite((*traffic_values)[r])) moved.push_back((*traffic_values)[r]);
          }
          if (!moved.empty()) traffic = Median(moved);
        }
        const ChangeOptions engine = EngineOptions(policy, traffic, options, tests);
        // Per GPU: its runs' changes; the last change before and the first after each run.
        std::vector<std::size_t> last_change_at(runs.size(), 0);  // stretch start per run
        std::vector<std::size_t> next_change_at(runs.size(), runs.size());
        for (const GpuRuns& gpu : group.gpus) {
          std::vector<double> values;
          for (std::size_t r : gpu.runs) values.push_back(all[r]);
          if (Finite(values) < minimum_runs) continue;
          const ChangeAnalysis analysis = FindChangePoints(values, engine);
          std::vector<std::size_t> starts = {0};
          for (const ChangePoint& point : analysis.changes) {
            SeriesChange change;
            change.benchmark = series.name;
            change.metric = metric;
            change.kind = point.kind == ChangeKind::kDrift ? SeriesChangeKind::kDrift
                                                           : SeriesChangeKind::kStep;
            change.first_run = gpu.runs[point.first_run];
            change.end_run =
                point.end_run < gpu.runs.size() ? gpu.runs[point.end_run] : runs.size();
            if (change.kind == SeriesChangeKind::kStep) change.end_run = change.first_run;
            change.median_before = point.level_before;
            change.median_after = point.level_after;
            change.change_percent = point.change_percent;
            change.direction = DirectionOf(policy, point.level_before, point.level_after);
            change.p_value = point.p_value;
            change.t_statistic = point.t_statistic;
            change.practical = point.practical;
            report.changes.push_back(change);
            starts.push_back(point.kind == ChangeKind::kDrift ? point.end_run : point.first_run);
          }
          // For the GPU boundaries: each run's stretch of its GPU between changes.
          for (std::size_t k = 0; k < gpu.runs.size(); ++k) {
            std::size_t begin = 0, end = gpu.runs.size();
            for (std::size_t start : starts) {
              if (start <= k) begin = std::max(begin, start);
              if (start > k) end = std::min(end, start);
            }
            last_change_at[gpu.runs[k]] = begin < gpu.runs.size() ? gpu.runs[begin] : 0;
            next_change_at[gpu.runs[k]] = end < gpu.runs.size() ? gpu.runs[end] : runs.size();
          }
        }
        // Where the group's runs move to another GPU: the level of the last stretch of the one
        // before against the first stretch of the one after, within the two blocks.
        const std::vector<GpuBlock> blocks = Blocks(group, runs);
        for (std::size_t b = 1; b < blocks.size(); ++b) {
          const std::size_t last_before = group.runs[blocks[b - 1].end - 1];
          const std::size_t first_after = group.runs[blocks[b].begin];
          std::vector<double> before, after;
          for (std::size_t i = blocks[b - 1].begin; i < blocks[b - 1].end; ++i) {
            const std::size_t r = group.runs[i];
            if (r >= last_change_at[last_before]) before.push_back(all[r]);
          }
          for (std::size_t i = blocks[b].begin; i < blocks[b].end; ++i) {
            const std::size_t r = group.runs[i];
            if (r < next_change_at[first_after]) after.push_back(all[r]);
          }
          if (Finite(before) < kChangeMinimumSegmentRuns ||
              Finite(after) < kChangeMinimumSegmentRuns) {
            continue;
          }
          const ChangePoint point = TestStepBetween(before, after, engine);
          if (!(point.p_value < report.level)) continue;
          SeriesChange change;
          change.benchmark = series.name;
          change.metric = metric;
          change.kind = SeriesChangeKind::kGpu;
          change.first_run = change.end_run = first_after;
          change.median_before = point.level_before;
          change.median_after = point.level_after;
          change.change_percent = point.change_percent;
          change.direction = ChangeDirection::kGpuOffset;
          change.p_value = point.p_value;
          change.t_statistic = point.t_statistic;
          change.practical = point.practical;
          change.gpu_before = runs[last_before].gpu;
          change.gpu_after = runs[first_after].gpu;
          report.changes.push_back(change);
        }
        // How much of the group's spread the GPU explains.
        if (group.gpus.size() > 1) {
          GpuSpread spread;
          spread.benchmark = series.name;
          spread.metric = metric;
          double total_sum = 0;
          std::size_t total_count = 0;
          for (std::size_t r : group.runs) {
            if (std::isfinite(all[r])) total_sum += all[r], ++total_count;
          }
          if (total_count < 2) continue;
          const double mean = total_sum / static_cast<double>(total_count);
          double total_squares = 0, between_squares = 0;
          for (const GpuRuns& gpu : group.gpus) {
            std::vector<double> values;
            for (std::size_t r : gpu.runs) {
              if (std::isfinite(all[r])) values.push_back(all[r]);
            }
            if (values.empty()) continue;
            const double gpu_mean = std::accumulate(values.begin(), values.end(), 0.0) /
                                    static_cast<double>(values.size());
            for (double v : values) total_squares += (v - mean) * (v - mean);
            between_squares +=
                static_cast<double>(values.size()) * (gpu_mean - mean) * (gpu_mean - mean);
            spread.levels.push_back({gpu.gpu, values.size(), Median(values)});
          }
          if (spread.levels.size() < 2 || !(total_squares > 0)) continue;
          spread.share_percent = between_squares / total_squares * 100;
          const double first = spread.levels.front().median;
          for (const GpuSpread::Level& level : spread.levels) {
            const double percent = first != 0 ? (level.median - first) / std::fabs(first) * 100 : 0;
            if (std::fabs(percent) > std::fabs(spread.offset_percent)) {
              spread.offset_percent = percent;
            }
          }
          const double floor =
              std::max(engine.minimum_percent / 100 * std::fabs(first), engine.absolute_floor);
          bool practical = false;
          for (const GpuSpread::Level& level : spread.levels) {
            practical = practical || std::fabs(level.median - first) > floor;
          }
          if (practical) report.gpu_spreads.push_back(std::move(spread));
        }
      }
    }
  }
  std::stable_sort(report.changes.begin(), report.changes.end(),
                   [&](const SeriesChange& a, const SeriesChange& b) {
                     const std::size_t ia = index.at(a.benchmark), ib = index.at(b.benchmark);
                     if (ia != ib) return ia < ib;
                     if (a.metric != b.metric) {
                       return std::find(metrics.begin(), metrics.end(), a.metric) <
                              std::find(metrics.begin(), metrics.end(), b.metric);
                     }
                     return a.first_run < b.first_run;
                   });
  return report;
}

}  // namespace gpubench::tools
