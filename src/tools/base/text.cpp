#include "tools/base/text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace gpubench::tools {
namespace {

// "%.4g <suffix>" of value / scale.
void AppendScaled(std::string& out, double value, double scale, int precision, const char* suffix) {
  AppendGeneral(out, value / scale, precision);
  out += suffix;
}

}  // namespace

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

void AppendTimeNs(std::string& out, double nanoseconds) {
  const double magnitude = std::fabs(nanoseconds);
  if (!std::isfinite(nanoseconds)) return AppendGeneral(out, nanoseconds, 6);
  if (magnitude >= 1e9) return AppendScaled(out, nanoseconds, 1e9, 4, " s");
  if (magnitude >= 1e6) return AppendScaled(out, nanoseconds, 1e6, 4, " ms");
  if (magnitude >= 1e3) return AppendScaled(out, nanoseconds, 1e3, 4, " us");
  AppendScaled(out, nanoseconds, 1, 4, " ns");
}

void AppendQuantity(std::string& out, double value) {
  const double magnitude = std::fabs(value);
  if (!std::isfinite(value)) return AppendGeneral(out, value, 6);
  if (magnitude >= 1e15) return AppendGeneral(out, value, 4);
  if (magnitude >= 1e12) return AppendScaled(out, value, 1e12, 4, " T");
  if (magnitude >= 1e9) return AppendScaled(out, value, 1e9, 4, " G");
  if (magnitude >= 1e6) return AppendScaled(out, value, 1e6, 4, " M");
  if (magnitude >= 1e4) return AppendScaled(out, value, 1e3, 4, " k");
  AppendGeneral(out, value, 6);
}

void AppendChangePercent(std::string& out, double percent) {
  if (std::isnan(percent)) {
    out += "n/a";
  } else if (std::isinf(percent)) {
    out += percent > 0 ? "+inf%" : "-inf%";
  } else {
    AppendFixed(out, percent, 2, true);
    out += '%';
  }
}

std::string FormatTimeNs(double nanoseconds) {
  std::string text;
  AppendTimeNs(text, nanoseconds);
  return text;
}

std::string FormatQuantity(double value) {
  std::string text;
  AppendQuantity(text, value);
  return text;
}

std::string FormatChangePercent(double percent) {
  std::string text;
  AppendChangePercent(text, percent);
  return text;
}

}  // namespace gpubench::tools
