#include "tools/changes/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "tools/base/student_t.hpp"

namespace gpubench::tools {
namespace {

// Prefix sums of a series, so that the mean, the sum of squares and a straight line's fit of
// any stretch [begin, end) cost O(1).
class PrefixSums {
 public:
  explicit PrefixSums(const std::vector<double>& values)
      : values_(values),
        sum_(values.size() + 1),
        squares_(values.size() + 1),
        weighted_(values.size() + 1),
        steps_(values.size() + 1) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      sum_[i + 1] = sum_[i] + values[i];
      squares_[i + 1] = squares_[i] + values[i] * values[i];
      weighted_[i + 1] = weighted_[i] + static_cast<double>(i) * values[i];
      const double step = i > 0 ? values[i] - values[i - 1] : 0;
      steps_[i + 1] = steps_[i] + step * step;
    }
  }

  // The squared differences between neighbouring runs of [begin, end), but for the one between
  // runs skip - 1 and skip.
  double StepSquaresWithout(std::size_t begin, std::size_t end, std::size_t skip) const {
    const double step = values_[skip] - values_[skip - 1];
    return std::max(0.0, steps_[end] - steps_[begin + 1] - step * step);
  }

  double Sum(std::size_t begin, std::size_t end) const { return sum_[end] - sum_[begin]; }

  double Mean(std::size_t begin, std::size_t end) const {
    return Sum(begin, end) / static_cast<double>(end - begin);
  }

  // The sum of squares about the stretch's mean: the residual of one level.
  double LevelResidual(std::size_t begin, std::size_t end) const {
    const double n = static_cast<double>(end - begin), sum = Sum(begin, end);
    return std::max(0.0, squares_[end] - squares_[begin] - sum * sum / n);
  }

  // The least-squares line through the stretch, with the run's position in it as x.
  struct Line {
    double at_begin = 0, slope = 0, residual = 0;
  };
  Line FitLine(std::size_t begin, std::size_t end) const {
    const double n = static_cast<double>(end - begin), sum = Sum(begin, end);
    // Positions counted from `begin` keep the sums small: x = 0 .. n - 1.
    const double x_sum = n * (n - 1) / 2, x_squares = (n - 1) * n * (2 * n - 1) / 6;
    const double xy = weighted_[end] - weighted_[begin] - static_cast<double>(begin) * sum;
    const double xx_centred = x_squares - x_sum * x_sum / n;
    const double xy_centred = xy - x_sum * sum / n;
    Line line;
    line.slope = xx_centred > 0 ? xy_centred / xx_centred : 0;
    line.at_begin = sum / n - line.slope * x_sum / n;
    line.residual = std::max(0.0, LevelResidual(begin, end) - line.slope * xy_centred);
    return line;
  }

 private:
  const std::vector<double>& values_;
  std::vector<double> sum_, squares_, weighted_, steps_;
};

// A significant split of the series of finite values.
struct Split {
  std::size_t at = 0;  // the first run after it
  double t = 0, p = 1;
};

// The best single split of [begin, end) and its Bonferroni p-value, or nothing when the stretch
// is too short or one level.
bool BestSplit(const PrefixSums& sums, std::size_t begin, std::size_t end,
               std::size_t minimum_segment, Split& best) {
  const std::size_t n = end - begin;
  if (n < 2 * minimum_segment) return false;
  const double total = sums.LevelResidual(begin, end);
  if (!(total > 0)) return false;
  double best_between = -1;
  for (std::size_t at = begin + minimum_segment; at + minimum_segment <= end; ++at) {
    const double left = static_cast<double>(at - begin), right = static_cast<double>(end - at);
    const double difference = sums.Mean(at, end) - sums.Mean(begin, at);
    const double between = left * right / static_cast<double>(n) * difference * difference;
    if (between > best_between) {
      best_between = between;
      best.at = at;
    }
  }
  // The noise from the differences between neighbouring runs (von Neumann's mean square
  // successive difference), leaving out the one across the split: a step adds one large
  // difference, which is left out; noise whose runs flip between modes (a bimodal byte counter)
  // keeps its flips, so a cluster of one mode is measured against the whole spread. The
  // parts' own variance would shrink exactly when the split separates the modes.
  const std::size_t differences = n - 2;
  const double noise_variance =
      sums.StepSquaresWithout(begin, end, best.at) / (2 * static_cast<double>(differences));
  best.t = noise_variance <= 0 ? std::numeric_limits<double>::infinity()
                               : std::sqrt(best_between / noise_variance);
  // The estimate's degrees of freedom: q differences, neighbours correlated by -1/2, have the
  // variance of a chi-square estimate with 2q^2 / (3q - 1) degrees (about two thirds of q).
  const double q = static_cast<double>(differences);
  const int degrees = std::max(1, static_cast<int>(2 * q * q / (3 * q - 1)));
  const double candidates = static_cast<double>(n - 2 * minimum_segment + 1);
  // StudentTUpperTail is 1 - P(|T| < t): below about 1e-13 it is rounding, and may be negative.
  best.p = std::clamp(candidates * 2 * StudentTUpperTail(best.t, degrees), 0.0, 1.0);
  return true;
}

