#include "measure/sampling/sample_series.hpp"

#include <algorithm>
#include <cmath>

namespace gpubench::detail {

void SampleSeries::Add(double value, double host_seconds) {
  values_.push_back(value);
  host_seconds_.push_back(host_seconds);
  prefix_sums_.push_back(prefix_sums_.back() + value);
  const double delta = value - mean_;
  mean_ += delta / static_cast<double>(count());
  squares_ += delta * (value - mean_);
}

double SampleSeries::StandardDeviation() const {
  return count() < 2 ? 0 : std::sqrt(squares_ / static_cast<double>(count() - 1));
}

std::optional<MeanVariance> SampleSeries::VarianceOfMean() const {
  const int64_t n = count();
  if (n < 2) return std::nullopt;
  const double sd = StandardDeviation();
  MeanVariance independent{sd * sd / static_cast<double>(n), static_cast<double>(n - 1)};
  if (n < 2 * kBatches) return independent;
  // kBatches consecutive batches of `size` samples; the last few samples (< kBatches) fall in no
  // batch but still count in the mean.
  const int64_t size = n / kBatches;
  const double whole =
      (prefix_sums_[kBatches * size] - prefix_sums_[0]) / static_cast<double>(kBatches * size);
  double squares = 0;
  for (int64_t b = 0; b < kBatches; ++b) {
    const double batch =
        (prefix_sums_[(b + 1) * size] - prefix_sums_[b * size]) / static_cast<double>(size);
    squares += (batch - whole) * (batch - whole);
  }
  const MeanVariance batches{squares / static_cast<double>(kBatches - 1) / kBatches,
                             static_cast<double>(kBatches - 1)};
  // Positive correlation only raises the variance of a mean, and 10 batch means are a noisy
  // estimate of it: the wider of the two keeps the rule from stopping on a low draw.
  const auto half = [](const MeanVariance& v) {
    return StudentT975(v.degrees) * std::sqrt(v.variance);
  };
  return half(batches) > half(independent) ? batches : independent;
}

std::optional<double> SampleSeries::RelativeHalfWidth() const {
  const std::optional<MeanVariance> own = VarianceOfMean();
  if (!own || mean_ <= 0) return std::nullopt;
  return StudentT975(own->degrees) * std::sqrt(own->variance) / mean_;
}

namespace {

// The variance between calls beyond their own samples' (method of moments), in the mean's
// units squared; 0 below two repetitions or where their own variances explain the spread.
double VarianceBetweenCalls(const std::vector<RepetitionMean>& so_far) {
  const size_t r = so_far.size();
  if (r < 2) return 0;
  double mean = 0, own = 0;
  for (const RepetitionMean& rep : so_far) {
    mean += rep.mean;
    own += rep.own.variance;
  }
  mean /= static_cast<double>(r);
  own /= static_cast<double>(r);
  double squares = 0;
  for (const RepetitionMean& rep : so_far) squares += (rep.mean - mean) * (rep.mean - mean);
  return std::max(0.0, squares / static_cast<double>(r - 1) - own);
}

}  // namespace

std::optional<double> RelativeHalfWidthBetweenCalls(const RepetitionMean& current,
                                                    const std::vector<RepetitionMean>& so_far) {
  if (current.mean <= 0) return std::nullopt;
  const double between = VarianceBetweenCalls(so_far);
  const double total = current.own.variance + between;
  if (total <= 0) return 0.0;
  // Welch-Satterthwaite: each part weighted by its share of the variance and its own degrees.
  double spread = current.own.degrees > 0
                      ? current.own.variance * current.own.variance / current.own.degrees
                      : 0;
  if (between > 0) spread += between * between / static_cast<double>(so_far.size() - 1);
  const double degrees = spread > 0 ? total * total / spread : current.own.degrees;
  return StudentT975(degrees) * std::sqrt(total) / current.mean;
}

double RelativeSpreadBetweenCalls(const std::vector<RepetitionMean>& so_far) {
  if (so_far.empty()) return 0;
  double mean = 0;
  for (const RepetitionMean& rep : so_far) mean += rep.mean;
  mean /= static_cast<double>(so_far.size());
  return mean > 0 ? std::sqrt(VarianceBetweenCalls(so_far)) / mean : 0;
}

double StudentT975(double degrees) {
  // Exact to the printed digits up to 30 degrees of freedom; beyond, the Cornish-Fisher
  // expansion, within 0.01% of the true quantile there.
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                      2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                      2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                      2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  const double whole = std::max(1.0, std::floor(degrees));
  if (whole <= 30) return kTable[static_cast<int>(whole) - 1];
  const double z = 1.959963984540054;
  return z + (z * z * z + z) / (4 * whole) +
         (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * whole * whole);
}

}  // namespace gpubench::detail
