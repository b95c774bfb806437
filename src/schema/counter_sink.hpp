// The one way the library writes a counter into a row: CounterSink<writer> over a counter map (GB's
// UserCounters, or the std::map<std::string, double> that carries profiled counters through a
// child's file). Set<counter::kX> takes the table's constants, so a misspelt name does not
// compile, and a counter whose row names another writer does not compile either: which stage
// writes a counter is a property of schema/counter_table.hpp, checked where it is written.
// tests/unit/compile_fail holds the writes it must refuse.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "schema/counter_table.hpp"

namespace gpubench {

template <Writer W>
class CounterSink {
 public:
  /// Any map from std::string to a value assignable from double (GB's Counter is); the map
  /// outlives the sink.
  template <class Map>
  explicit CounterSink(Map& counters)
      : counters_(&counters), assign_([](void* map, std::string&& name, double value) {
          (*static_cast<Map*>(map))[std::move(name)] = value;
        }) {}

  /// Writes table counter N (counter::kX), which writer W must own.
  template <const char* N>
  void Set(double value) {
    static_assert(CounterRowOf(N) >= 0, "not a counter of schema/counter_table.hpp (kCounters)");
    static_assert(CounterRowOf(N) < 0 || !IsPrefixName(N), "a prefix counter: use SetUnder");
    static_assert(CounterRowOf(N) < 0 || kCounters[CounterRowOf(N)].writer == W,
                  "another writer owns this counter (schema/counter_table.hpp)");
    assign_(counters_, std::string(N), value);
  }

  /// Writes <Prefix><suffix> under a prefix row (kernel_time/<kernel>), which W must own.
  template <const char* Prefix>
  void SetUnder(const std::string& suffix, double value) {
    static_assert(CounterRowOf(Prefix) >= 0,
                  "not a counter of schema/counter_table.hpp (kCounters)");
    static_assert(CounterRowOf(Prefix) < 0 || IsPrefixName(Prefix),
                  "not a prefix counter: use Set");
    static_assert(CounterRowOf(Prefix) < 0 || kCounters[CounterRowOf(Prefix)].writer == W,
                  "another writer owns this counter (schema/counter_table.hpp)");
    assign_(counters_, Prefix + suffix, value);
  }

  /// A name another table gives at run time (a kCounters row's own, kFlopMetrics' counter), or
  /// one a CounterSink<W> wrote earlier into a stage's map (CallResult::measured, copied to the
  /// row): no template sees it here, so the table's static_asserts, or that earlier Set, checked
  /// that W owns it.
  void SetFromTable(std::string_view name, double value) {
    assign_(counters_, std::string(name), value);
  }

  /// A CUPTI metric named by --gpubench_metrics that no table row renames: written under its own
  /// name, which is not the table's.
  void SetMetric(const std::string& metric, double value) {
    assign_(counters_, std::string(metric), value);
  }

 private:
  void* counters_;
  void (*assign_)(void*, std::string&&, double);
};

}  // namespace gpubench
