// gpubench: GPU time, NVTX ranges and hardware counters for Google Benchmark.
//
//   #include <gpubench/gpubench.hpp>
//   static void BM_Copy(benchmark::State& state) {
//     ...
//     for (auto _ : gpubench::Loop(state)) copy<<<grid, block>>>(dst, src, n);
//   }
//   GPUBENCH_BENCHMARK(BM_Copy)->Arg(1 << 28);
//   GPUBENCH_MAIN();
#pragma once

#include <benchmark/benchmark.h>

#include "gpubench/fixture.hpp"
#include "gpubench/loop.hpp"
#include "gpubench/main.hpp"
#include "gpubench/registration.hpp"
#include "gpubench/reporter.hpp"
#include "gpubench/settings.hpp"
#include "gpubench/version.hpp"
