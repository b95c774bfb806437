#include "compare/text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace gpubench::compare {
namespace {

// std::to_chars with a precision writes exactly what printf writes for finite values, without
// printf's format parsing and locale look-ups (a 140,000-row table spent most of its time there).
void AppendWithToChars(std::string& out, double value, std::chars_format format, int precision,
                       const char* printf_format) {
  char buffer[400];  // "%.2f" of 1e308 has 312 characters
  if (std::isfinite(value)) {
    const auto [end, error] =
        std::to_chars(buffer, buffer + sizeof buffer, value, format, precision);
    if (error == std::errc()) {
      out.append(buffer, end);
      return;
    }
  }
  const int length = std::snprintf(buffer, sizeof buffer, printf_format, precision, value);
  if (length > 0) out.append(buffer, static_cast<std::size_t>(length));
}

}  // namespace

std::string Printf(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string joined;
  for (const std::string& part : parts) {
    if (!joined.empty()) joined += separator;
    joined += part;
  }
  return joined;
}

void AppendGeneral(std::string& out, double value, int precision) {
  AppendWithToChars(out, value, std::chars_format::general, precision, "%.*g");
}

void AppendFixed(std::string& out, double value, int precision, bool plus_sign) {
  if (plus_sign && !std::signbit(value) && !std::isnan(value)) out += '+';
  AppendWithToChars(out, value, std::chars_format::fixed, precision,
                    plus_sign && std::isnan(value) ? "%+.*f" : "%.*f");
}

}  // namespace gpubench::compare
