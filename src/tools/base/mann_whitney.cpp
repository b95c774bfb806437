#include "tools/base/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <utility>

namespace gpubench::tools {
namespace {

// Above this many DP steps the exact distribution is too slow to be worth it.
constexpr double kMaxExactWork = 2e8;

struct RankSums {
  double rank_sum_x = 0;
  double tie_term = 0;  // sum over tie groups of (t^3 - t)
  bool has_ties = false;
};

RankSums RankBothSamples(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<std::pair<double, bool>> pooled;  // value, belongs to x
  pooled.reserve(x.size() + y.size());
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  RankSums sums;
  for (std::size_t start = 0; start < pooled.size();) {
    std::size_t end = start + 1;
    while (end < pooled.size() && pooled[end].first == pooled[start].first) ++end;
    const double tie_count = static_cast<double>(end - start);
    // Ranks are 1-based; a tie group shares the mean of its ranks.
    const double average_rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2;
    for (std::size_t i = start; i < end; ++i) {
      if (pooled[i].second) sums.rank_sum_x += average_rank;
    }
    if (end - start > 1) {
      sums.has_ties = true;
      sums.tie_term += tie_count * tie_count * tie_count - tie_count;
    }
    start = end;
  }
  return sums;
}

// Number of orderings of n1 + n2 distinct values giving each U, via the
// recurrence on whether the largest value belongs to the first sample.
std::vector<double> CountOrderingsPerU(std::size_t n1, std::size_t n2) {
  const std::size_t small = std::min(n1, n2), large = std::max(n1, n2);
  const std::size_t max_u = small * large;
  // counts[b][u]: orderings of `a` large-sample and `b` small-sample values.
  std::vector<std::vector<double>> counts(small + 1, std::vector<double>(max_u + 1, 0.0));
  std::vector<std::vector<double>> previous = counts;
  for (std::size_t a = 0; a <= large; ++a) {
    for (std::size_t b = 0; b <= small; ++b) {
      std::vector<double>& row = counts[b];
      std::fill(row.begin(), row.end(), 0.0);
      if (a == 0 || b == 0) {
        row[0] = 1;
        continue;
      }
      // Largest is from the large sample: it beats all b others.
      for (std::size_t u = b; u <= a * b; ++u) row[u] += previous[b][u - b];
      // Largest is from the small sample: U of the large sample unchanged.
      for (std::size_t u = 0; u <= a * (b - 1); ++u) row[u] += counts[b - 1][u];
    }
    std::swap(previous, counts);
  }
  return previous[small];
}

// The distribution of U for one pair of sample sizes, computed once: a history gate tests every
// benchmark's pooled runs (995 values of 199 runs, say) against the contender's 5, with the same
// sizes for every benchmark and metric, and each distribution took 25 M steps (26 s of a 200-run
// comparison of 1,000 benchmarks went here). Shared by the comparison's threads.
struct OrderingCounts {
  std::vector<double> counts;
  double total = 0;
};
std::shared_ptr<const OrderingCounts> CachedOrderings(std::size_t n1, std::size_t n2) {
  static std::mutex mutex;
  static std::map<std::pair<std::size_t, std::size_t>, std::shared_ptr<const OrderingCounts>> cache;
  const auto key = std::minmax(n1, n2);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = cache.find(key); found != cache.end()) return found->second;
  }
  auto computed = std::make_shared<OrderingCounts>();
  computed->counts = CountOrderingsPerU(n1, n2);
  computed->total = std::accumulate(computed->counts.begin(), computed->counts.end(), 0.0);
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= 256) cache.clear();  // many sizes: a bound on the memory, not a cost
  return cache.emplace(key, std::move(computed)).first->second;
}

double ExactTwoSidedPValue(double u_max, std::size_t n1, std::size_t n2) {
  const std::shared_ptr<const OrderingCounts> orderings = CachedOrderings(n1, n2);
  const std::vector<double>& counts = orderings->counts;
  const double total = orderings->total;
  const auto first = static_cast<std::size_t>(std::floor(u_max));
  double upper_tail = 0;
  for (std::size_t u = first; u < counts.size(); ++u) upper_tail += counts[u];
  return 2 * upper_tail / total;
}

double AsymptoticTwoSidedPValue(double u_max, std::size_t n1, std::size_t n2, double tie_term) {
  const double a = static_cast<double>(n1), b = static_cast<double>(n2), n = a + b;
  const double mean = a * b / 2;
  const double variance = a * b / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(variance > 0)) return 1;  // every value tied: no evidence of a difference
  // Continuity correction: the normal tail should include the mass at U.
  const double z = (u_max - mean - 0.5) / std::sqrt(variance);
  return std::erfc(z / std::sqrt(2.0));  // 2 * normal survival function
}

bool ExactIsAffordable(std::size_t n1, std::size_t n2) {
  const double cells = static_cast<double>(n1) * static_cast<double>(n2);
  return cells * cells <= kMaxExactWork;
}

}  // namespace

detail::Result<MannWhitneyResult> MannWhitneyU(const std::vector<double>& x,
                                               const std::vector<double>& y,
                                               MannWhitneyMethod method) {
  if (x.empty() || y.empty()) {
    return detail::Status::InvalidInput("Mann-Whitney U needs at least one value in each sample");
  }
  const std::size_t n1 = x.size(), n2 = y.size();
  const RankSums sums = RankBothSamples(x, y);
  MannWhitneyResult result;
  const double a = static_cast<double>(n1), b = static_cast<double>(n2);
  result.u_statistic = sums.rank_sum_x - a * (a + 1) / 2;
  const double u_max = std::max(result.u_statistic, a * b - result.u_statistic);
  if (method == MannWhitneyMethod::kAuto) {
    method = ((n1 > 8 && n2 > 8) || sums.has_ties) ? MannWhitneyMethod::kAsymptotic
                                                   : MannWhitneyMethod::kExact;
  }
  if (method == MannWhitneyMethod::kExact && !ExactIsAffordable(n1, n2)) {
    method = MannWhitneyMethod::kAsymptotic;
  }
  result.method_used = method;
  const double p = method == MannWhitneyMethod::kExact
                       ? ExactTwoSidedPValue(u_max, n1, n2)
                       : AsymptoticTwoSidedPValue(u_max, n1, n2, sums.tie_term);
  result.p_value = std::clamp(p, 0.0, 1.0);
  return result;
}

double SmallestPossiblePValue(std::size_t n1, std::size_t n2) {
  if (n1 == 0 || n2 == 0) return 1;
  if ((n1 > 8 && n2 > 8) || !ExactIsAffordable(n1, n2)) {
    return std::clamp(
        AsymptoticTwoSidedPValue(static_cast<double>(n1) * static_cast<double>(n2), n1, n2, 0), 0.0,
        1.0);
  }
  // Complete separation is the single most extreme ordering on each side.
  double orderings = 1;  // C(n1 + n2, n1)
  for (std::size_t i = 1; i <= n1; ++i) {
    orderings = orderings * static_cast<double>(n2 + i) / static_cast<double>(i);
  }
  return std::min(1.0, 2 / orderings);
}

std::size_t RepetitionsNeededForSignificance(double alpha) {
  for (std::size_t n = 1; n < 10000; ++n) {
    if (SmallestPossiblePValue(n, n) < alpha) return n;
  }
  return 10000;
}

}  // namespace gpubench::tools
