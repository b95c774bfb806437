// The iteration counts gpubench sets (stopping=precision): every family registered through
// gpubench that has neither ->Iterations() nor ->MinTime() of its own gets GB's count
// kGpubenchIterations, so that GB calls it once per repetition and the loop's stopping rule
// decides how many samples the call takes (measure/sampling/stopping_rule.hpp). GB names such
// instances ".../iterations:2/..."; gpubench's reporters give the rows their names back, and
// --benchmark_filter is widened to match both (and the names without "/manual_time"). A main of
// one's own on GB >= 1.8 gets the count through --benchmark_min_time=<n>x instead, which no name
// shows.
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "gpubench/registration.hpp"

namespace gpubench::detail {

/// Sets the count of every family registered through gpubench that has none and no min_time of
/// its own; returns how many families it set. by_flag (a main of one's own, GB >= 1.8): through
/// --benchmark_min_time=<n>x, which GB puts in no name, instead of each family's ->Iterations(n);
/// only where InstanceOutsideGpubench finds no instance the flag would count too.
int TakeOverCounts(bool by_flag = false);
/// The same for one family; false when it has a count or a min_time of its own.
bool TakeOverCount(BenchmarkHandle* family, bool by_flag = false);

/// The first of GB's instance names (ListInstanceNames) that is not a gpubench family's and has
/// no count or min_time of its own: a benchmark that a global count would change. "" for none.
std::string InstanceOutsideGpubench(const std::vector<std::string>& instances);

/// Whether gpubench set the count of a family GB names `function_name`.
bool CountSetByGpubench(const std::string& function_name);

/// Gives the rows of families whose count gpubench set their names without "iterations:2".
void RestoreRunNames(std::vector<benchmark::BenchmarkReporter::Run>* runs);

/// --benchmark_filter as the user wrote it, widened (gb_internals.hpp WidenFilter) so that it
/// still matches what gpubench adds to GB's names: "/manual_time" at the end of a plain GB name
/// ("bitset_set/1000$"), and with `counts_taken` the count "iterations:2" where a name gpubench
/// prints leaves it out.
std::string WidenFilterForGpubenchNames(const std::string& filter, bool counts_taken);

}  // namespace gpubench::detail
