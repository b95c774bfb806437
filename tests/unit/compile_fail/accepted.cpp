// expect: compiles
// The control of counter_writes_refused: each form of write the library uses compiles with the
// flags the refused files get, so their errors come from the write they plant, not the set-up.
#include <map>
#include <string>

#include "schema/counter_sink.hpp"

void Write(std::map<std::string, double>& values) {
  gpubench::CounterSink<gpubench::Writer::kCallEnd> out(values);
  out.Set<gpubench::counter::kGpuShared>(1);
  out.SetUnder<gpubench::counter::kKernelTimePrefix>("copy", 2);
  gpubench::CounterSink<gpubench::Writer::kReporter>(values).Set<gpubench::counter::kTimingPaused>(
      1);
}
