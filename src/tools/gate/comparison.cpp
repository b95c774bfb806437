// The gate's entry points: one baseline file or a history against the contender, after the
// settings check; every benchmark judged (on two threads for large files), the summary, the exit
// code.
#include "tools/gate/comparison.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "common/status.hpp"
#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/base/halves.hpp"
#include "tools/gate/gate_tuning.hpp"
#include "tools/gate/history/history.hpp"
#include "tools/gate/judging.hpp"
#include "tools/gate/metric_judge.hpp"
#include "tools/gate/settings_check.hpp"

namespace gpubench::tools {
namespace {

using detail::Result;
using detail::Status;
using gate::CompareBenchmark;
using gate::CompareNewBenchmark;
using gate::CountInSummary;
using gate::HistoryIndex;
using gate::MetricJudge;

// Baseline benchmarks [begin, end) into out[begin, end); stops at the first that fails.
Status CompareRange(const BenchmarkFile& baseline, const BenchmarkFile& contender,
                    const CompareOptions& options, const HistoryIndex* history,
                    double history_alpha, std::size_t begin, std::size_t end,
                    std::vector<BenchmarkComparison>& out) {
  const MetricJudge judge(baseline, contender, options, history_alpha);  // one per thread
  for (std::size_t i = begin; i < end; ++i) {
    GPUBENCH_RETURN_IF_ERROR(
        CompareBenchmark(baseline.benchmarks[i], contender, options, judge, history, out[i]));
  }
  return Status::Ok();
}

// Every baseline benchmark, in order; large files in two halves on two threads (140,000 metric
// comparisons take about 0.2 s). The failure reported is the first in file order, as without
// threads.
Status CompareBaselineBenchmarks(const BenchmarkFile& baseline, const BenchmarkFile& contender,
                                 const CompareOptions& options, const HistoryIndex* history,
                                 double history_alpha, ComparisonReport& report) {
  report.benchmarks.reserve(baseline.benchmarks.size() + 16);
  report.benchmarks.resize(baseline.benchmarks.size());
  Status halves[2];
  OnTwoHalves(baseline.benchmarks.size(), [&](int half, std::size_t begin, std::size_t end) {
    halves[half] = CompareRange(baseline, contender, options, history, history_alpha, begin, end,
                                report.benchmarks);
  });
  GPUBENCH_RETURN_IF_ERROR(halves[0]);
  return halves[1];
}

// The metrics that a history's bound will judge: those of benchmarks in both files, neither
// failed, that are gated and have kGateHistoryMinRuns runs or more.
std::size_t CountHistoryTests(const BenchmarkFile& baseline, const BenchmarkFile& contender,
                              const CompareOptions& options, const HistoryIndex* history) {
  if (history == nullptr) return 0;
  const MetricJudge judge(baseline, contender, options, options.family_alpha);
  std::size_t tests = 0;
  for (const BenchmarkRecord& base : baseline.benchmarks) {
    const BenchmarkRecord* cont = contender.Find(base.name);
    const auto found = history->find(base.name);
    if (cont == nullptr || base.failed || cont->failed || found == history->end() ||
        AllReused(*cont)) {
      continue;  // a reused contender is not judged: no test
    }
    for (const MetricSeries& series : base.metrics) {
      if (cont->FindMetric(series.name) != nullptr &&
          judge.HistoryTest(series.name, &found->second)) {
        ++tests;
      }
    }
  }
  return tests;
}

// The tests made, and the suite's geometric mean of time ratios over the benchmarks judged.
void SummariseSuite(ComparisonReport& report) {
  std::vector<double> ratios;
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    if (benchmark.status != BenchmarkStatus::kCompared) continue;
    for (const MetricComparison& metric : benchmark.metrics) {
      if (metric.applied_threshold_percent) ++report.testing.gated_tests;
      if (metric.name == counter::kRealTime && !benchmark.shared_baseline &&
          !benchmark.shared_contender && metric.baseline_median > 0) {
        ratios.push_back(metric.contender_median / metric.baseline_median);
      }
    }
  }
  report.suite = GeometricMeanRatio(ratios);
}

// The rows reused in the contender (and in one baseline file), and where they came from.
void CountReuse(const BenchmarkFile& baseline, const BenchmarkFile& contender, bool one_baseline,
                ReuseCount& reuse) {
  for (const BenchmarkRecord& record : contender.benchmarks) {
    if (record.aggregates_only) continue;
    reuse.contender_rows += record.RepetitionCount();
    reuse.contender_reused_rows += CountReused(record);
  }
  if (one_baseline) {
    for (const BenchmarkRecord& record : baseline.benchmarks) {
      reuse.baseline_reused_rows += CountReused(record);
    }
  }
  if (const std::string* source = contender.ContextValue(context_key::kReuseSource)) {
    reuse.source = *source;
  }
}

// Whether every benchmark of `file` errored or was skipped (false for a file without any).
bool AllFailed(const BenchmarkFile& file) {
  if (file.benchmarks.empty()) return false;
  for (const BenchmarkRecord& record : file.benchmarks) {
    if (!record.failed) return false;
  }
  return true;
}

// Why no benchmark was compared, or "" when one was. A gate that compared nothing must not read
// as a pass: a CI runner without a working GPU writes a row per benchmark, each an error.
std::string NothingCompared(const ComparisonReport& report, const BenchmarkFile& baseline,
                            const BenchmarkFile& contender) {
  std::string first_failure;
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    if (benchmark.status == BenchmarkStatus::kCompared && !benchmark.metrics.empty()) return "";
    if (first_failure.empty() && !benchmark.failure_message.empty()) {
      first_failure = " (first: " + benchmark.name + ": " + benchmark.failure_message + ")";
    }
  }
  if (baseline.benchmarks.empty() && contender.benchmarks.empty()) {
    return "neither the baseline nor the contender has a benchmark";
  }
  if (baseline.benchmarks.empty()) return "the baseline has no benchmarks";
  if (contender.benchmarks.empty()) return "the contender has no benchmarks";
  const bool baseline_failed = AllFailed(baseline), contender_failed = AllFailed(contender);
  if (baseline_failed && contender_failed) {
    return "every benchmark of the baseline and of the contender is an error or skipped" +
           first_failure;
  }
  if (baseline_failed) {
    return "every benchmark of the baseline is an error or skipped" + first_failure +
           ": there is nothing to compare against; regenerate the baseline";
  }
  if (contender_failed) {
    return "every benchmark of the contender is an error or skipped" + first_failure;
  }
  const Summary& s = report.summary;
  if (s.compared > 0) return "no benchmark has a metric in both files";
  return "no benchmark ran in both files: " + std::to_string(s.missing) +
         " of the baseline missing in the contender, " + std::to_string(s.added) +
         " new in the contender, " + std::to_string(s.failed_in_baseline + s.failed_in_both) +
         " failed in the baseline" + first_failure + "; are they runs of the same suite?";
}