// Binary segmentation: the significant splits, by position.
std::vector<Split> Segment(const PrefixSums& sums, std::size_t runs, std::size_t minimum_segment,
                           double level) {
  std::vector<Split> splits;
  std::vector<std::pair<std::size_t, std::size_t>> stretches = {{0, runs}};
  while (!stretches.empty()) {
    const auto [begin, end] = stretches.back();
    stretches.pop_back();
    Split split;
    if (!BestSplit(sums, begin, end, minimum_segment, split) || !(split.p < level)) continue;
    splits.push_back(split);
    stretches.push_back({begin, split.at});
    stretches.push_back({split.at, end});
  }
  std::sort(splits.begin(), splits.end(),
            [](const Split& a, const Split& b) { return a.at < b.at; });
  return splits;
}

double Median(std::vector<double> values) {
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + middle) + upper) / 2;
}

double ChangePercent(double before, double after) {
  if (before == 0) {
    return after == before ? 0 : std::copysign(std::numeric_limits<double>::infinity(), after);
  }
  return (after - before) / std::fabs(before) * 100;
}

bool Practical(double before, double after, const ChangeOptions& options) {
  const double threshold =
      std::max(options.minimum_percent / 100 * std::fabs(before), options.absolute_floor);
  return std::fabs(after - before) > threshold;
}

// Segments first .. last (inclusive; segment s is [bounds[s], bounds[s + 1])) that one straight
// line fits at least as well as their separate levels.
// `levels`: the running sum of the segments' own residuals (levels[s] = segments 0 .. s - 1).
bool LineFitsAsWell(const PrefixSums& sums, const std::vector<std::size_t>& bounds,
                    const std::vector<double>& levels, std::size_t first, std::size_t last) {
  return sums.FitLine(bounds[first], bounds[last + 1]).residual <= levels[last + 1] - levels[first];
}

// A drift over segments first .. last.
struct DriftSpan {
  std::size_t first = 0, last = 0;
};

// The drifts among segments first .. last, whose levels move one way: the longest stretch of
// two or more segments that a line fits as well, then the same on either side of it.
void FindDrifts(const PrefixSums& sums, const std::vector<std::size_t>& bounds,
                const std::vector<double>& levels, std::size_t first, std::size_t last,
                std::vector<DriftSpan>& drifts) {
  if (last <= first) return;
  for (std::size_t length = last - first + 1; length >= 2; --length) {
    for (std::size_t start = first; start + length - 1 <= last; ++start) {
      if (!LineFitsAsWell(sums, bounds, levels, start, start + length - 1)) continue;
      drifts.push_back({start, start + length - 1});
      if (start > first) FindDrifts(sums, bounds, levels, first, start - 1, drifts);
      FindDrifts(sums, bounds, levels, start + length, last, drifts);
      return;
    }
  }
}

}  // namespace

double SeriesLevel(const ChangeOptions& options) {
  return options.family_alpha /
         static_cast<double>(std::max<std::size_t>(1, options.series_tested));
}

std::size_t ChangeAnalysis::PracticalChanges() const {
  return static_cast<std::size_t>(std::count_if(changes.begin(), changes.end(),
                                                [](const ChangePoint& c) { return c.practical; }));
}

