// What a benchmark function declared about its work (GB's SetBytesProcessed,
// gpubench::SetFlopsProcessed) against what its loop measured. Runs after the function returned,
// from the registration wrappers, since functions declare their work after their loop.
#pragma once

#include <benchmark/benchmark.h>

namespace gpubench::detail {

/// After the benchmark function returned: declared_bytes, dram_traffic_ratio, declared_flop and
/// flop_count_ratio (metrics.hpp DeclaredCounters) from what it declared with SetBytesProcessed
/// and SetFlopsProcessed. Only for a call whose gpubench::Loop finished (Publish ran).
void PublishDeclared(benchmark::State& state);

}  // namespace gpubench::detail
