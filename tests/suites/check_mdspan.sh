#!/bin/sh
# A real public suite converted as the user guide says: kokkos/mdspan's CUDA benchmarks
# (51 instances), read from ../shared/suites/mdspan (never copied into gpubench), converted by its
# convert.sh ('literal': the body still times itself; 'after': its own timing removed), built
# against gpubench installed into a temporary prefix, and run. Then check_mdspan.py judges every
# row: without a GPU each one is an error with its reason and the run exits 0 with valid JSON; on
# a GPU 'literal' rows are refused for their SetIterationTime and 'after' rows are measured.
# Exit 77 (skipped) when the suite is not there.
# usage: check_mdspan.sh SUITE_DIR BUILD_DIR WORK_DIR CUDA_ARCH PYTHON [PREFIX_PATH]
set -eu
suite=$1 build=$2 work=$3 arch=$4 python=$5 prefix_path=${6:-}
if [ ! -f "$suite/convert.sh" ] || [ ! -d "$suite/src" ]; then
  echo "SKIP: the mdspan suite is not at $suite (it lives beside the checkout, ../shared/suites/mdspan;" \
       "configure with -DGPUBENCH_MDSPAN_SUITE_DIR=... to point at it)"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
  { tail -20 "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
# GB and the other dependencies: the first entry of the build's CMAKE_PREFIX_PATH, else /usr.
deps=$(printf '%s' "$prefix_path" | cut -d';' -f1)
[ -n "$deps" ] || deps=/usr
GPB_PREFIX="$work/prefix" DEPS_PREFIX="$deps" VARIANTS="literal after" JOBS="$(nproc)" \
  CUDA_ARCH="$arch" WORK="$work/suite" bash "$suite/build_both.sh" ||
  { cat "$work"/suite/logs/status_* 2>/dev/null; echo "FAIL: building the converted suite"; exit 1; }
status=0
for variant in literal after; do
  for binary in sum/cuda/sum_3d_cuda matvec/cuda/matvec_cuda stencil/cuda/stencil_3d_cuda; do
    name=$(basename "$binary")
    out="$work/${variant}_$name"
    rc=0
    timeout 1800 "$work/suite/$variant/benchmarks/$binary" --benchmark_out="$out.json" \
      --benchmark_out_format=json >"$out.stdout" 2>"$out.stderr" || rc=$?
    echo "$rc" >"$out.rc"
  done
done
"$python" "$here/check_mdspan.py" "$work" || status=1
exit $status