ChangeAnalysis FindChangePoints(const std::vector<double>& series, const ChangeOptions& options) {
  ChangeAnalysis analysis;
  analysis.level = SeriesLevel(options);
  std::vector<double> values;
  std::vector<std::size_t> position;  // of each finite value in `series`
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (!std::isfinite(series[i])) continue;
    values.push_back(series[i]);
    position.push_back(i);
  }
  analysis.runs_analysed = values.size();
  analysis.runs_held_out = series.size() - values.size();
  const std::size_t minimum_segment = std::max<std::size_t>(1, options.minimum_segment_runs);
  const std::size_t minimum_runs = std::max(options.minimum_runs, 2 * minimum_segment);
  if (values.size() < minimum_runs) {
    analysis.not_analysed = std::to_string(values.size()) + " runs with a value; at least " +
                            std::to_string(minimum_runs) + " are needed";
    return analysis;
  }
  const auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
  if (*lowest == *highest) {
    analysis.not_analysed = "every run has the same value";
    return analysis;
  }

  // The statistics are the same for any offset and scale; relative deviations from the median
  // keep the sums of squares of 2 GB counters far from rounding.
  const double centre = Median(values);
  const double scale =
      centre != 0 ? std::fabs(centre) : std::max(std::fabs(*lowest), std::fabs(*highest));
  std::vector<double> relative(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) relative[i] = (values[i] - centre) / scale;
  const PrefixSums sums(relative);

  const std::vector<Split> splits = Segment(sums, values.size(), minimum_segment, analysis.level);
  if (splits.empty()) return analysis;
  std::vector<std::size_t> bounds = {0};
  for (const Split& split : splits) bounds.push_back(split.at);
  bounds.push_back(values.size());

  // Runs of segments whose levels move one way, then the drifts among them.
  std::vector<double> levels = {0};
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    levels.push_back(levels.back() + sums.LevelResidual(bounds[s], bounds[s + 1]));
  }
  std::vector<DriftSpan> drifts;
  std::size_t run_first = 0;
  auto direction = [&](std::size_t split) {
    const std::size_t s = split + 1;  // the segment after the split
    return sums.Mean(bounds[s], bounds[s + 1]) > sums.Mean(bounds[s - 1], bounds[s]);
  };
  for (std::size_t split = 1; split <= splits.size(); ++split) {
    if (split == splits.size() || direction(split) != direction(run_first)) {
      FindDrifts(sums, bounds, levels, run_first, split, drifts);
      run_first = split;
    }
  }

  auto to_values = [&](double relative_value) { return centre + relative_value * scale; };
  std::vector<bool> in_drift(splits.size(), false);
  for (const DriftSpan& drift : drifts) {
    const std::size_t begin = bounds[drift.first], end = bounds[drift.last + 1];
    const PrefixSums::Line line = sums.FitLine(begin, end);
    ChangePoint change;
    change.kind = ChangeKind::kDrift;
    change.first_run = position[begin];
    change.end_run = position[end - 1] + 1;
    change.level_before = to_values(line.at_begin);
    change.level_after =
        to_values(line.at_begin + line.slope * static_cast<double>(end - 1 - begin));
    for (std::size_t split = drift.first; split < drift.last; ++split) {
      in_drift[split] = true;
      if (splits[split].p <= change.p_value) {
        change.p_value = splits[split].p;
        change.t_statistic = splits[split].t;
      }
    }
    analysis.changes.push_back(change);
  }
  for (std::size_t split = 0; split < splits.size(); ++split) {
    if (in_drift[split]) continue;
    const std::size_t at = splits[split].at;
    ChangePoint change;
    change.first_run = change.end_run = position[at];
    const auto run = [&](std::size_t i) { return values.begin() + static_cast<std::ptrdiff_t>(i); };
    change.level_before = Median(std::vector<double>(run(bounds[split]), run(at)));
    change.level_after = Median(std::vector<double>(run(at), run(bounds[split + 2])));
    change.t_statistic = splits[split].t;
    change.p_value = splits[split].p;
    analysis.changes.push_back(change);
  }
  for (ChangePoint& change : analysis.changes) {
    change.change_percent = ChangePercent(change.level_before, change.level_after);
    change.practical = Practical(change.level_before, change.level_after, options);
  }
  std::sort(analysis.changes.begin(), analysis.changes.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.first_run < b.first_run; });
  return analysis;
}

ChangePoint TestStepBetween(const std::vector<double>& before, const std::vector<double>& after,
                            const ChangeOptions& options) {
  ChangePoint change;
  std::vector<double> left, right;
  for (double value : before) {
    if (std::isfinite(value)) left.push_back(value);
  }
  for (double value : after) {
    if (std::isfinite(value)) right.push_back(value);
  }
  if (left.size() < 2 || right.size() < 2) return change;
  change.level_before = Median(left);
  change.level_after = Median(right);
  change.change_percent = ChangePercent(change.level_before, change.level_after);
  change.practical = Practical(change.level_before, change.level_after, options);
  auto mean = [](const std::vector<double>& values) {
    double sum = 0;
    for (double value : values) sum += value;
    return sum / static_cast<double>(values.size());
  };
  auto steps = [](const std::vector<double>& values) {
    double squares = 0;
    for (std::size_t i = 1; i < values.size(); ++i) {
      squares += (values[i] - values[i - 1]) * (values[i] - values[i - 1]);
    }
    return squares;
  };
  const double difference = mean(right) - mean(left);
  const double q = static_cast<double>(left.size() + right.size() - 2);
  const double noise_variance = (steps(left) + steps(right)) / (2 * q);
  const double spread =
      std::sqrt(1.0 / static_cast<double>(left.size()) + 1.0 / static_cast<double>(right.size()));
  if (difference == 0) {
    change.t_statistic = 0;
  } else if (noise_variance <= 0) {
    change.t_statistic = std::numeric_limits<double>::infinity();
  } else {
    change.t_statistic = std::fabs(difference) / (std::sqrt(noise_variance) * spread);
  }
  const int degrees = std::max(1, static_cast<int>(2 * q * q / (3 * q - 1)));
  change.p_value = std::clamp(2 * StudentTUpperTail(change.t_statistic, degrees), 0.0, 1.0);
  return change;
}

}  // namespace gpubench::tools
