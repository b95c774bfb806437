#include "tools/gate/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string_view>
#include <unordered_map>

#include "common/status.hpp"
#include "tools/base/halves.hpp"
#include "tools/base/student_t.hpp"
#include "tools/base/text.hpp"
#include "tools/gate/history.hpp"

namespace gpubench::compare {
namespace {

using detail::Result;
using detail::Status;

constexpr std::string_view kFingerprintKey = kSettingsFingerprintKey;
constexpr std::string_view kThrottledCounter = "sm_clock_throttled";
constexpr std::string_view kTrafficCounter = "bytes_moved";

std::string FormatP(double p) { return p < 1e-4 ? std::string("< 0.0001") : Printf("%.4f", p); }

std::vector<std::string> SplitKeyList(const std::string& list) {
  std::vector<std::string> keys;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string key = list.substr(start, comma - start);
    key.erase(0, key.find_first_not_of(" \t"));
    key.erase(key.find_last_not_of(" \t") + 1);
    if (!key.empty()) keys.push_back(std::move(key));
    start = comma + 1;
  }
  return keys;
}

std::optional<std::string> OptionalValue(const BenchmarkFile& file, std::string_view key) {
  const std::string* value = file.ContextValue(key);
  return value ? std::optional<std::string>(*value) : std::nullopt;
}

bool AllFinite(const std::vector<double>& values, std::size_t* first_bad) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      *first_bad = i;
      return false;
    }
  }
  return true;
}

double RelativeChangePercent(double baseline, double contender) {
  if (baseline == contender) return 0;
  if (baseline == 0) {
    return contender > 0 ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity();
  }
  return (contender - baseline) / std::fabs(baseline) * 100;
}

// Coefficient of variation in percent (sample standard deviation, as GB's cv); NaN below 2
// values or for a zero mean.
double CvPercent(const std::vector<double>& values) {
  if (values.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  if (mean == 0) {
    const bool all_zero =
        std::all_of(values.begin(), values.end(), [](double v) { return v == 0; });
    return all_zero ? 0 : std::numeric_limits<double>::quiet_NaN();
  }
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1)) / std::fabs(mean) * 100;
}

// "500 ns", "64 KiB", "1.2e+06 bytes/s": an absolute floor in the metric's unit.
std::string FormatFloor(double value, const std::string& unit) {
  if (unit == "bytes") {
    if (value >= 1 << 20) return Printf("%.3g MiB", value / (1 << 20));
    if (value >= 1024) return Printf("%.3g KiB", value / 1024);
    return Printf("%.0f B", value);
  }
  return Printf("%g", value) + (unit.empty() ? "" : " " + unit);
}

void AppendPercent(std::string& out, double percent) {
  if (percent >= 10) {
    AppendFixed(out, percent, 1);
  } else {
    AppendGeneral(out, percent, 2);
  }
  out += '%';
}

std::string FormatPercent(double percent) {
  std::string text;
  AppendPercent(text, percent);
  return text;
}

// Positive when the metric got worse, in percent.
double Badness(Direction direction, double change_percent) {
  return direction == Direction::kHigherIsBetter ? -change_percent : change_percent;
}

int Severity(const MetricComparison& metric) {
  switch (metric.verdict) {
    case Verdict::kRegression:
      return 6;
    case Verdict::kUnconfirmed:
      return metric.worse ? 5 : 3;
    case Verdict::kImprovement:
      return 4;
    case Verdict::kUndecided:
      return 2;
    case Verdict::kSame:
      return 1;
    case Verdict::kReportOnly:
      break;
  }
  return 0;
}

using HistoryIndex = std::unordered_map<std::string, BenchmarkHistory>;

double Mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double SampleSd(const std::vector<double>& values, double mean) {
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

class MetricJudge {
 public:
  /// `history_alpha`: the one-sided level of each history test (PerTestAlpha).
  MetricJudge(const BenchmarkFile& baseline, const BenchmarkFile& contender,
              const CompareOptions& options, double history_alpha)
      : baseline_(baseline),
        contender_(contender),
        options_(options),
        history_alpha_(history_alpha) {
    // Units and directions the files declare for counters the vocabulary does not know.
    for (const BenchmarkFile* file : {&contender, &baseline}) {
      if (const std::string* units = file->ContextValue(kCounterUnitsKey)) {
        for (auto& [name, counter] : ParseCounterUnits(*units)) declared_[name] = counter;
      }
    }
  }

  /// Compares one metric of one benchmark into `result`. Fails (invalid input) when a gated
  /// metric cannot be judged: a non-finite value, or a zero baseline time. `traffic`: the
  /// baseline's median bytes_moved for this benchmark, when it has one.
  /// `history`: the benchmark's baseline runs when there are several (base then pools them).
  Status Judge(const std::string& benchmark, const MetricSeries& base, const MetricSeries& cont,
               bool aggregates_only, std::optional<double> traffic, const BenchmarkHistory* history,
               MetricComparison& result) const {
    result.name = base.name;
    result.is_time = base.name == kRealTime || base.name == kCpuTime;
    result.policy = Policy(base.name);
    if (result.policy.gating == Gating::kRate && !result.policy.threshold_from_user &&
        !(traffic && *traffic >= kGateByteFloor)) {
      // A rate of a few KB of traffic is the noise of instruction and page-table fetches.
      result.policy.threshold_percent.reset();
      result.policy.gating = Gating::kReportOnly;
      result.notes.push_back("not gated: the benchmark moves less than " +
                             FormatFloor(kGateByteFloor, "bytes") + " of DRAM traffic");
    }
    result.baseline_values = base.values;
    result.contender_values = cont.values;
    result.baseline_median = Median(base.values);
    result.contender_median = Median(cont.values);
    // A history of enough runs sets the threshold of a gated metric from their spread; the
    // change is then taken from the mean of the runs' medians, the centre of that model.
    const std::vector<double>* run_medians = nullptr;
    if (history && result.policy.threshold_percent && !result.policy.threshold_from_user) {
      auto it = history->run_medians.find(base.name);
      if (it != history->run_medians.end() &&
          it->second.size() >= static_cast<std::size_t>(kGateHistoryMinRuns)) {
        run_medians = &it->second;
        result.baseline_median = Mean(*run_medians);
      }
    }
    bool comparable = true;
    GPUBENCH_RETURN_IF_ERROR(CheckValues(benchmark, base, history, cont, result, comparable));
    if (!comparable) return Status::Ok();
    result.change_percent = RelativeChangePercent(result.baseline_median, result.contender_median);

    const std::size_t n_base = base.values.size(), n_cont = cont.values.size();
    const bool can_test =
        result.policy.statistical && n_base >= 2 && n_cont >= 2 && run_medians == nullptr;
    if (can_test) {
      // Both sides have at least 2 values here, so the test cannot fail.
      const MannWhitneyResult test = MannWhitneyU(base.values, cont.values).value();
      result.p_value = test.p_value;
      result.test_method = test.method_used;
    }
    if (!result.policy.threshold_percent) {
      result.verdict = Verdict::kReportOnly;
      return Status::Ok();
    }
    if (run_medians) {
      ApplyHistoryThreshold(result, *run_medians, traffic);
    } else {
      ApplyThreshold(result, traffic);
      if (history && history->runs > 1 && !result.policy.threshold_from_user) {
        result.threshold_source += "; " + std::to_string(history->runs) +
                                   " runs pooled (a history needs " +
                                   std::to_string(kGateHistoryMinRuns) + ")";
      }
    }
    Decide(result, n_base, n_cont, can_test, aggregates_only);
    return Status::Ok();
  }

 private:
  // Values a gated metric cannot be judged on fail; an ungated one is then only reported
  // (`comparable` false) with a note saying why.
  Status CheckValues(const std::string& benchmark, const MetricSeries& base,
                     const BenchmarkHistory* history, const MetricSeries& cont,
                     MetricComparison& result, bool& comparable) const {
    const bool gated = result.policy.threshold_percent.has_value();
    std::size_t bad_index = 0;
    for (int side = 0; side < 2; ++side) {
      const std::vector<double>& values = side == 0 ? base.values : cont.values;
      if (AllFinite(values, &bad_index)) continue;
      if (gated) {
        // In a history, the run and its own repetition; else the file's.
        std::string where = side == 0 && history
                                ? DescribePooledValue(*history, base.name, bad_index)
                                : std::string();
        if (where.empty()) {
          where = (side == 0 ? baseline_ : contender_).path + ", repetition " +
                  std::to_string(bad_index);
        }
        const std::string file = where.substr(0, where.rfind(", repetition "));
        return Status::InvalidInput(
            file + ": benchmark \"" + benchmark + "\": metric \"" + base.name + "\" is " +
            Printf("%g", values[bad_index]) + " in repetition " +
            where.substr(where.rfind(' ') + 1) +
            "; a gated metric needs finite values (fix the benchmark, or pass --threshold " +
            base.name + "=off to report it without gating)");
      }
      result.change_percent = std::numeric_limits<double>::quiet_NaN();
      result.notes.push_back(std::string("non-finite value in the ") +
                             (side == 0 ? "baseline" : "contender") + ": not compared");
      comparable = false;
      return Status::Ok();
    }
    if (result.baseline_median == 0 && result.contender_median != 0) {
      if (gated && result.is_time) {
        return Status::InvalidInput(
            baseline_.path + ": benchmark \"" + benchmark + "\": " + base.name +
            " is 0 (median of " + std::to_string(base.values.size()) +
            " repetitions), so no relative change can be computed; a zero time means nothing was "
            "measured (e.g. manual timing never set). Re-run the baseline, or pass --threshold " +
            base.name + "=off");
      }
      result.notes.push_back("baseline is 0: relative change is infinite");
    }
    return Status::Ok();
  }

  // The verdict of a gated metric whose threshold is applied.
  void Decide(MetricComparison& result, std::size_t n_base, std::size_t n_cont, bool can_test,
              bool aggregates_only) const {
    const double threshold = *result.applied_threshold_percent;
    const double badness = Badness(result.policy.direction, result.change_percent);
    const bool beyond =
        std::fabs(badness) > threshold &&
        std::fabs(result.contender_median - result.baseline_median) > result.applied_floor;
    result.worse = beyond && badness > 0;
    if (!beyond && result.is_time && threshold > kGateUndecidedPercent) {
      result.verdict = Verdict::kUndecided;
      result.notes.push_back("undecided: a threshold of " + FormatPercent(threshold) +
                             " cannot tell this benchmark's changes from its noise; " +
                             UndecidedAdvice(result));
      return;
    }
    if (!beyond) {
      result.verdict = Verdict::kSame;
      if (result.p_value && *result.p_value < options_.alpha && badness != 0 &&
          result.history_runs == 0) {
        result.notes.push_back("significant (p " + FormatP(*result.p_value) + ") but within " +
                               "the threshold");
      }
      return;
    }
    const Verdict confirmed = result.worse ? Verdict::kRegression : Verdict::kImprovement;
    if (!result.policy.statistical || result.history_runs > 0) {
      // A deterministic counter: the medians decide. A history: its prediction bound is the
      // test, and the threshold is at least that bound.
      result.verdict = confirmed;
    } else if (can_test) {
      DecideByTest(result, confirmed, n_base, n_cont);
    } else {
      result.verdict = Verdict::kUnconfirmed;
      const std::string needed = std::to_string(RepetitionsNeededForSignificance(options_.alpha));
      result.notes.push_back(
          aggregates_only ? "file has only aggregates (--benchmark_report_aggregates_only): no "
                            "per-repetition values to test; threshold only"
                          : "too few repetitions for a test (" + std::to_string(n_base) + " vs " +
                                std::to_string(n_cont) +
                                "): threshold only; run with --benchmark_repetitions=" + needed +
                                " or more to confirm");
    }
    result.fails_gate = result.verdict == Verdict::kRegression ||
                        (result.verdict == Verdict::kUnconfirmed && result.worse &&
                         options_.unconfirmed == UnconfirmedPolicy::kFail);
  }

  // What would decide a time whose threshold is above kGateUndecidedPercent.
  std::string UndecidedAdvice(const MetricComparison& result) const {
    if (result.history_runs > 0) {
      return HistoryAdvice(result.between_run_sd_percent, result.history_runs, history_alpha_);
    }
    if (result.threshold_source.rfind("floor", 0) == 0) {
      return "the time floor (" + FormatFloor(result.applied_floor, result.policy.unit) +
             ") is that share of it, whatever the repetitions; a history of " +
             std::to_string(kGateHistoryMinRuns) +
             " or more runs (8 recommended) sets its threshold from the spread between runs";
    }
    return "its repetitions vary by " + FormatPercent(result.noise_percent) +
           " (cv): more samples per repetition (--gpubench_precision) or a history of " +
           std::to_string(kGateHistoryMinRuns) + " or more runs would narrow it";
  }

  // A change beyond the threshold of a noisy metric: the Mann-Whitney test confirms it.
  void DecideByTest(MetricComparison& result, Verdict confirmed, std::size_t n_base,
                    std::size_t n_cont) const {
    if (*result.p_value < options_.alpha) {
      result.verdict = confirmed;
    } else if (SmallestPossiblePValue(n_base, n_cont) >= options_.alpha) {
      result.verdict = Verdict::kUnconfirmed;
      result.notes.push_back(
          "with " + std::to_string(n_base) + " and " + std::to_string(n_cont) +
          " repetitions p can never be < " + Printf("%g", options_.alpha) +
          "; needs >= " + std::to_string(RepetitionsNeededForSignificance(options_.alpha)) +
          " repetitions in each file");
    } else {
      result.verdict = Verdict::kSame;
      result.notes.push_back("change beyond the threshold but not significant (p " +
                             FormatP(*result.p_value) + " >= alpha " +
                             Printf("%g", options_.alpha) + ")");
    }
  }

  // The threshold of a gated metric: --threshold as given, or the larger of the vocabulary's
  // minimum and kGateNoiseMultiplier x the noisier side's cv, plus an absolute floor (the
  // vocabulary's, and for byte counters a share of the benchmark's traffic).
  static void ApplyThreshold(MetricComparison& result, std::optional<double> traffic) {
    const MetricPolicy& policy = result.policy;
    SetNoise(result);
    std::string noise_text = "noise ";
    if (std::isnan(result.noise_percent)) {
      noise_text += "unknown: single run";
    } else {
      AppendPercent(noise_text, result.noise_percent);
    }
    if (policy.threshold_from_user) {
      result.applied_threshold_percent = *policy.threshold_percent;
      result.threshold_source = "--threshold; " + noise_text;
      return;
    }
    double percent = *policy.threshold_percent;
    std::string source = "minimum";
    if (!std::isnan(result.noise_percent) &&
        kGateNoiseMultiplier * result.noise_percent > percent) {
      percent = kGateNoiseMultiplier * result.noise_percent;
      source = Printf("%g", kGateNoiseMultiplier) + " x noise";
    }
    ApplyFloor(result, policy.floor, traffic, percent, source);
    result.applied_threshold_percent = percent;
    result.threshold_source = std::move(source);
    result.threshold_source += "; ";
    result.threshold_source += noise_text;
  }

  // The threshold from a history of n >= kGateHistoryMinRuns baseline runs: a new run's median
  // lies within mean +- t(1 - kGateHistoryAlpha, n - 1) x sd x sqrt(1 + 1/n) of the runs' medians
  // with probability 1 - kGateHistoryAlpha on each side (the prediction interval of a normal
  // sample whose mean and sd are both estimated, so few runs widen it). At least
  // kGateHistoryMinimumPercent; byte counters keep their absolute floor (counter granularity of
  // small kernels), times drop theirs (it stood for the between-run movement measured here).
  void ApplyHistoryThreshold(MetricComparison& result, const std::vector<double>& medians,
                             std::optional<double> traffic) const {
    SetNoise(result);
    const std::size_t n = medians.size();
    const double mean = Mean(medians);
    const double sd = SampleSd(medians, mean);
    const double centre = std::fabs(mean);
    result.history_runs = n;
    result.between_run_sd_percent = centre > 0 ? sd / centre * 100
                                    : sd == 0  ? 0
                                               : std::numeric_limits<double>::infinity();
    const int degrees = static_cast<int>(n) - 1;
    const double spread = std::sqrt(1 + 1.0 / static_cast<double>(n));
    const double factor = HistoryFactor(history_alpha_, n);
    double percent = factor * result.between_run_sd_percent;
    std::string source = Printf("%.2f", factor) + " x sd";
    if (!(percent >= kGateHistoryMinimumPercent)) {
      percent = kGateHistoryMinimumPercent;
      source = "history minimum";
    }
    const bool bytes = result.policy.gating == Gating::kBytes;
    ApplyFloor(result, bytes ? result.policy.floor : 0, bytes ? traffic : std::nullopt, percent,
               source);
    result.applied_threshold_percent = percent;
    result.threshold_source = source + "; history of " + std::to_string(n) +
                              " runs, between-run sd " +
                              FormatPercent(result.between_run_sd_percent);
    // How far out the contender's median lies under that model, in its direction.
    if (sd > 0) {
      const double distance = std::fabs(result.contender_median - mean) / (sd * spread);
      result.p_value = StudentTUpperTail(distance, degrees);
    }
  }

  // The absolute floor: `floor` (the vocabulary's, in the metric's unit) or, for byte counters,
  // kGateTrafficFractionPercent of the benchmark's `traffic` when larger. Raises `percent` to the
  // share of the baseline it amounts to, naming it in `source`; the absolute check decides.
  static void ApplyFloor(MetricComparison& result, double floor, std::optional<double> traffic,
                         double& percent, std::string& source) {
    const MetricPolicy& policy = result.policy;
    std::string floor_text = floor > 0 ? "floor " + FormatFloor(floor, policy.unit) : "";
    if (policy.gating == Gating::kBytes && traffic && policy.unit == "bytes") {
      const double share = kGateTrafficFractionPercent / 100 * *traffic;
      if (share > floor) {
        floor = share;
        floor_text = FormatPercent(kGateTrafficFractionPercent) + " of traffic (" +
                     FormatFloor(share, policy.unit) + ")";
      }
    }
    result.applied_floor = floor;
    const double base = std::fabs(result.baseline_median);
    const double floor_percent = floor <= 0 ? 0
                                 : base > 0 ? floor / base * 100
                                            : std::numeric_limits<double>::infinity();
    if (floor_percent > percent) {
      percent = floor_percent;
      source = floor_text;
    }
  }

  // max(cv of baseline, cv of contender) over the repetitions.
  static void SetNoise(MetricComparison& result) {
    const double cv_base = CvPercent(result.baseline_values);
    const double cv_cont = CvPercent(result.contender_values);
    result.noise_percent = std::isnan(cv_base)   ? cv_cont
                           : std::isnan(cv_cont) ? cv_base
                                                 : std::max(cv_base, cv_cont);
  }

  // Policies depend only on the name; resolving them once per name keeps
  // files with thousands of benchmarks fast.
  const MetricPolicy& Policy(const std::string& metric) const {
    auto it = policy_cache_.find(metric);
    if (it == policy_cache_.end()) {
      it = policy_cache_.emplace(metric, ResolveMetricPolicy(metric, options_.overrides, declared_))
               .first;
    }
    return it->second;
  }

  mutable std::unordered_map<std::string, MetricPolicy> policy_cache_;
  DeclaredCounters declared_;
  const BenchmarkFile& baseline_;
  const BenchmarkFile& contender_;
  const CompareOptions& options_;
  double history_alpha_;

 public:
  /// Whether `metric` of a benchmark with `history` would be judged by a history's bound.
  bool HistoryTest(const std::string& metric, const BenchmarkHistory* history) const {
    const MetricPolicy& policy = Policy(metric);
    if (!history || !policy.threshold_percent || policy.threshold_from_user) return false;
    auto it = history->run_medians.find(metric);
    return it != history->run_medians.end() &&
           it->second.size() >= static_cast<std::size_t>(kGateHistoryMinRuns);
  }
};

// Verdicts that a change decides (regression, improvement, unconfirmed) become "same" with a
// note: the change is shown but is no evidence. `times_only`: only times and rates.
void NotJudged(BenchmarkComparison& out, bool times_only, const std::string& why) {
  for (MetricComparison& metric : out.metrics) {
    if (metric.verdict != Verdict::kRegression && metric.verdict != Verdict::kImprovement &&
        metric.verdict != Verdict::kUnconfirmed) {
      continue;
    }
    if (times_only && !metric.is_time && metric.policy.gating != Gating::kRate) continue;
    metric.notes.push_back(std::string("not judged (was ") + VerdictName(metric.verdict) +
                           "): " + why);
    metric.verdict = Verdict::kSame;
    metric.fails_gate = false;
  }
}

Status CompareMetrics(const BenchmarkRecord& base, const BenchmarkRecord& cont,
                      const MetricJudge& judge, const BenchmarkHistory* history,
                      BenchmarkComparison& out) {
  std::optional<double> traffic;
  if (const MetricSeries* moved = base.FindMetric(kTrafficCounter);
      moved && !moved->values.empty()) {
    traffic = Median(moved->values);
  }
  for (const MetricSeries& base_series : base.metrics) {
    const MetricSeries* cont_series = cont.FindMetric(base_series.name);
    if (!cont_series) {
      out.notes.push_back("metric \"" + base_series.name + "\" only in the baseline");
      continue;
    }
    if (base_series.values.empty() || cont_series->values.empty()) continue;
    GPUBENCH_RETURN_IF_ERROR(judge.Judge(base.name, base_series, *cont_series,
                                         base.aggregates_only || cont.aggregates_only, traffic,
                                         history, out.metrics.emplace_back()));
  }
  for (const MetricSeries& cont_series : cont.metrics) {
    if (!base.FindMetric(cont_series.name)) {
      out.notes.push_back("metric \"" + cont_series.name + "\" only in the contender");
    }
  }
  if (out.shared_baseline || out.shared_contender) {
    // Another process's work inflates time and device-wide counters: a change is not evidence.
    const std::string where = out.shared_baseline && out.shared_contender ? "baseline and contender"
                              : out.shared_baseline                       ? "baseline"
                                                                          : "contender";
    NotJudged(out, false, "another process used the GPU during the " + where + " run");
  } else if (LaunchHeld(base) == false && LaunchHeld(cont) == true) {
    // The baseline's body waited for the GPU, the contender's does not: its times no longer
    // carry the host's launch time. Not a regression of the contender, not comparable either.
    NotJudged(out, true,
              "launch_held 0 -> 1: the baseline's loop body waited for the GPU, the "
              "contender's does not, so their times were taken differently");
  }
  int worst = -1;
  for (const MetricComparison& metric : out.metrics) {
    out.fails_gate = out.fails_gate || metric.fails_gate;
    if (!metric.policy.threshold_percent) continue;
    const int severity = Severity(metric);
    if (severity > worst) {
      worst = severity;
      out.verdict = metric.verdict;
      out.worse = metric.worse;
    }
  }
  return Status::Ok();
}

void Count(const BenchmarkComparison& benchmark, Summary& summary) {
  switch (benchmark.status) {
    case BenchmarkStatus::kMissing:
      ++summary.missing;
      break;
    case BenchmarkStatus::kNew:
      ++summary.added;
      break;
    case BenchmarkStatus::kFailedInContender:
      ++summary.failed_in_contender;
      break;
    case BenchmarkStatus::kFailedInBaseline:
      ++summary.failed_in_baseline;
      break;
    case BenchmarkStatus::kFailedInBoth:
      ++summary.failed_in_both;
      break;
    case BenchmarkStatus::kCompared:
      ++summary.compared;
      switch (benchmark.verdict) {
        case Verdict::kRegression:
          ++summary.regressions;
          break;
        case Verdict::kImprovement:
          ++summary.improvements;
          break;
        case Verdict::kSame:
          ++summary.same;
          break;
        case Verdict::kUnconfirmed:
          ++(benchmark.worse ? summary.unconfirmed_regressions : summary.unconfirmed_improvements);
          break;
        case Verdict::kUndecided:
          ++summary.undecided;
          break;
        case Verdict::kReportOnly:
          ++summary.report_only;
          break;
      }
      break;
  }
  if (benchmark.throttled_baseline || benchmark.throttled_contender) ++summary.throttled;
  if (benchmark.shared_baseline || benchmark.shared_contender) ++summary.shared;
  if (benchmark.fails_gate) ++summary.failing;
}

std::string FailureText(const BenchmarkRecord& record) {
  std::string text = record.skipped ? "skipped" : "error";
  if (!record.failure_message.empty()) text += ": " + record.failure_message;
  return text;
}

// One benchmark of the baseline against its namesake in the contender, if any.
Status CompareBenchmark(const BenchmarkRecord& base, const BenchmarkFile& contender,
                        const CompareOptions& options, const MetricJudge& judge,
                        const HistoryIndex* history_index, BenchmarkComparison& out) {
  out.name = base.name;
  const BenchmarkHistory* history = nullptr;
  if (history_index) {
    auto it = history_index->find(base.name);
    if (it != history_index->end()) {
      history = &it->second;
      out.notes = history->notes;
    }
  }
  out.baseline_repetitions = base.RepetitionCount();
  out.throttled_baseline = AnyFlagSet(base, kThrottledCounter);
  const BenchmarkRecord* cont = contender.Find(base.name);
  if (!cont) {
    out.status = BenchmarkStatus::kMissing;
    out.fails_gate = options.fail_on_missing;
    if (!contender.cut_off.empty()) {
      out.notes.push_back(
          "the contender was cut off mid-write: this benchmark may come after "
          "the cut");
    }
  } else {
    out.contender_repetitions = cont->RepetitionCount();
    out.throttled_contender = AnyFlagSet(*cont, kThrottledCounter);
    out.shared_baseline = AnyFlagSet(base, kGpuSharedCounter);
    out.shared_contender = AnyFlagSet(*cont, kGpuSharedCounter);
    if (base.failed && cont->failed) {
      out.status = BenchmarkStatus::kFailedInBoth;
      out.failure_message = FailureText(*cont);
    } else if (cont->failed) {
      out.status = BenchmarkStatus::kFailedInContender;
      out.failure_message = FailureText(*cont);
      out.fails_gate = true;
    } else if (base.failed) {
      out.status = BenchmarkStatus::kFailedInBaseline;
      out.failure_message = FailureText(base);
      out.notes.push_back("failed in the baseline: nothing to compare against");
    } else if (!out.shared_baseline && !out.shared_contender && LaunchHeld(base) == true &&
               LaunchHeld(*cont) == false) {
      // A body that starts waiting for the GPU is a change of the benchmark's code, and its
      // times now include the host's launch time: a failure of the benchmark, not a setting.
      out.status = BenchmarkStatus::kFailedInContender;
      out.failure_message =
          "launch_held 1 -> 0: the loop body now waits for the GPU inside the timed loop, so "
          "its GPU time includes the host's launch time of short kernels and is not comparable "
          "with the baseline's (see docs/compare.md, \"launch_held\")";
      out.fails_gate = true;
    } else {
      GPUBENCH_RETURN_IF_ERROR(CompareMetrics(base, *cont, judge, history, out));
    }
  }
  if (out.throttled_baseline || out.throttled_contender) {
    out.notes.push_back(std::string("SM clock throttled in the ") +
                        (out.throttled_baseline && out.throttled_contender
                             ? "baseline and contender"
                         : out.throttled_baseline ? "baseline"
                                                  : "contender") +
                        ": time comparison is doubtful");
  }
  return Status::Ok();
}

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

BenchmarkComparison CompareNewBenchmark(const BenchmarkRecord& cont,
                                        const BenchmarkFile& baseline) {
  BenchmarkComparison out;
  out.name = cont.name;
  out.status = BenchmarkStatus::kNew;
  out.contender_repetitions = cont.RepetitionCount();
  out.throttled_contender = AnyFlagSet(cont, kThrottledCounter);
  if (!baseline.cut_off.empty()) {
    out.notes.push_back(
        "the baseline was cut off mid-write: this benchmark may come after the "
        "cut, so it is not judged");
  }
  if (cont.failed) {
    // A new benchmark that fails is as broken as an old one that fails.
    out.status = BenchmarkStatus::kFailedInContender;
    out.failure_message = FailureText(cont);
    out.fails_gate = true;
    out.notes.push_back("not in the baseline");
  }
  return out;
}

}  // namespace

