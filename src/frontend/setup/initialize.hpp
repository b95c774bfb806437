// What gpubench::Initialize (initialize.cpp) and gpubench::Main (main.cpp) share.
#pragma once

namespace gpubench::detail {

/// gpubench::Main runs the reporters: set before it calls Initialize. --gpubench_devices needs
/// them (they name every row after its device), and so does gpubench's stopping rule (GB names
/// the rows of a family whose count gpubench set ".../iterations:2/...", and Main's reporters
/// restore them).
void SetMainReports();

/// How many families Initialize set the count of (stopping=precision).
int CountsTaken();

/// This process is the child gpubench started to profile the benchmarks (after Initialize).
bool IsProfilingChild();

/// The closing line on the run's cost, once: Main prints it after the run, a main of your own
/// gets it at exit; never in the profiling child.
void PrintRunCost();

}  // namespace gpubench::detail
