#!/bin/sh
# The CPU tests under AddressSanitizer + UndefinedBehaviorSanitizer (gcc's, from Debian's g++).
# Builds into build-sanitize/ (or $1) only what the CPU tests run (the target gpubench_cpu_tests;
# a sanitized build of every target at -O2 -g took CI 28 minutes) and runs every test that needs
# no GPU; any report fails.
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build-sanitize}
flags="-fsanitize=address -fsanitize=undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# nvcc splits -Xcompiler values at commas: one -Xcompiler per flag.
cuda_flags=$(for f in $flags; do printf -- '-Xcompiler=%s ' "$f"; done)
# -O0 -g1: no optimisation and line tables only. CMake's RelWithDebInfo (-O2 -g) took gcc 178 s for
# tests/unit/test_loop.cpp alone, -O0 -g1 38 s; the reports keep their file and line numbers.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1 -DNDEBUG" \
  -DCMAKE_CUDA_FLAGS_RELWITHDEBINFO="-O0 -Xcompiler=-g1 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_CUDA_FLAGS="$cuda_flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$build" -j"$(nproc)" --target gpubench_cpu_tests
# protect_shadow_gap=0: the CUDA runtime maps memory where ASan's shadow gap would be.
export ASAN_OPTIONS="protect_shadow_gap=0:detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Left to the plain build: examples_outputs lists CUPTI's metrics, and CUPTI dlopens
# libnvperf_host.so with RTLD_DEEPBIND, which the sanitizer runtime refuses
# (google/sanitizers#611); compare.report.chromium measures a browser, not our code.
# One test at a time, as in the plain run: sanitized binaries are slow enough already.
# -L: only labelled tests, so not the place-holder test (gpubench_gpu_tests_NOT_BUILT, no label)
# that CMake's gtest_discover_tests adds for a GPU test program this build did not make.
ctest --test-dir "$build" -L "cpu|compare" -LE "gpu|fuzz|consumer" \
  -E "^(examples_outputs|compare\.report\.chromium)$" --output-on-failure
