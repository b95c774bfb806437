// GoogleTest main that also initialises Google Benchmark, so tests can run registered
// benchmarks through benchmark::RunSpecifiedBenchmarks.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  benchmark::Initialize(&argc, argv);
  return RUN_ALL_TESTS();
}