// A --threshold or --direction for a metric that no benchmark of the contender has changes
// nothing; usually the name is misspelt, so it is said.
void WarnUnusedOverrides(const BenchmarkFile& contender, const CompareOptions& options,
                         std::vector<std::string>& warnings) {
  std::set<std::string> unused;
  for (const auto& entry : options.overrides.thresholds) unused.insert(entry.first);
  for (const auto& entry : options.overrides.directions) unused.insert(entry.first);
  for (auto name = unused.begin(); name != unused.end();) {
    const bool found =
        std::any_of(contender.benchmarks.begin(), contender.benchmarks.end(),
                    [&](const BenchmarkRecord& record) { return record.FindMetric(*name); });
    name = found ? unused.erase(name) : std::next(name);
  }
  for (const std::string& name : unused) {
    warnings.push_back("--threshold/--direction " + name +
                       ": no benchmark of the contender has this metric, so it changes nothing "
                       "(a misspelt name?)");
  }
}

// Everything after the settings check: the benchmarks of `baseline` (one file, or the pooled
// runs of a history) against the contender's, the new ones, the summary and the exit code.
Status CompareBenchmarks(const BenchmarkFile& baseline, const BenchmarkFile& contender,
                         const CompareOptions& options, const HistoryIndex* history,
                         ComparisonReport& report) {
  // The history's tests share the family-wise level: count them first.
  report.testing.family_alpha = options.family_alpha;
  report.testing.history_tests = CountHistoryTests(baseline, contender, options, history);
  report.testing.per_test_alpha = PerTestAlpha(options.family_alpha, report.testing.history_tests);
  GPUBENCH_RETURN_IF_ERROR(CompareBaselineBenchmarks(baseline, contender, options, history,
                                                     report.testing.per_test_alpha, report));
  for (const BenchmarkRecord& cont : contender.benchmarks) {
    if (!baseline.Find(cont.name)) {
      report.benchmarks.push_back(CompareNewBenchmark(cont, baseline));
    }
  }
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    CountInSummary(benchmark, report.summary);
  }
  SummariseSuite(report);
  CountReuse(baseline, contender, history == nullptr, report.reuse);
  // A cut-off contender never passes: the benchmarks after its cut were never measured, and a
  // run killed by a timeout must not look like a run without regressions.
  const bool failing = report.summary.failing > 0 || !contender.cut_off.empty();
  // A contender of reused rows only measured nothing: its own verdict, neither a pass nor
  // "nothing compared" (its benchmarks matched; their work is unchanged).
  const bool all_reused = report.reuse.AllReused();
  report.nothing_compared = all_reused ? "" : NothingCompared(report, baseline, contender);
  report.exit_code = failing                            ? kExitRegression
                     : all_reused                       ? kExitAllReused
                     : !report.nothing_compared.empty() ? kExitNothingCompared
                                                        : kExitOk;
  return Status::Ok();
}

}  // namespace

