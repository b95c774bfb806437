#!/bin/sh
# Times gpubench-export on 10,000 benchmarks and gpubench-report on 1,000 benchmarks x 10
# repetitions (size of the HTML, render time in headless Chromium). A benchmark, not a test.
# usage: run_export_report_perf.sh GPUBENCH_EXPORT GPUBENCH_REPORT DATA_DIR [RUNS]
set -eu
export_exe=$1
report_exe=$2
data_dir=$3
runs=${4:-3}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$data_dir"
cd "$data_dir"

[ -f big10k.json ] || python3 "$here/generate_gpubench_run.py" big10k.json --benchmarks 10000
[ -f run1k.json ] || python3 "$here/generate_gpubench_run.py" run1k.json --benchmarks 1000
[ -f base1k.json ] || python3 "$here/generate_gpubench_run.py" base1k.json --benchmarks 1000 \
  --seed 2 --slowdown 1.01

median_time() {  # prints the median wall time of the command over $runs runs
  i=0
  : > times.txt
  while [ "$i" -lt "$runs" ]; do
    /usr/bin/time -f "%e %M" -a -o times.txt "$@" > /dev/null 2>&1
    i=$((i + 1))
  done
  sort -n times.txt | awk '{ t[NR] = $1; if ($2 > m) m = $2 }
    END { printf "median %.2f s (min %.2f, max %.2f), peak RSS %.0f MiB", t[int((NR + 1) / 2)], t[1], t[NR], m / 1024 }'
}

echo "input: 10,000 benchmarks x 10 repetitions + 4 aggregates, 14 counters/row, $(du -m big10k.json | cut -f1) MiB"
echo "  loading alone (--list-measures):      $(median_time "$export_exe" --list-measures big10k.json)"
echo "  --to bencher:                         $(median_time "$export_exe" big10k.json --to bencher -o big.bmf.json)"
echo "  --to github-action-benchmark:         $(median_time "$export_exe" big10k.json --to github-action-benchmark -o big)"
echo "  --to csv (every counter):             $(median_time "$export_exe" big10k.json --to csv -o big.csv), $(wc -l < big.csv) lines, $(du -m big.csv | cut -f1) MiB"
echo "  --to csv --counters time,bytes_moved: $(median_time "$export_exe" big10k.json --to csv --counters time,bytes_moved -o big2.csv)"
[ -f one10k.json ] || python3 "$here/generate_gpubench_run.py" one10k.json --benchmarks 10000 --repetitions 1
echo "input: 10,000 benchmarks x 1 repetition, $(du -m one10k.json | cut -f1) MiB"
echo "  --to csv (every counter):             $(median_time "$export_exe" one10k.json --to csv -o one.csv), $(wc -l < one.csv) lines"

"$report_exe" run1k.json --baseline base1k.json -o report1k.html > /dev/null
"$report_exe" run1k.json -o report1k_alone.html > /dev/null
echo "report: 1,000 benchmarks x 10 repetitions: $(wc -c < report1k.html) bytes with a baseline, $(wc -c < report1k_alone.html) without"
echo "  gpubench-report --baseline:           $(median_time "$report_exe" run1k.json --baseline base1k.json -o report1k.html)"
browser=$(command -v chromium || true)
if [ -z "$browser" ]; then
  echo "  chromium not installed: render time not measured"
  exit 0
fi
render() {  # fragment: "" (charts drawn as they come into view) or "#all"
  i=0
  while [ "$i" -lt "$runs" ]; do
    profile=$(mktemp -d)
    "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --user-data-dir="$profile" --window-size=1400,900 --virtual-time-budget=60000 --dump-dom \
      "file://$data_dir/report1k.html$1" 2>/dev/null |
      grep -o 'data-script-start-ms="[0-9]*" data-render-ms="[0-9]*"[^>]*data-charts-drawn="[0-9]*" data-errors="[0-9]*"'
    rm -rf "$profile"
    i=$((i + 1))
  done
}
echo "  render, first screen (1400x900), ms from navigation start:"
render ""
echo "  render, all charts (#all):"
render "#all"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(chromium --version 2>/dev/null | head -1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
