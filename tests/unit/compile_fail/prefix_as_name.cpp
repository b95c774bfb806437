// expect: error.*static.assert.*a prefix counter: use SetUnder
// A prefix row (kernel_time/) is no counter on its own: it takes a suffix, through SetUnder.
#include <map>
#include <string>

#include "schema/counter_sink.hpp"

void Write(std::map<std::string, double>& values) {
  gpubench::CounterSink<gpubench::Writer::kCallEnd> out(values);
  out.Set<gpubench::counter::kKernelTimePrefix>(1);
}
