#include "tools/gate/suite_summary.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "tools/base/text.hpp"

namespace gpubench::tools {

namespace {

std::string PercentOf(double fraction) { return Printf("%g", 100 * fraction) + "%"; }

// "1% / 24": how the level of each history test follows from the suite-wide one.
std::string Division(const Testing& t) {
  return PercentOf(t.family_alpha) + " / " + std::to_string(t.history_tests);
}

std::string PerTestLevel(const Testing& t) { return Printf("%.2g", t.per_test_alpha); }

// What decides a change with fixed thresholds, beyond the threshold itself.
std::string MannWhitneyLevel(const ComparisonReport& report) {
  return "a change of time also needs p < " + Printf("%g", report.options.alpha) +
         " (Mann-Whitney)";
}

// A threshold in percent: 3 significant digits below 10%, one decimal above.
void AppendThresholdPercent(std::string& out, double percent) {
  if (std::isinf(percent)) {
    out += percent > 0 ? "inf" : "-inf";
  } else if (percent >= 10) {
    AppendFixed(out, percent, 1);
  } else {
    AppendGeneral(out, percent, 3);
  }
  out += '%';
}

// A spread in percent as the gate's threshold sources write it (2 significant digits below 10%).
void AppendSpreadPercent(std::string& out, double percent) {
  if (percent >= 10) {
    AppendFixed(out, percent, 1);
  } else {
    AppendGeneral(out, percent, 2);
  }
  out += '%';
}

}  // namespace

// A history's run count is in the header and the notes, so the source's is left out. A floor's
// share of the baseline is added only below 100% ("floor 500 ns = 7.15% (noise 0.14%)").
void AppendThreshold(std::string& out, const MetricComparison& metric) {
  if (!metric.applied_threshold_percent) {
    out += '-';
    return;
  }
  const double percent = *metric.applied_threshold_percent;
  // threshold_source: the origin, then what qualifies it, then the noise (or the history), each
  // after "; ".
  std::string_view source = metric.threshold_source;
  const std::size_t origin_end = std::min(source.find("; "), source.size());
  const std::string_view origin = source.substr(0, origin_end);
  source.remove_prefix(std::min(origin_end + 2, source.size()));
  std::string context(source);
  if (metric.history_runs > 0) {
    // "history of 10 runs, between-run sd 0.13%" is the last part: shortened.
    const std::size_t history = context.rfind("history of ");
    context.erase(history == std::string::npos ? context.size() : history);
    context += "runs' sd ";
    AppendSpreadPercent(context, metric.between_run_sd_percent);
  }
  if (metric.floor_decides) {
    out += origin;
    if (std::isfinite(percent) && percent < 100) {
      out += " = ";
      AppendThresholdPercent(out, percent);
    }
    if (!context.empty()) out += " (" + context + ")";
    return;
  }
  AppendThresholdPercent(out, percent);
  out += " (";
  out += origin;
  if (!context.empty()) out += "; " + context;
  out += ')';
}

std::string TestingLine(const ComparisonReport& report) {
  const Testing& t = report.testing;
  if (t.gated_tests == 0) return "no gated test was made";
  std::string line = std::to_string(t.gated_tests) + " gated test(s)";
  if (t.history_tests > 0) {
    line += "; " + std::to_string(t.history_tests) +
            " of them against the history's spread, each at a one-sided level of " +
            PerTestLevel(t) + " (" + Division(t) +
            "): identical reruns of this suite fail them with at most " +
            PercentOf(t.family_alpha) + " probability";
    if (t.gated_tests > t.history_tests) {
      line += "; the other " + std::to_string(t.gated_tests - t.history_tests) +
              " by fixed thresholds, where " + MannWhitneyLevel(report);
    }
  } else {
    line += " by fixed thresholds, where " + MannWhitneyLevel(report) + ": with " +
            (report.baseline_paths.size() > 1 ? std::to_string(report.baseline_paths.size()) +
                                                    " baseline runs (a history needs " +
                                                    std::to_string(kGateHistoryMinRuns) + ")"
                                              : std::string("one baseline")) +
            " the spread between runs is unknown, so the chance that identical reruns of a large "
            "suite fail is not controlled; a history of " +
            std::to_string(kGateHistoryMinRuns) + " or more runs (8 recommended) bounds it at " +
            PercentOf(kGateFamilyAlpha);
  }
  return line;
}

std::string LevelsLine(const ComparisonReport& report) {
  const Testing& t = report.testing;
  if (t.gated_tests == 0) return "";
  if (t.history_tests == 0) {
    return std::to_string(t.gated_tests) + " gated tests by fixed thresholds; " +
           MannWhitneyLevel(report) + "; the suite-wide false-alarm rate is not controlled";
  }
  std::string line = PercentOf(t.family_alpha) + " suite-wide false-alarm rate over " +
                     std::to_string(t.history_tests) + " gated tests against a history of " +
                     std::to_string(report.baseline_paths.size()) + " runs, each at " +
                     PerTestLevel(t) + " (" + Division(t) + ")";
  if (t.gated_tests > t.history_tests) {
    line += "; " + std::to_string(t.gated_tests - t.history_tests) +
            " more by fixed thresholds, where " + MannWhitneyLevel(report);
  }
  return line;
}

std::string SuiteLine(const ComparisonReport& report) {
  const SuiteRatio& suite = report.suite;
  if (suite.benchmarks == 0) return "";
  std::string line = "geometric mean of real_time, contender / baseline, over " +
                     std::to_string(suite.benchmarks) +
                     " benchmark(s): " + Printf("%.4f", suite.geometric_mean) + " (" +
                     Printf("%+.2f", 100 * (suite.geometric_mean - 1)) + "%";
  if (suite.low && suite.high) {
    line += "; 95% interval " + Printf("%.4f", *suite.low) + " to " + Printf("%.4f", *suite.high);
  }
  return line + ")";
}

}  // namespace gpubench::tools
