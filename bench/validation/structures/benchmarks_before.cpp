// The CUDA backend's benchmarks before the conversion: the suite's shared bodies as they were.
#include "bodies_before.inc"
