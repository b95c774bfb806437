#include "common/format.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>

#include "gpubench/counters.hpp"
#include "schema/counter_table.hpp"

namespace gpubench::detail {
namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Printf(const char* format, double value, const char* unit) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value, unit);
  return buffer;
}

// Decimal prefixes, as DRAM bandwidth and byte counts are quoted by vendors.
std::string WithSiPrefix(double value, const char* unit) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P"};
  int index = 0;
  double scaled = value;
  while (std::fabs(scaled) >= 1000.0 && index < 5) {
    scaled /= 1000.0;
    ++index;
  }
  std::string full = std::string(kPrefixes[index]) + unit;
  return Printf(std::fabs(scaled) >= 100 || index == 0 ? "%.0f %s" : "%.3g %s", scaled,
                full.c_str());
}

}  // namespace

CounterUnit UnitNamed(const std::string& unit) {
  if (unit == "bytes" || unit == "byte") return CounterUnit::kBytes;
  if (unit == "bytes/s" || unit == "byte/second") return CounterUnit::kBytesPerSecond;
  if (unit == "FLOP") return CounterUnit::kFlop;
  if (unit == "FLOP/s") return CounterUnit::kFlopPerSecond;
  if (unit == "1/s" || EndsWith(unit, "/second")) return CounterUnit::kPerSecond;
  if (unit == "s") return CounterUnit::kSeconds;
  if (unit == "MHz") return CounterUnit::kMegahertz;
  if (unit == "%") return CounterUnit::kPercent;
  if (unit == "flag") return CounterUnit::kFlag;
  if (unit == "count") return CounterUnit::kCount;
  if (unit == "C") return CounterUnit::kCelsius;
  if (unit == "W") return CounterUnit::kWatts;
  if (unit == "reasons") return CounterUnit::kReasons;
  if (unit == "reason") return CounterUnit::kStopReason;
  if (unit == "reuse") return CounterUnit::kReuse;
  if (unit == "signature") return CounterUnit::kSignature;
  if (unit == "unix s") return CounterUnit::kUnixTime;
  return CounterUnit::kPlain;
}

CounterUnit UnitOfCounter(const std::string& name,
                          const std::map<std::string, std::string>& metric_units) {
  if (const CounterInfo* known = FindCounter(name)) return UnitNamed(std::string(known->unit));
  if (auto it = metric_units.find(name); it != metric_units.end()) return UnitNamed(it->second);
  return CounterUnit::kPlain;
}

std::string FormatSeconds(double seconds) {
  const double magnitude = std::fabs(seconds);
  if (magnitude >= 1.0 || magnitude == 0.0) return Printf("%.4g %s", seconds, "s");
  if (magnitude >= 1e-3) return Printf("%.4g %s", seconds * 1e3, "ms");
  if (magnitude >= 1e-6) return Printf("%.4g %s", seconds * 1e6, "us");
  return Printf("%.4g %s", seconds * 1e9, "ns");
}

std::string FormatValue(double value, CounterUnit unit) {
  if (std::isnan(value)) return "nan";
  switch (unit) {
    case CounterUnit::kBytes:
      return WithSiPrefix(value, "B");
    case CounterUnit::kBytesPerSecond:
      return WithSiPrefix(value, "B/s");
    case CounterUnit::kPerSecond:
      return WithSiPrefix(value, "/s");
    case CounterUnit::kFlop:
      return WithSiPrefix(value, "FLOP");
    case CounterUnit::kFlopPerSecond:
      return WithSiPrefix(value, "FLOP/s");
    case CounterUnit::kSeconds:
      return FormatSeconds(value);
    case CounterUnit::kMegahertz:
      return Printf("%.0f %s", value, "MHz");
    case CounterUnit::kPercent:
      // Two significant digits below 1%: a 0.04% confidence half-width is not "0.0 %".
      return Printf(value != 0 && std::fabs(value) < 1 ? "%.2g %s" : "%.1f %s", value, "%");
    case CounterUnit::kFlag:
      return value != 0 ? "yes" : "no";
    case CounterUnit::kCount:
      return Printf("%.0f%s", value, "");
    case CounterUnit::kCelsius:
      return Printf("%.0f %s", value, "C");
    case CounterUnit::kWatts:
      return Printf("%.0f %s", value, "W");
    case CounterUnit::kReasons:
      return value >= 0 ? DescribeClockEventReasons(static_cast<uint64_t>(value), "|")
                        : Printf("%.4g%s", value, "");
    case CounterUnit::kStopReason: {
      const std::string_view name = StopReasonNameOf(static_cast<int>(value));
      if (!name.empty()) return std::string(name);
      break;
    }
    case CounterUnit::kReuse:
      if (auto words = CodeInWords("reuse", value)) return *words;
      break;
    case CounterUnit::kSignature:
      if (auto words = CodeInWords("signature", value)) return *words;
      break;
    case CounterUnit::kUnixTime:
      if (auto words = CodeInWords("unix s", value)) return *words;
      break;
    case CounterUnit::kPlain:
      break;
  }
  return Printf("%.4g%s", value, "");
}

std::vector<std::string> ClockEventReasonNames(uint64_t reasons) {
  std::vector<std::string> names;
  uint64_t named = 0;
  for (const ClockEventReason& reason : kClockEventReasons) {
    named |= reason.bit;
    if ((reasons & reason.bit) != 0) names.emplace_back(reason.name);
  }
  for (int bit = 0; bit < 64; ++bit) {
    const uint64_t mask = uint64_t{1} << bit;
    if ((reasons & mask) != 0 && (named & mask) == 0) {
      char text[24];
      std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(mask));
      names.emplace_back(text);
    }
  }
  return names;
}

std::optional<std::string> CodeInWords(std::string_view unit, double value) {
  if (unit == "unix s") {
    // A time of measurement: whole seconds, UTC (a fraction of a second says nothing here).
    if (!std::isfinite(value) || value < 0 || value >= 253402300800.0) return std::nullopt;
    const std::time_t seconds = static_cast<std::time_t>(std::floor(value));
    std::tm utc{};
    if (gmtime_r(&seconds, &utc) == nullptr) return std::nullopt;
    char text[32];
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
    return std::string(text);
  }
  // Codes are small whole numbers; anything else is no code.
  const bool whole = std::isfinite(value) && value >= 0 && value < 9007199254740992.0 &&
                     value == std::floor(value);
  if (!whole) return std::nullopt;
  if (unit == "reason") {
    const std::string_view name = StopReasonNameOf(static_cast<int>(value));
    if (!name.empty()) return std::string(name);
  }
  if (unit == "reasons") return DescribeClockEventReasons(static_cast<uint64_t>(value), "|");
  if (unit == "reuse") {
    const std::string_view name = ReuseStatusNameOf(static_cast<int>(value));
    if (!name.empty()) return std::string(name);
  }
  if (unit == "signature" && value < 281474976710656.0) {  // 48 bits
    char text[16];
    std::snprintf(text, sizeof(text), "%012llx", static_cast<unsigned long long>(value));
    return std::string(text);
  }
  return std::nullopt;
}

std::string DescribeClockEventReasons(uint64_t reasons, const char* separator) {
  std::string text;
  for (const std::string& name : ClockEventReasonNames(reasons)) {
    text += (text.empty() ? "" : separator) + name;
  }
  return text.empty() ? "none" : text;
}

}  // namespace gpubench::detail
