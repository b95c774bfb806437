// Runs the profiling pass (measure/profiling_pass.hpp) through GB's runner, before the timed run.
#pragma once

#include <ostream>

namespace gpubench::detail {

/// GB's flags that decide whether and how the pass can run, read before GB parses them.
struct GbRunFlags {
  bool out_file = false;    ///< --benchmark_out is set: GB then opens the file in every run
  bool list_tests = false;  ///< --benchmark_list_tests: nothing runs
};

/// With hardware metrics on, runs every benchmark GB's filter selects once with reporters that
/// keep nothing: each instance profiles and is skipped. Then the profiler lets go of CUPTI, and
/// the calls of the next GB run are timed with their instance's counters. Says on `log` what it
/// did. Does nothing with metrics off, for a listing, or after a lost context.
void RunProfilingPass(const GbRunFlags& flags, std::ostream& log);

}  // namespace gpubench::detail
