#!/bin/sh
# Measures wall time and peak RSS of gpubench-compare on two generated files
# of 10,000 benchmarks x 10 repetitions (+ 4 aggregates each), for rows with
# 0 and 4 counters and for rows as the gpubench library writes them (12
# counters, bare NaN in cv rows).
# usage: run_compare_perf.sh GPUBENCH_COMPARE GENERATOR DATA_DIR [RUNS] [CASES]
# CASES: counter modes to measure, default "0 4 gpubench".
set -eu
compare=$1
generator=$2
data_dir=$3
runs=${4:-5}
cases=${5:-0 4 gpubench}
mkdir -p "$data_dir"

measure() {  # label, then the command
  label=$1
  shift
  "$@" >/dev/null 2>&1 || true  # warm the page cache
  i=0
  results=""
  while [ "$i" -lt "$runs" ]; do
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f "%e %M" -o "$data_dir/time.txt" "$@" >/dev/null 2>&1 || true
    else
      # Fallback without GNU time: wall time only.
      start=$(date +%s.%N)
      "$@" >/dev/null 2>&1 || true
      end=$(date +%s.%N)
      echo "$(echo "$end - $start" | bc) 0" >"$data_dir/time.txt"
    fi
    # GNU time also notes the non-zero exit status (1: the files differ).
    results="$results$(grep -E '^[0-9.]+ [0-9]+$' "$data_dir/time.txt")
"
    i=$((i + 1))
  done
  # Median wall time, maximum of the peak RSS values.
  printf '%s' "$results" | sort -n | awk -v label="$label" '
    { wall[NR] = $1; if ($2 > rss) rss = $2 }
    END { printf "%-44s median wall %.2f s (min %.2f, max %.2f) over %d runs, peak RSS %.0f MiB\n",
                 label, wall[int((NR + 1) / 2)], wall[1], wall[NR], NR, rss / 1024 }'
}

for counters in $cases; do
  base="$data_dir/baseline-c$counters.json"
  cont="$data_dir/contender-c$counters.json"
  [ -f "$base" ] || "$generator" "$base" --seed 1 --counters "$counters"
  [ -f "$cont" ] || "$generator" "$cont" --seed 2 --slowdown 1.2 --counters "$counters"
  size=$(($(wc -c <"$base") / 1048576))
  [ "$counters" = gpubench ] && what="gpubench's 12 counters/row" || what="$counters counters/row"
  echo "files: 10000 benchmarks x 10 repetitions + 4 aggregates, $what, ${size} MiB each"
  measure "  --format console (default)" "$compare" "$base" "$cont"
  measure "  --format json" "$compare" "$base" "$cont" --format json
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
