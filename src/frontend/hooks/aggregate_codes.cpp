#include "frontend/hooks/aggregate_codes.hpp"

#include "gb/gb_internals.hpp"
#include "schema/counter_table.hpp"

namespace gpubench::detail {

void DropCodesFromAggregates(std::vector<benchmark::BenchmarkReporter::Run>* runs) {
  for (benchmark::BenchmarkReporter::Run& run : *runs) {
    if (!IsAggregate(run)) continue;
    for (auto it = run.counters.begin(); it != run.counters.end();) {
      const CounterInfo* known = FindCounter(it->first);
      const bool code = known != nullptr && (known->unit == "reason" || known->unit == "reasons");
      it = code ? run.counters.erase(it) : std::next(it);
    }
  }
}

}  // namespace gpubench::detail
