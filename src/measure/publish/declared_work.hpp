// What a benchmark function declared about its work (GB's SetBytesProcessed,
// gpubench::SetFlopsProcessed) against what its loop measured. Runs after the function returned,
// from the registration wrappers, since functions declare their work after their loop.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <string>

namespace gpubench::detail {

/// What the benchmark declared, per iteration, and measured over declared: declared_bytes and
/// dram_traffic_ratio (from GB's SetBytesProcessed, whose counter "bytes_per_second" holds the
/// call's total until GB turns it into a rate), declared_flop and flop_count_ratio (from
/// gpubench::SetFlopsProcessed, "flops_per_second"). `call`: the call's counter values; a ratio
/// needs its measured counter (bytes_moved, flop_count) there.
std::map<std::string, double> DeclaredCounters(const std::map<std::string, double>& call,
                                               int64_t iterations);

/// After the benchmark function returned: declared_bytes, dram_traffic_ratio, declared_flop and
/// flop_count_ratio (DeclaredCounters) from what it declared with SetBytesProcessed
/// and SetFlopsProcessed. Only for a call whose gpubench::Loop finished (Publish ran).
void PublishDeclared(benchmark::State& state);
/// The row's cost (wall_time, samples) once the call's function has returned, for a row whose
/// function did not run (reused on the profiling child's signature), so nothing was declared.
void PublishFunctionCost(benchmark::State& state);

}  // namespace gpubench::detail
