// gpubench_schema_dump: the vocabulary's names as JSON, for the Python check of ctest
// schema_names_in_python (check_python_names.py), which cannot include the C++ tables: the
// counters (schema/counter_table.hpp), the context keys and their prefixes
// (schema/context_keys.hpp), and the code names users decode (include/gpubench/counters.hpp).
#include <iostream>
#include <string_view>

#include "gpubench/counters.hpp"
#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"

namespace {

// The names are [a-z0-9_/]: nothing to escape.
template <class Rows, class Name>
void List(const char* key, const Rows& rows, Name name, bool last = false) {
  std::cout << "  \"" << key << "\": [";
  const char* separator = "";
  for (const auto& row : rows) {
    std::cout << separator << "\"" << name(row) << "\"";
    separator = ", ";
  }
  std::cout << "]" << (last ? "\n" : ",\n");
}

}  // namespace

int main() {
  using namespace gpubench;
  std::cout << "{\n";
  List("counters", kCounters, [](const CounterInfo& row) { return row.name; });
  List("context_keys", kContextKeys, [](const ContextKeyInfo& row) { return row.key; });
  const std::string_view prefixes[] = {context_key::kGpubenchPrefix, context_key::kGpuPrefix,
                                       context_key::kCudaPrefix};
  List("context_prefixes", prefixes, [](std::string_view prefix) { return prefix; });
  List("stop_reasons", kStopReasons, [](const StopReasonName& row) { return row.name; });
  List(
      "clock_event_reasons", kClockEventReasons,
      [](const ClockEventReason& row) { return row.name; }, true);
  std::cout << "}\n";
  return 0;
}
