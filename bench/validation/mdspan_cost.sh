#!/usr/bin/env bash
# kokkos/mdspan's CUDA benchmarks (51 instances, ../shared/suites/mdspan, never copied into
# gpubench) run whole on a GPU, default settings, in three builds: 'before' (the suite as
# published, plain GB), 'literal' (converted by the README's steps, the body still times itself)
# and 'after' (its own timing removed). Records each binary's wall time and JSON, then
# bench/validation/mdspan_table.py prints the whole-run cost (issue #35: after <= 1.5x before) and
# the rows side by side, and tests/suites/check_mdspan.py judges literal (refused) and after
# (measured).
# usage: bench/validation/mdspan_cost.sh SUITE_DIR BUILD_DIR OUT_DIR [CUDA_ARCH]
#        (DEPS_PREFIX: GB's prefix; VARIANTS: default "before literal after"; STAGE: build, run or
#        both, the default: a build stays in $WORK for a later STAGE=run; BINARIES: the binaries
#        to run, default "sum_3d_cuda matvec_cuda stencil_3d_cuda"). Each binary runs in every
#        variant one after the other, so that plain and converted see the same GPU.
set -u
suite=$1 build=$2 out=$3 arch=${4:-90}
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-/tmp/mdspan_cost}
variants=${VARIANTS:-before literal after}
stage=${STAGE:-both}
mkdir -p "$out"
if [ "$stage" != run ]; then
  rm -rf "$work" && mkdir -p "$work"
  cmake --install "$build" --prefix "$work/prefix" >"$out/install.log" 2>&1 ||
    { tail -20 "$out/install.log"; exit 1; }
  GPB_PREFIX="$work/prefix" DEPS_PREFIX="${DEPS_PREFIX:-/tmp/deps/usr}" \
    VARIANTS="$variants" JOBS="$(nproc)" CUDA_ARCH="$arch" WORK="$work/suite" \
    LOGS="$out/build_logs" bash "$suite/build_both.sh" >"$out/build.log" 2>&1 ||
    { cat "$out"/build_logs/status_* 2>/dev/null; exit 1; }
  cat "$out"/build_logs/status_*
fi
[ "$stage" = build ] && exit 0
: >"$out/walls.txt"
binaries=${BINARIES:-sum_3d_cuda matvec_cuda stencil_3d_cuda}
for binary in sum/cuda/sum_3d_cuda matvec/cuda/matvec_cuda stencil/cuda/stencil_3d_cuda; do
  case " $binaries " in *" $(basename "$binary") "*) ;; *) continue ;; esac
  for variant in $variants; do
    name=$(basename "$binary")
    stem="$out/${variant}_$name"
    t0=$(date +%s.%N)
    rc=0
    timeout 900 "$work/suite/$variant/benchmarks/$binary" --benchmark_out="$stem.json" \
      --benchmark_out_format=json >"$stem.stdout" 2>"$stem.stderr" || rc=$?
    t1=$(date +%s.%N)
    echo "$rc" >"$stem.rc"
    echo "$variant $name $rc $(python3 -c "print('%.2f' % ($t1 - $t0))")" | tee -a "$out/walls.txt"
  done
done
python3 "$here/mdspan_table.py" "$out" | tee "$out/table.txt"
python3 "$here/../../tests/suites/check_mdspan.py" "$out" | tee "$out/check.txt"