double Median(const std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  // A copy to partition; on the stack for the usual few repetitions (this runs for every metric
  // of every benchmark).
  constexpr std::size_t kOnStack = 64;
  double stack[kOnStack];
  std::vector<double> heap;
  double* first = stack;
  if (values.size() > kOnStack) {
    heap = values;
    first = heap.data();
  } else {
    std::copy(values.begin(), values.end(), stack);
  }
  double* last = first + values.size();
  const std::size_t middle = values.size() / 2;
  std::nth_element(first, first + middle, last);
  const double upper = first[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(first, first + middle);
  return lower + (upper - lower) / 2;
}

SettingsCheck CheckSettings(const BenchmarkFile& baseline, const BenchmarkFile& contender) {
  SettingsCheck check;
  check.baseline_fingerprint = OptionalValue(baseline, kFingerprintKey);
  check.contender_fingerprint = OptionalValue(contender, kFingerprintKey);
  if (!check.baseline_fingerprint || !check.contender_fingerprint) {
    if (check.baseline_fingerprint || check.contender_fingerprint) {
      check.notes.push_back(std::string("only the ") +
                            (check.baseline_fingerprint ? "baseline" : "contender") +
                            " carries gpubench settings; settings were not checked");
    }
    return check;
  }
  // Union of both key lists, in the order first seen.
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const BenchmarkFile* file : {&baseline, &contender}) {
    if (const std::string* list = file->ContextValue(kFingerprintKeysKey)) {
      for (std::string& key : SplitKeyList(*list)) {
        if (seen.insert(key).second) keys.push_back(std::move(key));
      }
    }
  }
  for (const std::string& key : keys) {
    auto base_value = OptionalValue(baseline, key);
    auto cont_value = OptionalValue(contender, key);
    if (base_value != cont_value) check.differences.push_back({key, base_value, cont_value, true});
  }
  check.mismatch = *check.baseline_fingerprint != *check.contender_fingerprint;
  if (check.mismatch && check.differences.empty()) {
    check.notes.push_back(
        "the settings fingerprints differ but no key listed in gpubench_fingerprint_keys "
        "differs; the files were probably written by different gpubench versions");
  } else if (!check.mismatch && !check.differences.empty()) {
    check.notes.push_back(
        "the settings fingerprints are equal but listed settings differ; the fingerprint may be "
        "stale");
  }
  return check;
}

