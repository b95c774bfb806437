// expect: error.*kGpuShraed.*gpubench::counter
// A misspelt counter name does not compile: the constant does not exist.
#include <map>
#include <string>

#include "schema/counter_sink.hpp"

void Write(std::map<std::string, double>& values) {
  gpubench::CounterSink<gpubench::Writer::kCallEnd> out(values);
  out.Set<gpubench::counter::kGpuShraed>(1);
}
