// The suite's main converted by the user guide ("A main of your own"): gpubench::Main runs the
// benchmarks, and the device is printed after gpubench made its CUDA context, not before.
// Through gpubench/portable.hpp the CPU build runs plain Google Benchmark the same way.
#include <gpubench/portable.hpp>

#include "structures.hpp"

int main(int argc, char** argv) { return gpubench::Main(argc, argv, structures::PrintBackend); }
