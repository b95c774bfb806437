// The verdict of one metric: its threshold (the vocabulary's minimum raised by the noise and the
// floors, --threshold as given, or a history's prediction bound), the test, and the notes.
#include "tools/gate/metric_judge.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/base/mann_whitney.hpp"
#include "tools/base/student_t.hpp"
#include "tools/base/text.hpp"
#include "tools/gate/comparison_statistics.hpp"
#include "tools/gate/gate_tuning.hpp"
#include "tools/gate/suite_statistics.hpp"

namespace gpubench::tools::gate {
namespace {

std::string FormatP(double p) { return p < 1e-4 ? std::string("< 0.0001") : Printf("%.4f", p); }

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

}  // namespace

using detail::Status;

MetricJudge::MetricJudge(const BenchmarkFile& baseline, const BenchmarkFile& contender,
                         const CompareOptions& options, double history_alpha)
    : baseline_(baseline), contender_(contender), options_(options), history_alpha_(history_alpha) {
  // Units and directions the files declare for counters the vocabulary does not know.
  for (const BenchmarkFile* file : {&contender, &baseline}) {
    if (const std::string* units = file->ContextValue(context_key::kCounterUnits)) {
      for (auto& [name, counter] : ParseCounterUnits(*units)) declared_[name] = counter;
    }
  }
}

Status MetricJudge::Judge(const std::string& benchmark, const MetricSeries& base,
                          const MetricSeries& cont, bool aggregates_only,
                          std::optional<double> traffic, const BenchmarkHistory* history,
                          MetricComparison& result) const {
  result.name = base.name;
  result.is_time = base.name == counter::kRealTime || base.name == counter::kCpuTime;
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
  if (result.policy.code) {
    // The median of stop reasons 1 and 6 is 3.5, no reason at all: each side's most common code
    // stands for it, and no change, test or threshold applies.
    result.baseline_median = MostCommon(base.values);
    result.contender_median = MostCommon(cont.values);
    result.change_percent = std::numeric_limits<double>::quiet_NaN();
    result.verdict = Verdict::kReportOnly;
    return Status::Ok();
  }
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

// Values a gated metric cannot be judged on fail; an ungated one is then only reported
// (`comparable` false) with a note saying why.
Status MetricJudge::CheckValues(const std::string& benchmark, const MetricSeries& base,
                                const BenchmarkHistory* history, const MetricSeries& cont,
                                MetricComparison& result, bool& comparable) const {
  const bool gated = result.policy.threshold_percent.has_value();
  std::size_t bad_index = 0;
  for (int side = 0; side < 2; ++side) {
    const std::vector<double>& values = side == 0 ? base.values : cont.values;
    if (AllFinite(values, &bad_index)) continue;
    if (gated) {
      // In a history, the run and its own repetition; else the file's.
      std::string where = side == 0 && history ? DescribePooledValue(*history, base.name, bad_index)
                                               : std::string();
      if (where.empty()) {
        where =
            (side == 0 ? baseline_ : contender_).path + ", repetition " + std::to_string(bad_index);
      }
      const std::string file = where.substr(0, where.rfind(", repetition "));
      return Status::InvalidInput(
          file + ": benchmark \"" + benchmark + "\": metric \"" + base.name + "\" is " +
          Printf("%g", values[bad_index]) + " in repetition " + where.substr(where.rfind(' ') + 1) +
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
          baseline_.path + ": benchmark \"" + benchmark + "\": " + base.name + " is 0 (median of " +
          std::to_string(base.values.size()) +
          " repetitions), so no relative change can be computed; a zero time means nothing was "
          "measured (e.g. manual timing never set). Re-run the baseline, or pass --threshold " +
          base.name + "=off");
    }
    result.notes.push_back("baseline is 0: relative change is infinite");
  }
  return Status::Ok();
}

// The verdict of a gated metric whose threshold is applied.
void MetricJudge::Decide(MetricComparison& result, std::size_t n_base, std::size_t n_cont,
                         bool can_test, bool aggregates_only) const {
  const double threshold = *result.applied_threshold_percent;
  const double badness = Badness(result.policy.direction, result.change_percent);
  // Where the floor set the threshold, the absolute check alone decides: the percentages say
  // the same for a baseline above 0, and nothing for a baseline of 0 (inf > inf never holds).
  const bool beyond =
      (result.floor_decides || std::fabs(badness) > threshold) &&
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
std::string MetricJudge::UndecidedAdvice(const MetricComparison& result) const {
  if (result.history_runs > 0) {
    return HistoryAdvice(result.between_run_sd_percent, result.history_runs, history_alpha_);
  }
  if (result.floor_decides) {
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
void MetricJudge::DecideByTest(MetricComparison& result, Verdict confirmed, std::size_t n_base,
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
                           FormatP(*result.p_value) + " >= alpha " + Printf("%g", options_.alpha) +
                           ")");
  }
}

// The threshold of a gated metric: --threshold as given, or the larger of the vocabulary's
// minimum and kGateNoiseMultiplier x the noisier side's cv, plus an absolute floor (the
// vocabulary's, and for byte counters a share of the benchmark's traffic).
void MetricJudge::ApplyThreshold(MetricComparison& result, std::optional<double> traffic) {
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
  if (!std::isnan(result.noise_percent) && kGateNoiseMultiplier * result.noise_percent > percent) {
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
void MetricJudge::ApplyHistoryThreshold(MetricComparison& result,
                                        const std::vector<double>& medians,
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
                            " runs, between-run sd " + FormatPercent(result.between_run_sd_percent);
  // How far out the contender's median lies under that model, in its direction.
  if (sd > 0) {
    const double distance = std::fabs(result.contender_median - mean) / (sd * spread);
    result.p_value = StudentTUpperTail(distance, degrees);
  }
}

// The absolute floor: `floor` (the vocabulary's, in the metric's unit) or, for byte counters,
// kGateTrafficFractionPercent of the benchmark's `traffic` when larger. Raises `percent` to the
// share of the baseline it amounts to, naming it in `source`; the absolute check decides.
void MetricJudge::ApplyFloor(MetricComparison& result, double floor, std::optional<double> traffic,
                             double& percent, std::string& source) {
  const MetricPolicy& policy = result.policy;
  std::string floor_text = floor > 0 ? "floor " + FormatFloor(floor, policy.unit) : "";
  if (policy.gating == Gating::kBytes && traffic && policy.unit == "bytes") {
    const double share = kGateTrafficFractionPercent / 100 * *traffic;
    if (share > floor) {
      floor = share;
      floor_text = "floor " + FormatFloor(share, policy.unit) + "; " +
                   FormatPercent(kGateTrafficFractionPercent) + " of traffic";
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
    result.floor_decides = true;
  }
}

// max(cv of baseline, cv of contender) over the repetitions.
void MetricJudge::SetNoise(MetricComparison& result) {
  const double cv_base = CvPercent(result.baseline_values);
  const double cv_cont = CvPercent(result.contender_values);
  result.noise_percent = std::isnan(cv_base)   ? cv_cont
                         : std::isnan(cv_cont) ? cv_base
                                               : std::max(cv_base, cv_cont);
}

// Policies depend only on the name; resolving them once per name keeps
// files with thousands of benchmarks fast.
const MetricPolicy& MetricJudge::Policy(const std::string& metric) const {
  auto it = policy_cache_.find(metric);
  if (it == policy_cache_.end()) {
    it = policy_cache_.emplace(metric, ResolveMetricPolicy(metric, options_.overrides, declared_))
             .first;
  }
  return it->second;
}

bool MetricJudge::HistoryTest(const std::string& metric, const BenchmarkHistory* history) const {
  const MetricPolicy& policy = Policy(metric);
  if (!history || !policy.threshold_percent || policy.threshold_from_user) return false;
  auto it = history->run_medians.find(metric);
  return it != history->run_medians.end() &&
         it->second.size() >= static_cast<std::size_t>(kGateHistoryMinRuns);
}

}  // namespace gpubench::tools::gate
