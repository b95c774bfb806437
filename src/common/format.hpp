// How gpubench's console output writes numbers: one place for every unit.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench::detail {

/// The unit a counter's value is in, from its name (see docs/user_guide.md "Counters").
enum class CounterUnit {
  kBytes,
  kBytesPerSecond,
  kPerSecond,
  kSeconds,
  kMegahertz,
  kPercent,
  kFlag,
  kCount,
  kFlop,
  kFlopPerSecond,
  kCelsius,
  kWatts,
  kReasons,     ///< a bit set of NVML's clock-event reasons, printed by name
  kStopReason,  ///< a code of kStopReasons, printed by name
  kReuse,       ///< a code of kReuseStatuses, printed by name
  kSignature,   ///< a 48-bit work signature, printed as 12 lower-case hex digits
  kUnixTime,    ///< seconds since 1970 (UTC), printed as an ISO 8601 date and time
  kPlain
};

/// A vocabulary unit ("bytes", "bytes/s", "1/s", "s", "MHz", "%", "count", "flag", "FLOP",
/// "FLOP/s"; "FLOP/byte" and "ratio" print plain) or a CUPTI
/// unit ("byte", "byte/second", "%", "<x>/second") as a display unit; kPlain for anything else.
CounterUnit UnitNamed(const std::string& unit);

/// The unit of a counter: the vocabulary's (schema/counter_table.hpp), else CUPTI's unit
/// of a metric added by name (`metric_units`: metric -> CUPTI unit), else kPlain.
CounterUnit UnitOfCounter(const std::string& name,
                          const std::map<std::string, std::string>& metric_units = {});

/// The names of the clock-event reason bits set in `reasons` (kClockEventReasons), in bit order;
/// a bit without a name as "0x200".
std::vector<std::string> ClockEventReasonNames(uint64_t reasons);
/// Those names joined with `separator`; "none" when no bit is set.
std::string DescribeClockEventReasons(uint64_t reasons, const char* separator = ", ");

/// A code in words: unit "reason", a stop reason's name (kStopReasons); unit "reasons", the
/// clock-event reasons joined with "|" ("none" for 0); unit "reuse", a reuse status's name
/// (kReuseStatuses); unit "signature", 12 lower-case hex digits; unit "unix s", the UTC date and
/// time "2026-12-06T23:32:15Z". Nullopt for another unit, a value that is no whole number (a
/// time may have a fraction), or an unknown code: the caller shows the number as it is.
std::optional<std::string> CodeInWords(std::string_view unit, double value);

/// "805.3 MB", "4.21 TB/s", "233.1 us", "1980 MHz", "70.1 %", "yes", "3", "41 C", "312 W",
/// "sw_power_cap|sw_thermal_slowdown", "0.123".
std::string FormatValue(double value, CounterUnit unit);

/// Seconds with an automatic unit (ns, us, ms, s).
std::string FormatSeconds(double seconds);

}  // namespace gpubench::detail
