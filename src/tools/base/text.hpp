// Small text helpers shared by the tools: printf-style numbers, joining, and the fast number
// formatting of large tables.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpubench::tools {

/// `format` (one printf conversion of a double, e.g. "%.4g") applied to `value`.
std::string Printf(const char* format, double value);

/// The parts with `separator` between them.
std::string Join(const std::vector<std::string>& parts, std::string_view separator);

/// Appends what printf's "%.<precision>g" writes for `value` (any value, also non-finite).
void AppendGeneral(std::string& out, double value, int precision);

/// Appends what printf's "%.<precision>f" writes for `value`, or "%+.<precision>f" with
/// `plus_sign` (any value, also non-finite).
void AppendFixed(std::string& out, double value, int precision, bool plus_sign = false);

/// Appends "12.35 us" (4 significant digits, ns to s) for a time in nanoseconds.
void AppendTimeNs(std::string& out, double nanoseconds);
/// Appends "1.049 G", "512" (4 significant digits, SI prefix from k).
void AppendQuantity(std::string& out, double value);
/// Appends "+12.30%", "+inf%" or "n/a".
void AppendChangePercent(std::string& out, double percent);

/// `text` as a console line or a web page can show it: each control character (but tab) as
/// "\xNN", each byte that is not part of valid UTF-8 as U+FFFD. A benchmark name may hold what
/// its JSON escaped (\u0001), and a log anything at all.
std::string ShowableText(std::string_view text);

std::string FormatTimeNs(double nanoseconds);     ///< "12.35 us"
std::string FormatQuantity(double value);         ///< "1.049 G", "512"
std::string FormatChangePercent(double percent);  ///< "+12.30%", "+inf%", "n/a"

}  // namespace gpubench::tools
