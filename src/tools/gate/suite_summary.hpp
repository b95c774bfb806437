// The lines every output format prints about the comparison as a whole: how many tests it made
// and at what level, and the suite's geometric mean of time ratios; and a metric's threshold as
// the console, Markdown and HTML reports print it.
#pragma once

#include <string>

#include "tools/gate/comparison.hpp"

namespace gpubench::tools {

/// How many tests the comparison made and at what level, with what that promises.
std::string TestingLine(const ComparisonReport& report);
/// The same levels in short, for a report's header: the suite-wide false-alarm rate and the level
/// of each test after the correction, or the Mann-Whitney level of fixed thresholds ("1%
/// suite-wide false-alarm rate over 24 gated tests ..."); "" when nothing is gated.
std::string LevelsLine(const ComparisonReport& report);
/// The suite's geometric mean of time ratios with its interval; "" when nothing was compared.
std::string SuiteLine(const ComparisonReport& report);

/// Appends the threshold applied to `metric` and where it came from: "1.75% (minimum; noise
/// 0.41%)", "0.671% (5.15 x sd; runs' sd 0.13%)"; in the floor's unit where an absolute floor set
/// it, "floor 2 MiB (noise 78.8%)" (as a share of a small counter it would read 49152%); "-" for
/// a metric without a threshold.
void AppendThreshold(std::string& out, const MetricComparison& metric);

}  // namespace gpubench::tools