std::vector<ValueDifference> DeviceDifferences(const BenchmarkFile& baseline,
                                               const BenchmarkFile& contender) {
  std::set<std::string> keys;
  for (const BenchmarkFile* file : {&baseline, &contender}) {
    for (const auto& [key, value] : file->context) {
      if (key.rfind("gpu_", 0) == 0 || key.rfind("cuda_", 0) == 0) keys.insert(key);
    }
  }
  std::vector<ValueDifference> differences;
  for (const std::string& key : {std::string("gpu_name"), std::string("cuda_driver_version")}) {
    auto base_value = OptionalValue(baseline, key);
    auto cont_value = OptionalValue(contender, key);
    if (base_value != cont_value) differences.push_back({key, base_value, cont_value, true});
    keys.erase(key);
  }
  for (const std::string& key : keys) {
    auto base_value = OptionalValue(baseline, key);
    auto cont_value = OptionalValue(contender, key);
    if (base_value != cont_value) differences.push_back({key, base_value, cont_value, false});
  }
  return differences;
}

namespace {

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
    if (cont == nullptr || base.failed || cont->failed || found == history->end()) continue;
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
      if (metric.name == kRealTime && !benchmark.shared_baseline && !benchmark.shared_contender &&
          metric.baseline_median > 0) {
        ratios.push_back(metric.contender_median / metric.baseline_median);
      }
    }
  }
  report.suite = GeometricMeanRatio(ratios);
}

