// The small statistics of judging a metric: means, spreads and relative changes of its values.
// Median, which callers outside the gate use too, is declared in comparison.hpp.
#pragma once

#include <cstddef>
#include <vector>

namespace gpubench::tools::gate {

/// Whether every value is finite; else `*first_bad` is the index of the first that is not.
bool AllFinite(const std::vector<double>& values, std::size_t* first_bad);

/// (contender - baseline) / |baseline| in percent; +-inf for a zero baseline, 0 when equal.
double RelativeChangePercent(double baseline, double contender);

/// Coefficient of variation in percent (sample standard deviation, as GB's cv); NaN below 2
/// values or for a zero mean.
double CvPercent(const std::vector<double>& values);

/// The arithmetic mean; NaN for no values.
double Mean(const std::vector<double>& values);

/// The value that occurs most often (the smallest of those tied); NaN for no values. For codes,
/// whose median may be no code at all.
double MostCommon(const std::vector<double>& values);

/// The sample standard deviation about `mean` (n - 1 in the denominator); needs 2 values or more.
double SampleSd(const std::vector<double>& values, double mean);

}  // namespace gpubench::tools::gate
