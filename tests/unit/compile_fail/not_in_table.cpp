// expect: error.*static.assert.*not a counter of schema/counter_table.hpp
// A name of one's own, not a row of the table, does not compile either.
#include <map>
#include <string>

#include "schema/counter_sink.hpp"

inline constexpr char kMine[] = "gpu_sharing";

void Write(std::map<std::string, double>& values) {
  gpubench::CounterSink<gpubench::Writer::kCallEnd> out(values);
  out.Set<kMine>(1);
}
