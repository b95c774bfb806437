#!/bin/sh
# Measures wall time, CPU time (user + sys) and peak RSS of gpubench-compare,
# console and JSON report, on two generated files of 10,000 benchmarks x 10
# repetitions (+ 4 aggregates each), for rows with 0 and 4 counters and for
# rows as the gpubench library writes them (12 counters, bare NaN in cv rows).
# Prints the load average before each measurement: on a busy machine wall
# times grow with the load, CPU times much less.
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
      /usr/bin/time -f "%e %M %U %S" -o "$data_dir/time.txt" "$@" >/dev/null 2>&1 || true
    else
      # Fallback without GNU time: wall time only.
      start=$(date +%s.%N)
      "$@" >/dev/null 2>&1 || true
      end=$(date +%s.%N)
      echo "$(echo "$end - $start" | bc) 0 0 0" >"$data_dir/time.txt"
    fi
    # GNU time also notes the non-zero exit status (1: the files differ).
    results="$results$(grep -E '^[0-9.]+ [0-9]+ [0-9.]+ [0-9.]+$' "$data_dir/time.txt")
"
    i=$((i + 1))
  done
  # Median wall time, median CPU time (user + sys), maximum of the peak RSS values.
  cpus=$(printf '%s' "$results" | awk '{ printf "%.2f\n", $3 + $4 }' | sort -n | tr '\n' ' ')
  printf '%s' "$results" | sort -n | awk -v label="$label" -v cpus="$cpus" '
    { wall[NR] = $1; if ($2 > rss) rss = $2 }
    END { split(cpus, cpu, " ")
          printf "%-44s median wall %.2f s (min %.2f, max %.2f), CPU %.2f s, over %d runs, peak RSS %.0f MiB\n",
                 label, wall[int((NR + 1) / 2)], wall[1], wall[NR], cpu[int((NR + 1) / 2)], NR, rss / 1024 }'
}

for counters in $cases; do
  base="$data_dir/baseline-c$counters.json"
  cont="$data_dir/contender-c$counters.json"
  [ -f "$base" ] || "$generator" "$base" --seed 1 --counters "$counters"
  [ -f "$cont" ] || "$generator" "$cont" --seed 2 --slowdown 1.2 --counters "$counters"
  size=$(($(wc -c <"$base") / 1048576))
  [ "$counters" = gpubench ] && what="gpubench's 12 counters/row" || what="$counters counters/row"
  echo "files: 10000 benchmarks x 10 repetitions + 4 aggregates, $what, ${size} MiB each"
  echo "  load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  measure "  --format console (default)" "$compare" "$base" "$cont"
  echo "  load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  measure "  --format json" "$compare" "$base" "$cont" --format json
  echo "  load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
