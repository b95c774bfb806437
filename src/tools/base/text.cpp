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

namespace {

// The length of the valid UTF-8 sequence at the start of `text` (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0.
std::size_t Utf8SequenceLength(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned lead = byte(0);
  std::size_t length = 0;
  unsigned low = 0x80, high = 0xBF;  // the second byte's range
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

std::string ShowableText(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const auto c = static_cast<unsigned char>(text.front());
    const std::size_t length = Utf8SequenceLength(text);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      text.remove_prefix(1);
    } else if ((c < 0x20 && c != '\t') || c == 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
      text.remove_prefix(1);
    } else {
      out.append(text.substr(0, length));
      text.remove_prefix(length);
    }
  }
  return out;
}

}  // namespace gpubench::tools
