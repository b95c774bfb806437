// The iteration counts gpubench sets (stopping=precision): every family registered through
// gpubench that has neither ->Iterations() nor ->MinTime() of its own gets GB's count
// kGpubenchIterations, so that GB calls it once per repetition and the loop's stopping rule
// decides how many samples the call takes (measure/sampling/stopping_rule.hpp). GB names such
// instances ".../iterations:2/..."; gpubench's reporters give the rows their names back, and
// --benchmark_filter is widened to match both.
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "gpubench/registration.hpp"

namespace gpubench::detail {

/// Sets the count of every family registered through gpubench that has none and no min_time of
/// its own; returns how many families it set.
int TakeOverCounts();
/// The same for one family; false when it has a count or a min_time of its own.
bool TakeOverCount(BenchmarkHandle* family);

/// Whether gpubench set the count of a family GB names `function_name`.
bool CountSetByGpubench(const std::string& function_name);

/// Gives the rows of families whose count gpubench set their names without "iterations:2".
void RestoreRunNames(std::vector<benchmark::BenchmarkReporter::Run>* runs);

/// --benchmark_filter as the user wrote it, widened so that it still matches the names GB gives
/// instances whose count gpubench set: "(iterations:2/)?" before "manual_time" and "repeats:",
/// the parts that follow the count in GB's names.
std::string WidenFilterForCounts(const std::string& filter);

}  // namespace gpubench::detail
