// The suite's main before the conversion: it prints its backend and device first (the CUDA
// backend makes its context there), then runs Google Benchmark.
#include <benchmark/benchmark.h>

#include "structures.hpp"

int main(int argc, char** argv) {
  structures::PrintBackend();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
