#!/usr/bin/env bash
# Does GPU memory that another process has just freed decide where a process's arrays land, and
# so mdspan's left 80^3 sum's mode (bench/validation/NOTES-left-sum.md, "Next")? Before each run a
# process takes 4 GiB, writes it and exits (libgpubench_alloc_first.so preloaded into /bin/true),
# and the run starts at once ("dirty") or 3 s later ("clean"):
#   plaindirty, plainclean   the plain-GB twin
#   offdirty, offclean       the converted binary with metrics off (no profiling child)
#   defclean                 the converted binary as users run it (its child exits just before)
# Writes <OUT>/scrub_<variant>_<round>.json and prints process_spread.py's table.
#   left_sum_processes.sh PLAIN_SUM_3D CONVERTED_SUM_3D ALLOC_FIRST_SO OUT [ROUNDS, default 3]
set -u
plain=$1; converted=$2; preload=$3; out=$4; rounds=${5:-3}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
dirty() {
  LD_PRELOAD=$preload ALLOC_FIRST_MIB=4096 ALLOC_FIRST_TOUCH=1 /bin/true 2>>"$out/dirty.log"
}
run() {
  local tag=$1 round=$2
  shift 2
  "$@" --benchmark_filter=left_fixed_80_80_80 --benchmark_repetitions=3 \
    --benchmark_out="$out/scrub_${tag}_$round.json" >"$out/${tag}_$round.log" 2>&1 ||
    echo "left_sum_processes: $tag round $round exited $?" >&2
}
for round in $(seq 1 "$rounds"); do
  dirty; run plaindirty "$round" "$plain"
  dirty; sleep 3; run plainclean "$round" "$plain"
  dirty; sleep 3; run offclean "$round" "$converted" --gpubench_profile_iterations=0
  dirty; run offdirty "$round" "$converted" --gpubench_profile_iterations=0
  dirty; sleep 3; run defclean "$round" "$converted"
done
python3 "$here/process_spread.py" "$out"
