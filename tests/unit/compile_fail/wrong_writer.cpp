// expect: error.*static.assert.*another writer owns this counter
// A stage writing a counter whose row names another writer does not compile: timing_paused is the
// reporter's (Writer::kReporter), not the call end's.
#include <map>
#include <string>

#include "schema/counter_sink.hpp"

void Write(std::map<std::string, double>& values) {
  gpubench::CounterSink<gpubench::Writer::kCallEnd> out(values);
  out.Set<gpubench::counter::kTimingPaused>(1);
}
