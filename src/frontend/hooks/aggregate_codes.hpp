// GB computes its mean, median, stddev and cv rows for every counter of a row, codes included: a
// stop_reason of 1 then 6 x 9 averages to 5.5, which is no reason at all. gpubench's reporters
// take the codes (unit "reason" or "reasons" in the counter table) out of the aggregate rows; each
// repetition's row keeps its own.
#pragma once

#include <vector>

#include <benchmark/benchmark.h>

namespace gpubench::detail {

/// Removes every counter whose unit is a code (stop_reason, clock_event_reasons) from the
/// aggregate rows.
void DropCodesFromAggregates(std::vector<benchmark::BenchmarkReporter::Run>* runs);

}  // namespace gpubench::detail
