// Small text helpers shared by the tools: printf-style numbers, joining, and the fast number
// formatting of large tables.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpubench::compare {

/// `format` (one printf conversion of a double, e.g. "%.4g") applied to `value`.
std::string Printf(const char* format, double value);

/// The parts with `separator` between them.
std::string Join(const std::vector<std::string>& parts, std::string_view separator);

/// Appends what printf's "%.<precision>g" writes for `value` (any value, also non-finite).
void AppendGeneral(std::string& out, double value, int precision);

/// Appends what printf's "%.<precision>f" writes for `value`, or "%+.<precision>f" with
/// `plus_sign` (any value, also non-finite).
void AppendFixed(std::string& out, double value, int precision, bool plus_sign = false);

}  // namespace gpubench::compare
