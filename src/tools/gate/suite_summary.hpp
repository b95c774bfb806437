// The lines every output format prints about the comparison as a whole: how many tests it made
// and at what level, and the suite's geometric mean of time ratios.
#pragma once

#include <string>

#include "tools/gate/comparison.hpp"

namespace gpubench::tools {

/// How many tests the comparison made and at what level.
std::string TestingLine(const ComparisonReport& report);
/// The suite's geometric mean of time ratios with its interval; "" when nothing was compared.
std::string SuiteLine(const ComparisonReport& report);

}  // namespace gpubench::tools
