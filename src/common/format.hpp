// How gpubench's console output writes numbers: one place for every unit.
#pragma once

#include <map>
#include <string>

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
  kPlain
};

/// A vocabulary unit ("bytes", "bytes/s", "1/s", "s", "MHz", "%", "count", "flag", "FLOP",
/// "FLOP/s"; "FLOP/byte" and "ratio" print plain) or a CUPTI
/// unit ("byte", "byte/second", "%", "<x>/second") as a display unit; kPlain for anything else.
CounterUnit UnitNamed(const std::string& unit);

/// The unit of a counter: the vocabulary's (include/gpubench/counters.hpp), else CUPTI's unit
/// of a metric added by name (`metric_units`: metric -> CUPTI unit), else kPlain.
CounterUnit UnitOfCounter(const std::string& name,
                          const std::map<std::string, std::string>& metric_units = {});

/// "805.3 MB", "4.21 TB/s", "233.1 us", "1980 MHz", "70.1 %", "yes", "3", "0.123".
std::string FormatValue(double value, CounterUnit unit);

/// Seconds with an automatic unit (ns, us, ms, s).
std::string FormatSeconds(double seconds);

}  // namespace gpubench::detail
