#include "tools/gate/suite_statistics.hpp"

#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "tools/base/student_t.hpp"
#include "tools/base/text.hpp"

namespace gpubench::compare {

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

std::string HistoryAdvice(double sd_percent, std::size_t runs, double alpha) {
  // With ever more runs the factor falls towards the normal quantile: z x sd is the least.
  const double least = StudentTQuantileUpper(alpha, 100000) * sd_percent;
  if (!(least <= kGateUndecidedPercent)) {
    return "its runs' medians spread by " + Printf("%.2g", sd_percent) +
           "% (sd): no number of runs brings its threshold under " +
           Printf("%g", kGateUndecidedPercent) +
           "% (a spread between processes of its own, such as where its data lies)";
  }
  std::size_t needed = runs + 1;
  while (HistoryFactor(alpha, needed) * sd_percent > kGateUndecidedPercent && needed < 10000) {
    ++needed;
  }
  return "a history of " + std::to_string(needed) + " runs (now " + std::to_string(runs) +
         ") would bring its threshold under " + Printf("%g", kGateUndecidedPercent) + "%";
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

}  // namespace gpubench::compare