// Everything after the settings check: the benchmarks of `baseline` (one file, or the pooled
// runs of a history) against the contender's, the new ones, the summary and the exit code.
Status CompareBenchmarks(const BenchmarkFile& baseline, const BenchmarkFile& contender,
                         const CompareOptions& options, const HistoryIndex* history,
                         ComparisonReport& report) {
  if (baseline.benchmarks.empty()) {
    report.warnings.push_back(baseline.path + " has no benchmarks; nothing is gated");
  }
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
  for (const BenchmarkComparison& benchmark : report.benchmarks) Count(benchmark, report.summary);
  SummariseSuite(report);
  // A cut-off contender never passes: the benchmarks after its cut were never measured, and a
  // run killed by a timeout must not look like a run without regressions.
  const bool failing = report.summary.failing > 0 || !contender.cut_off.empty();
  report.exit_code = failing ? kExitRegression : kExitOk;
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
  report.settings = CheckSettings(baseline, contender);
  report.settings.baseline_path = baseline.path;
  report.device_differences = DeviceDifferences(baseline, contender);
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
  return CompareWithHistory(baselines, PoolBaselineRuns(baselines, contender), contender, options);
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
  // Device facts: each difference once, with the first run that shows it.
  std::set<std::string> seen;
  for (const BenchmarkFile* run : baselines) {
    for (ValueDifference& difference : DeviceDifferences(*run, contender)) {
      if (seen.insert(difference.key).second) report.device_differences.push_back(difference);
    }
  }
  report.baseline_path = pooled.file.path;
  report.baseline_benchmark_count = pooled.file.benchmarks.size();
  report.baseline_cut_off = pooled.file.cut_off;
  report.warnings = pooled.file.warnings;
  report.warnings.insert(report.warnings.end(), contender.warnings.begin(),
                         contender.warnings.end());
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
  }
  return "?";
}

}  // namespace gpubench::compare
