#!/bin/sh
# Times gpubench-compare --changes on a CI history of 1,000 benchmarks x 200 runs (issue #50's
# size: under 5 s on the 2-core CI machine), the files as the gpubench library writes them (12
# counters a row, GB's aggregates), with 5 and with 1 repetition(s); runs 151-200 are 2% slower in
# every 10th benchmark, so the analysis finds 100 steps. Reports the median wall time of RUNS
# timings after one that warms the page cache, CPU time and peak RSS. A benchmark, not a test.
# usage: run_changes_perf.sh GPUBENCH_COMPARE GENERATOR DATA_DIR [RUNS]
set -eu
compare=$1
generator=$2
data_dir=$3
runs=${4:-3}
mkdir -p "$data_dir"
for repetitions in 5 1; do
  dir="$data_dir/reps$repetitions"
  mkdir -p "$dir"
  i=1
  while [ "$i" -le 200 ]; do
    name=$(printf 'r%03d.json' "$i")
    slowdown=1.0
    [ "$i" -gt 150 ] && slowdown=1.02
    [ -f "$dir/$name" ] || "$generator" "$dir/$name" --benchmarks 1000 --repetitions "$repetitions" \
      --counters gpubench --seed "$i" --slowdown "$slowdown"
    i=$((i + 1))
  done
  size=$(du -sh "$dir" | cut -f1)
  "$compare" --changes "$dir"/r*.json --format json -o "$dir/changes.json" >/dev/null  # warm
  k=0
  results=""
  while [ "$k" -lt "$runs" ]; do
    /usr/bin/time -f "%e %M %U %S" -o "$dir/time.txt" \
      "$compare" --changes "$dir"/r*.json --format json -o "$dir/changes.json" >/dev/null
    results="$results$(cat "$dir/time.txt")
"
    k=$((k + 1))
  done
  wall=$(printf '%s' "$results" | awk '{ print $1 }' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  cpu=$(printf '%s' "$results" | awk '{ printf "%.2f\n", $3 + $4 }' | sort -n | tr '\n' ' ')
  rss=$(printf '%s' "$results" | awk '{ if ($2 > m) m = $2 } END { printf "%.0f", m / 1024 }')
  found=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['practical_changes'])" \
    "$dir/changes.json" 2>/dev/null || echo "?")
  echo "1,000 benchmarks x 200 runs x $repetitions repetition(s) ($size of JSON): median wall ${wall} s," \
    "CPU ${cpu}s, peak RSS ${rss} MiB, $found changes found (100 injected), $(cut -d' ' -f1-3 /proc/loadavg) load"
done