Result<ComparisonReport> CompareFiles(const BenchmarkFile& baseline, const BenchmarkFile& contender,
                                      const CompareOptions& options) {
  ComparisonReport report;
  report.baseline_path = baseline.path;
  report.baseline_paths = {baseline.path};
  report.contender_path = contender.path;
  report.baseline_benchmark_count = baseline.benchmarks.size();
  report.contender_benchmark_count = contender.benchmarks.size();
  report.baseline_cut_off = baseline.cut_off;
  report.contender_cut_off = contender.cut_off;
  report.options = options;
  report.warnings = baseline.warnings;
  report.warnings.insert(report.warnings.end(), contender.warnings.begin(),
                         contender.warnings.end());
  WarnUnusedOverrides(contender, options, report.warnings);
  report.settings = CheckSettings(baseline, contender);
  report.settings.baseline_path = baseline.path;
  report.device_differences = DeviceDifferences(baseline, contender);
  report.physical_gpu = CheckPhysicalGpu(baseline, contender);
  if (report.settings.mismatch && !options.allow_settings_mismatch) {
    report.refused_for_settings = true;
    report.exit_code = kExitSettingsMismatch;
    return report;
  }
  GPUBENCH_RETURN_IF_ERROR(CompareBenchmarks(baseline, contender, options, nullptr, report));
  return report;
}

Result<ComparisonReport> CompareWithHistory(const std::vector<const BenchmarkFile*>& baselines,
                                            const BenchmarkFile& contender,
                                            const CompareOptions& options) {
  if (baselines.empty()) return Status::InvalidInput("no baseline file to compare against");
  if (baselines.size() == 1) return CompareFiles(*baselines.front(), contender, options);
  return CompareWithHistory(baselines,
                            PoolBaselineRuns(baselines, contender, !options.whole_history),
                            contender, options);
}

Result<ComparisonReport> CompareWithHistory(const std::vector<const BenchmarkFile*>& baselines,
                                            const PooledBaseline& pooled,
                                            const BenchmarkFile& contender,
                                            const CompareOptions& options) {
  ComparisonReport report;
  report.contender_path = contender.path;
  report.contender_benchmark_count = contender.benchmarks.size();
  report.contender_cut_off = contender.cut_off;
  report.options = options;
  for (const BenchmarkFile* run : baselines) report.baseline_paths.push_back(run->path);
  // Every run's settings against the contender's: the first that differs is reported, so the
  // message names the file to leave out of the history.
  for (const BenchmarkFile* run : baselines) {
    SettingsCheck check = CheckSettings(*run, contender);
    check.baseline_path = run->path;
    if (check.mismatch || run == baselines.front()) report.settings = std::move(check);
    if (report.settings.mismatch) break;
  }
  // Device facts: each difference once, with the first run that shows it; a prominent one
  // before one that is not (a run from before gpu_uuid was recorded hides no other GPU).
  std::map<std::string, std::size_t> seen;
  for (const BenchmarkFile* run : baselines) {
    for (ValueDifference& difference : DeviceDifferences(*run, contender)) {
      const auto [found, inserted] = seen.emplace(difference.key, report.device_differences.size());
      if (inserted) {
        report.device_differences.push_back(difference);
      } else if (difference.prominent && !report.device_differences[found->second].prominent) {
        report.device_differences[found->second] = difference;
      }
    }
    PhysicalGpuCheck physical = CheckPhysicalGpu(*run, contender);
    if (physical.physical_gpu > report.physical_gpu.physical_gpu) {
      if (physical.without_uuid == "baseline") physical.without_uuid = "baseline run " + run->path;
      report.physical_gpu = std::move(physical);
    }
  }
  report.baseline_path = pooled.file.path;
  report.baseline_benchmark_count = pooled.file.benchmarks.size();
  report.baseline_cut_off = pooled.file.cut_off;
  report.warnings = pooled.file.warnings;
  report.warnings.insert(report.warnings.end(), contender.warnings.begin(),
                         contender.warnings.end());
  WarnUnusedOverrides(contender, options, report.warnings);
  if (report.settings.mismatch && !options.allow_settings_mismatch) {
    report.refused_for_settings = true;
    report.exit_code = kExitSettingsMismatch;
    return report;
  }
  GPUBENCH_RETURN_IF_ERROR(
      CompareBenchmarks(pooled.file, contender, options, &pooled.history, report));
  return report;
}

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kRegression:
      return "regression";
    case Verdict::kImprovement:
      return "improvement";
    case Verdict::kSame:
      return "same";
    case Verdict::kUnconfirmed:
      return "unconfirmed";
    case Verdict::kUndecided:
      return "undecided";
    case Verdict::kReportOnly:
      break;
  }
  return "report_only";
}

const char* StatusName(BenchmarkStatus status) {
  switch (status) {
    case BenchmarkStatus::kCompared:
      return "compared";
    case BenchmarkStatus::kMissing:
      return "missing";
    case BenchmarkStatus::kNew:
      return "new";
    case BenchmarkStatus::kFailedInContender:
      return "failed_in_contender";
    case BenchmarkStatus::kFailedInBaseline:
      return "failed_in_baseline";
    case BenchmarkStatus::kFailedInBoth:
      return "failed_in_both";
    case BenchmarkStatus::kReused:
      return "reused";
  }
  return "?";
}

}  // namespace gpubench::tools