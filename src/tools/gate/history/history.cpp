#include "tools/gate/history/history.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "gpubench/counters.hpp"
#include "schema/counter_table.hpp"
#include "tools/base/text.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/history/series_changes.hpp"

namespace gpubench::tools {
namespace {

// One benchmark as one baseline run holds it.
struct RunRecord {
  const BenchmarkFile* run;
  const BenchmarkRecord* record;
};

// Keeps the runs `keep` accepts, unless that would leave none; says how many were left out.
void LeaveOut(std::vector<RunRecord>& records,
              const std::function<bool(const BenchmarkRecord&)>& keep, const std::string& why,
              std::vector<std::string>& notes) {
  std::vector<RunRecord> kept;
  for (const RunRecord& entry : records) {
    if (keep(*entry.record)) kept.push_back(entry);
  }
  if (kept.empty() || kept.size() == records.size()) return;
  notes.push_back("history: " + std::to_string(records.size() - kept.size()) + " of " +
                  std::to_string(records.size()) + " baseline runs left out (" + why + ")");
  records = std::move(kept);
}

// A run's reused rows (reuse_status reused) equal their source's: never a new sample of the
// between-run spread. A run whose rows were all reused is left out, as long as a run that measured
// remains; where every run reused, one run per measurement (measured_at) is kept. Runs that reused
// some repetitions keep their measured ones (Pool).
void LeaveOutReused(std::vector<RunRecord>& records, std::vector<std::string>& notes) {
  const std::size_t before = records.size();
  const bool any_measured = std::any_of(records.begin(), records.end(),
                                        [](const RunRecord& r) { return !AllReused(*r.record); });
  std::vector<RunRecord> kept;
  std::vector<double> measurements;  // measured_at of the reused runs kept
  for (const RunRecord& entry : records) {
    if (!AllReused(*entry.record)) {
      kept.push_back(entry);
      continue;
    }
    if (any_measured) continue;
    const MetricSeries* at = entry.record->FindMetric(counter::kMeasuredAt);
    const double when = at != nullptr && !at->values.empty() ? at->values.front() : -1;
    if (when >= 0 &&
        std::find(measurements.begin(), measurements.end(), when) != measurements.end()) {
      continue;  // another copy of a measurement already kept
    }
    measurements.push_back(when);
    kept.push_back(entry);
  }
  if (kept.size() == before) return;
  notes.push_back("history: " + std::to_string(before - kept.size()) + " of " +
                  std::to_string(before) +
                  " baseline runs left out (their values were reused from an earlier run: "
                  "reuse_status reused, not a new sample" +
                  (any_measured ? std::string(")") : "; one run kept per measurement)"));
  records = std::move(kept);
}

// One benchmark's records from the runs that have it (in run order) as one record.
BenchmarkRecord Pool(const std::vector<RunRecord>& records, BenchmarkHistory& history) {
  BenchmarkRecord pooled = *records.front().record;
  pooled.metrics.clear();
  pooled.aggregates.clear();  // GB's aggregates of one run describe no pool
  pooled.seen_repetition_indices.clear();
  pooled.failed_repetition_indices.clear();
  for (const auto& [run, original] : records) {
    // A run that reused some repetitions (and measured others) counts only the measured ones.
    BenchmarkRecord measured;
    const BenchmarkRecord* record = original;
    if (!AllReused(*original) && CountReused(*original) > 0) {
      measured = MeasuredRepetitions(*original);
      record = &measured;
    }
    pooled.aggregates_only = pooled.aggregates_only || record->aggregates_only;
    for (const MetricSeries& series : record->metrics) {
      if (series.values.empty()) continue;
      auto it = std::find_if(pooled.metrics.begin(), pooled.metrics.end(),
                             [&](const MetricSeries& m) { return m.name == series.name; });
      if (it == pooled.metrics.end()) {
        pooled.metrics.push_back({series.name, {}});
        it = std::prev(pooled.metrics.end());
      }
      it->values.insert(it->values.end(), series.values.begin(), series.values.end());
      history.run_medians[series.name].push_back(Median(series.values));
      history.value_files[series.name].insert(history.value_files[series.name].end(),
                                              series.values.size(), run);
    }
  }
  history.runs = records.size();
  return pooled;
}

// Where a benchmark's history last changed: the runs from there on are its level now.
struct LastChange {
  std::size_t first = 0;  // index into the ordered runs
  std::string note;
};

// Per benchmark, the last practical change of any judged metric in the history (the runs in
// date order when every run has a date, else as given), as gpubench-compare --changes finds it.
std::unordered_map<std::string, LastChange> LastChanges(std::vector<const BenchmarkFile*>& order) {
  std::unordered_map<std::string, LastChange> last;
  if (order.size() < 2 * kChangeMinimumSegmentRuns) return last;
  std::vector<const BenchmarkFile*> dated = order;
  if (OrderRunsBy(dated, kRunDateKey).ok()) order = dated;
  const SeriesReport report = AnalyseSeries(order, SeriesOptions{});
  for (const SeriesChange& change : report.changes) {
    if (!change.practical) continue;
    std::size_t first = change.first_run;
    if (change.kind == SeriesChangeKind::kDrift) {
      // The level after a drift: its runs after the drift's end, when there are enough.
      if (change.end_run + kChangeMinimumSegmentRuns > order.size()) continue;
      first = change.end_run;
    }
    LastChange& entry = last[change.benchmark];
    if (!entry.note.empty() && entry.first >= first) continue;
    const SeriesRun& run = report.runs[first];
    std::string percent;
    AppendChangePercent(percent, change.change_percent);
    entry.first = first;
    entry.note = "history since run " + run.file->path +
                 (run.commit.empty() ? "" : " (commit " + run.commit + ")") + ", " +
                 std::to_string(order.size() - first) + " runs: " + change.metric + " " +
                 SeriesChangeKindName(change.kind) + " of " + percent +
                 " there (gpubench-compare --changes); the runs before it are left out";
  }
  return last;
}

}  // namespace

std::string DescribePooledValue(const BenchmarkHistory& history, const std::string& metric,
                                std::size_t index) {
  auto it = history.value_files.find(metric);
  if (it == history.value_files.end() || index >= it->second.size()) return "";
  const BenchmarkFile* file = it->second[index];
  std::size_t first = index;
  while (first > 0 && it->second[first - 1] == file) --first;
  return file->path + ", repetition " + std::to_string(index - first);
}

bool AnyFlagSet(const BenchmarkRecord& record, std::string_view counter) {
  const MetricSeries* series = record.FindMetric(counter);
  if (!series) return false;
  return std::any_of(series->values.begin(), series->values.end(),
                     [](double v) { return v >= 0.5; });
}

std::vector<bool> ReusedRepetitions(const BenchmarkRecord& record) {
  std::vector<bool> reused(record.RepetitionCount(), false);
  const MetricSeries* status = record.FindMetric(counter::kReuseStatus);
  if (!status || record.aggregates_only) return reused;  // GB's mean of codes is no code
  if (status->values.size() != reused.size()) {
    // Not one code per repetition: only a benchmark whose every code says reused is reused.
    const bool all =
        !status->values.empty() && std::all_of(status->values.begin(), status->values.end(),
                                               [](double v) { return v == kReuseStatusReused; });
    std::fill(reused.begin(), reused.end(), all);
    return reused;
  }
  for (std::size_t i = 0; i < reused.size(); ++i) {
    reused[i] = status->values[i] == kReuseStatusReused;
  }
  return reused;
}

std::size_t CountReused(const BenchmarkRecord& record) {
  const std::vector<bool> reused = ReusedRepetitions(record);
  return static_cast<std::size_t>(std::count(reused.begin(), reused.end(), true));
}

bool AllReused(const BenchmarkRecord& record) {
  const std::size_t reused = CountReused(record);
  return reused > 0 && reused == record.RepetitionCount();
}

BenchmarkRecord MeasuredRepetitions(const BenchmarkRecord& record) {
  const std::vector<bool> reused = ReusedRepetitions(record);
  if (std::find(reused.begin(), reused.end(), true) == reused.end()) return record;
  BenchmarkRecord measured = record;
  measured.aggregates.clear();  // GB's aggregates took the reused rows in too
  for (MetricSeries& series : measured.metrics) {
    if (series.values.size() != reused.size()) continue;
    std::vector<double> kept;
    for (std::size_t i = 0; i < reused.size(); ++i) {
      if (!reused[i]) kept.push_back(series.values[i]);
    }
    series.values = std::move(kept);
  }
  return measured;
}

std::optional<bool> LaunchHeld(const BenchmarkRecord& record) {
  const MetricSeries* series = record.FindMetric(counter::kLaunchHeld);
  if (!series || series->values.empty()) return std::nullopt;
  return std::all_of(series->values.begin(), series->values.end(),
                     [](double v) { return v >= 0.5; });
}

std::string DescribeRuns(const std::vector<const BenchmarkFile*>& runs) {
  std::string text = std::to_string(runs.size()) + " runs: ";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs.size() >= 6 && i >= 2 && i + 2 < runs.size()) {
      if (i == 2) text += "…, ";
      continue;
    }
    text += runs[i]->path;
    if (i + 1 < runs.size()) text += ", ";
  }
  return text;
}

