// The CPU backend's benchmarks: the suite's shared bodies.
#include "bodies.inc"
