// The lines every output format prints about the comparison as a whole: how many tests it made
// and at what level, and the suite's geometric mean of time ratios.
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

}  // namespace gpubench::tools