PooledBaseline PoolBaselineRuns(const std::vector<const BenchmarkFile*>& runs,
                                const BenchmarkFile& contender, bool since_last_change) {
  PooledBaseline out;
  BenchmarkFile& file = out.file;
  file.path = DescribeRuns(runs);
  file.context = runs.front()->context;
  // Benchmark names in the order they first appear across the runs.
  std::vector<std::string> names;
  for (const BenchmarkFile* run : runs) {
    for (const BenchmarkRecord& record : run->benchmarks) {
      if (!file.index_by_name.count(record.name)) {
        file.index_by_name.emplace(record.name, names.size());
        names.push_back(record.name);
      }
    }
    file.warnings.insert(file.warnings.end(), run->warnings.begin(), run->warnings.end());
    file.cut_off.insert(file.cut_off.end(), run->cut_off.begin(), run->cut_off.end());
  }
  file.benchmarks.reserve(names.size());
  std::vector<const BenchmarkFile*> order = runs;
  const std::unordered_map<std::string, LastChange> last_changes =
      since_last_change ? LastChanges(order) : std::unordered_map<std::string, LastChange>{};
  for (const std::string& name : names) {
    BenchmarkHistory& history = out.history[name];
    std::vector<std::string>& notes = history.notes;
    const auto last = last_changes.find(name);
    const std::size_t since = last == last_changes.end() ? 0 : last->second.first;
    std::vector<RunRecord> records;
    for (std::size_t r = since; r < order.size(); ++r) {
      if (const BenchmarkRecord* record = order[r]->Find(name))
        records.push_back({order[r], record});
    }
    if (records.empty()) {  // the benchmark left the suite before the change: its whole history
      for (const BenchmarkFile* run : order) {
        if (const BenchmarkRecord* record = run->Find(name)) records.push_back({run, record});
      }
    } else if (since > 0) {
      notes.push_back(last->second.note);
    }
    LeaveOut(
        records, [](const BenchmarkRecord& r) { return !r.failed; }, "failed or skipped there",
        notes);
    if (records.front().record->failed) {  // failed in every run: nothing to pool
      file.benchmarks.push_back(*records.back().record);
      file.benchmarks.back().aggregates.clear();  // one run's rows, indexed into its own file
      continue;
    }
    LeaveOut(
        records, [](const BenchmarkRecord& r) { return !AnyFlagSet(r, counter::kGpuShared); },
        "another process used the GPU: gpu_shared", notes);
    LeaveOutReused(records, notes);
    const BenchmarkRecord* rival = contender.Find(name);
    if (rival && !AnyFlagSet(*rival, counter::kGpuShared)) {
      if (const std::optional<bool> held = LaunchHeld(*rival)) {
        LeaveOut(
            records,
            [&](const BenchmarkRecord& r) {
              const std::optional<bool> run_held = LaunchHeld(r);
              return !run_held || *run_held == *held;
            },
            std::string("launch_held ") + (*held ? "0" : "1") + " there, " + (*held ? "1" : "0") +
                " in the contender: timed another way",
            notes);
      }
    }
    file.benchmarks.push_back(Pool(records, history));
  }
  return out;
}

}  // namespace gpubench::tools
