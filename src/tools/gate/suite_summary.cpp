#include "tools/gate/suite_summary.hpp"

#include "tools/base/text.hpp"

namespace gpubench::tools {

std::string TestingLine(const ComparisonReport& report) {
  const Testing& t = report.testing;
  std::string line = std::to_string(t.gated_tests) + " gated test(s)";
  if (t.history_tests > 0) {
    line += "; " + std::to_string(t.history_tests) +
            " of them against the history's spread, each at a one-sided level of " +
            Printf("%.2g", t.per_test_alpha) + " (" + Printf("%g", 100 * t.family_alpha) + "% / " +
            std::to_string(t.history_tests) +
            "): identical reruns of this suite fail "
            "them with at most " +
            Printf("%g", 100 * t.family_alpha) + "% probability";
  } else {
    line +=
        " by fixed thresholds: with one baseline the spread between runs is unknown, so the "
        "chance that identical reruns of a large suite fail is not controlled; a history of " +
        std::to_string(kGateHistoryMinRuns) + " or more runs (8 recommended) bounds it at " +
        Printf("%g", 100 * kGateFamilyAlpha) + "%";
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
