// The small statistics of the comparison: the median of a metric's values, and the gate's own
// means, spreads and relative changes (comparison_statistics.hpp).
#include "tools/gate/comparison_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tools/gate/comparison.hpp"  // Median

namespace gpubench::tools {
namespace gate {

bool AllFinite(const std::vector<double>& values, std::size_t* first_bad) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      *first_bad = i;
      return false;
    }
  }
  return true;
}

double MostCommon(const std::vector<double>& values) {
  std::vector<double> sorted;  // without NaN, which equals nothing and does not sort
  for (double value : values) {
    if (!std::isnan(value)) sorted.push_back(value);
  }
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(sorted.begin(), sorted.end());
  double most = sorted.front();
  std::size_t most_count = 0;
  for (std::size_t begin = 0; begin < sorted.size();) {
    std::size_t end = begin;
    while (end < sorted.size() && sorted[end] == sorted[begin]) ++end;
    if (end - begin > most_count) {
      most_count = end - begin;
      most = sorted[begin];
    }
    begin = end;
  }
  return most;
}

double RelativeChangePercent(double baseline, double contender) {
  if (baseline == contender) return 0;
  if (baseline == 0) {
    return contender > 0 ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity();
  }
  return (contender - baseline) / std::fabs(baseline) * 100;
}

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

}  // namespace gate

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

}  // namespace gpubench::tools
