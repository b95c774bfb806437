// Judging one benchmark: missing, new or failed on either side, or compared metric by metric
// (MetricJudge) into the benchmark's worst verdict; and its part of the summary's counts.
#include "tools/gate/judging.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "common/format.hpp"
#include "schema/counter_table.hpp"
#include "tools/gate/gate_tuning.hpp"

namespace gpubench::tools::gate {
namespace {

using detail::Status;

// How bad a metric's verdict is: a benchmark takes the verdict of its worst gated metric.
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
  if (const MetricSeries* moved = base.FindMetric(counter::kBytesMoved);
      moved && !moved->values.empty()) {
    traffic = Median(moved->values);
  }
  const bool aggregates_only = base.aggregates_only || cont.aggregates_only;
  for (const MetricSeries& base_series : base.metrics) {
    // GB's aggregate rows average codes too (a stop_reason of 1 then 6 x 9 has the mean 5.5): a
    // file of aggregates only has no code to show.
    if (aggregates_only && judge.IsCode(base_series.name)) continue;
    const MetricSeries* cont_series = cont.FindMetric(base_series.name);
    if (!cont_series) {
      out.notes.push_back("metric \"" + base_series.name + "\" only in the baseline");
      continue;
    }
    if (base_series.values.empty() || cont_series->values.empty()) continue;
    GPUBENCH_RETURN_IF_ERROR(judge.Judge(base.name, base_series, *cont_series, aggregates_only,
                                         traffic, history, out.metrics.emplace_back()));
  }
  for (const MetricSeries& cont_series : cont.metrics) {
    if (aggregates_only && judge.IsCode(cont_series.name)) continue;
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

// "measured 2026-12-01T10:00:00Z, reused 2 run(s) in a row" for a record's reused rows, from
// their measured_at and reused_runs; "" when it has neither.
std::string ReuseFacts(const BenchmarkRecord& record) {
  std::string facts;
  if (const MetricSeries* at = record.FindMetric(counter::kMeasuredAt);
      at != nullptr && !at->values.empty()) {
    if (auto when = detail::CodeInWords("unix s", at->values.front())) facts = "measured " + *when;
  }
  if (const MetricSeries* runs = record.FindMetric(counter::kReusedRuns);
      runs != nullptr && !runs->values.empty()) {
    const double most = *std::max_element(runs->values.begin(), runs->values.end());
    if (std::isfinite(most) && most > 0) {
      facts += (facts.empty() ? "" : ", ") + std::string("reused ") +
               std::to_string(static_cast<long long>(most)) + " run(s) in a row";
    }
  }
  return facts;
}

std::string FailureText(const BenchmarkRecord& record) {
  std::string text = record.skipped ? "skipped" : "error";
  if (!record.failure_message.empty()) text += ": " + record.failure_message;
  return text;
}

}  // namespace

void CountInSummary(const BenchmarkComparison& benchmark, Summary& summary) {
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
    case BenchmarkStatus::kReused:
      ++summary.reused;
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
  out.throttled_baseline = AnyFlagSet(base, counter::kSmClockThrottled);
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
    out.contender_reused = CountReused(*cont);
    out.baseline_reused = history_index == nullptr ? CountReused(base) : 0;
    out.throttled_contender = AnyFlagSet(*cont, counter::kSmClockThrottled);
    out.shared_baseline = AnyFlagSet(base, counter::kGpuShared);
    out.shared_contender = AnyFlagSet(*cont, counter::kGpuShared);
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
    } else if (AllReused(*cont)) {
      // The contender's values are an earlier run's row of the same work (its signature
      // matched): judging them would judge that run, not this one. Its flags are that run's too.
      out.status = BenchmarkStatus::kReused;
      out.shared_contender = out.throttled_contender = false;
      const std::string facts = ReuseFacts(*cont);
      out.notes.push_back(
          "reused: the contender's values are an earlier run's (reuse_status "
          "reused" +
          (facts.empty() ? std::string() : "; " + facts) +
          "), not measured in this run, so not judged");
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
      // Reused repetitions of the contender are no new samples: judged on the measured ones.
      const std::size_t reused = CountReused(*cont);
      const BenchmarkRecord measured = reused > 0 ? MeasuredRepetitions(*cont) : BenchmarkRecord{};
      if (reused > 0) {
        out.notes.push_back(std::to_string(reused) + " of " +
                            std::to_string(cont->RepetitionCount()) +
                            " contender repetitions reused from an earlier run: left out, "
                            "judged on the measured ones");
      }
      if (history == nullptr) {
        if (const std::size_t base_reused = CountReused(base); base_reused > 0) {
          const std::string facts = ReuseFacts(base);
          out.notes.push_back("the baseline's values (" + std::to_string(base_reused) + " of " +
                              std::to_string(base.RepetitionCount()) +
                              " repetitions) were reused from an earlier run" +
                              (facts.empty() ? std::string() : " (" + facts + ")") +
                              ": they are that run's measurement of the same work");
        }
      }
      GPUBENCH_RETURN_IF_ERROR(
          CompareMetrics(base, reused > 0 ? measured : *cont, judge, history, out));
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

BenchmarkComparison CompareNewBenchmark(const BenchmarkRecord& cont,
                                        const BenchmarkFile& baseline) {
  BenchmarkComparison out;
  out.name = cont.name;
  out.status = BenchmarkStatus::kNew;
  out.contender_repetitions = cont.RepetitionCount();
  out.contender_reused = CountReused(cont);
  out.throttled_contender = AnyFlagSet(cont, counter::kSmClockThrottled);
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

}  // namespace gpubench::tools::gate
