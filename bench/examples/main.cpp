// The example benchmarks' main: GPUBENCH_MAIN() in place of BENCHMARK_MAIN().
#include <gpubench/gpubench.hpp>

GPUBENCH_MAIN();
