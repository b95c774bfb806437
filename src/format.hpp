// How gpubench's console output writes numbers: one place for every unit.
#pragma once

#include <string>

namespace gpubench::detail {

/// The unit a counter's value is in, from its name (see README "Counters").
enum class CounterUnit {
  kBytes,
  kBytesPerSecond,
  kPerSecond,
  kSeconds,
  kMegahertz,
  kPercent,
  kFlag,
  kCount,
  kPlain
};

CounterUnit UnitOfCounter(const std::string& name);

/// "805.3 MB", "4.21 TB/s", "233.1 us", "1980 MHz", "70.1 %", "yes", "3", "0.123".
std::string FormatValue(double value, CounterUnit unit);

/// Seconds with an automatic unit (ns, us, ms, s).
std::string FormatSeconds(double seconds);

}  // namespace gpubench::detail
