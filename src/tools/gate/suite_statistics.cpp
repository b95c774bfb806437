#include "tools/gate/suite_statistics.hpp"

#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "tools/base/student_t.hpp"
#include "tools/base/text.hpp"

namespace gpubench::tools {

double PerTestAlpha(double family_alpha, std::size_t tests) {
  return tests <= 1 ? family_alpha : family_alpha / static_cast<double>(tests);
}

double HistoryFactor(double alpha, std::size_t runs) {
  static std::mutex mutex;  // the comparison runs on two threads
  static std::map<std::pair<double, std::size_t>, double> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto [it, added] = cache.try_emplace({alpha, runs}, 0.0);
  if (added) {
    it->second = StudentTQuantileUpper(alpha, static_cast<int>(runs) - 1) *
                 std::sqrt(1 + 1.0 / static_cast<double>(runs));
  }
  return it->second;
}

double NormalQuantileUpper(double upper_tail) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  if (upper_tail > 0.5) return -NormalQuantileUpper(1 - upper_tail);
  const double p = upper_tail;  // the lower tail of -z: the formulas give that lower quantile
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double q = p - 0.5, r = q * q;
  return -(((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

std::string HistoryAdvice(double sd_percent, std::size_t runs, double alpha) {
  // With ever more runs the factor falls towards the normal quantile: z x sd is the least.
  const double least = NormalQuantileUpper(alpha) * sd_percent;
  const std::string target = Printf("%g", kGateUndecidedPercent) + "%";
  if (!(least < kGateUndecidedPercent)) {
    return "its runs' medians spread by " + Printf("%.2g", sd_percent) +
           "% (sd): no number of runs brings its threshold under " + target +
           " (a spread between processes of its own, such as where its data lies)";
  }
  // The factor falls with the runs: the fewest that reach the target, by doubling and halving.
  auto enough = [&](std::size_t n) {
    return HistoryFactor(alpha, n) * sd_percent <= kGateUndecidedPercent;
  };
  std::size_t low = runs, high = runs + 1;
  while (!enough(high) && high < kHistoryAdviceMaxRuns) {
    low = high;
    high *= 2;
  }
  if (!enough(high)) {
    // The search gave up: name no number it has not found. The factor falls with the runs, so
    // none up to `high` (at least kHistoryAdviceMaxRuns) is enough.
    return "its runs' medians spread by " + Printf("%.2g", sd_percent) +
           "% (sd): not even a history of " + std::to_string(kHistoryAdviceMaxRuns) +
           " runs (now " + std::to_string(runs) + ") would bring its threshold under " + target;
  }
  while (high - low > 1) {
    const std::size_t middle = (low + high) / 2;
    (enough(middle) ? high : low) = middle;
  }
  return "a history of " + std::to_string(high) + " runs (now " + std::to_string(runs) +
         ") would bring its threshold under " + target;
}

SuiteRatio GeometricMeanRatio(const std::vector<double>& ratios) {
  SuiteRatio out;
  double sum = 0;
  std::vector<double> logs;
  for (double ratio : ratios) {
    if (!(ratio > 0) || !std::isfinite(ratio)) continue;
    logs.push_back(std::log(ratio));
    sum += logs.back();
  }
  out.benchmarks = logs.size();
  if (logs.empty()) return out;
  const double n = static_cast<double>(logs.size());
  const double mean = sum / n;
  out.geometric_mean = std::exp(mean);
  if (logs.size() < 2) return out;
  double squares = 0;
  for (double value : logs) squares += (value - mean) * (value - mean);
  const double half = StudentTQuantileUpper(0.025, static_cast<int>(logs.size()) - 1) *
                      std::sqrt(squares / (n - 1) / n);
  out.low = std::exp(mean - half);
  out.high = std::exp(mean + half);
  return out;
}

}  // namespace gpubench::tools
