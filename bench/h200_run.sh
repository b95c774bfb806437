#!/usr/bin/env bash
# How the H200 numbers in the docs were produced: build on the device machine (no network:
# Debian packages carried in .deps), run the GPU tests and the benchmarks, keep logs in $OUT.
# Usage: bench/h200_run.sh [build|test|examples|overhead|suite|all]...
set -uo pipefail
OUT=${OUT:-/tmp/gpubench_out}
mkdir -p "$OUT" /tmp/deps
for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export CMAKE_PREFIX_PATH=/tmp/deps/usr
BUILD=/tmp/gpubench_build

step_build() {
  cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH=/tmp/deps/usr >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; return 1; }
  cmake --build $BUILD -j 16 >"$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -60; return 1; }
  echo "build ok"
}
step_test() {
  (cd $BUILD && ctest -L gpu --output-on-failure -j1 --timeout 900) >"$OUT/ctest_gpu.log" 2>&1
  grep -E "^\[gpu\]|Test +#|tests passed|FAIL|ratio|us,|profiled|timer=" "$OUT/ctest_gpu.log" | head -80
}
step_examples() {
  $BUILD/bench/gpubench_examples --benchmark_out="$OUT/examples_h200.json" \
    --benchmark_out_format=json --gpubench_profile_out="$OUT/profile_ranges.jsonl" \
    >"$OUT/examples.log" 2>&1
  tail -25 "$OUT/examples.log"
}
step_overhead() {
  for cache in keep flush; do
    $BUILD/bench/gpubench_overhead --gpubench_cache=$cache --gpubench_profile_iterations=0 \
      --benchmark_out="$OUT/overhead_$cache.json" --benchmark_out_format=json \
      >"$OUT/overhead_$cache.log" 2>&1
    grep -E "^BM_" "$OUT/overhead_$cache.log"
  done
}
for step in "${@:-all}"; do
  case $step in
    all) step_build && step_test && step_examples && step_overhead ;;
    *) step_$step ;;
  esac
done
