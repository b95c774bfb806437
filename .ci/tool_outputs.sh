#!/usr/bin/env bash
# Runs gpubench-compare, gpubench-export and gpubench-report over every committed H200 run and
# writes each invocation's stdout, stderr, exit code and output files under OUTDIR, one folder per
# invocation: what .ci/diff_tool_outputs.sh compares between two builds (issue #48: a commit that
# moves files must not change what the tools print). Error paths are covered too: many of the
# pairs below are refused (settings mismatch, nothing in common), with their exit codes.
# Usage: tool_outputs.sh TOOLS_DIR DATA_DIR OUTDIR [FIXED_DIR]
#   TOOLS_DIR holds gpubench-compare, gpubench-export, gpubench-report.
#   DATA_DIR holds the runs (tests/compare/data/h200, or wherever the checkout keeps them).
# The data is copied to FIXED_DIR first (default ${TMPDIR:-/tmp}/gpubench-tool-outputs-data), so
# that file names printed by the tools are the same whichever checkout (or folder layout) the data
# came from; OUTDIR is written as OUT in what the tools print.
set -uo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 TOOLS_DIR DATA_DIR OUTDIR [FIXED_DIR]" >&2
  exit 2
fi
tools=$(cd "$1" && pwd) || exit 2
src=$2
out=$3
fixed=${4:-${TMPDIR:-/tmp}/gpubench-tool-outputs-data}
for tool in gpubench-compare gpubench-export gpubench-report; do
  if [ ! -x "$tools/$tool" ]; then
    echo "no $tool in $tools" >&2
    exit 2
  fi
done
if [ ! -d "$src" ]; then
  echo "no data folder $src" >&2
  exit 2
fi
rm -rf "$fixed" "$out"
mkdir -p "$fixed" "$out"
out=$(cd "$out" && pwd)
cp -r "$src"/. "$fixed"/
stub=$fixed/.chart.js
echo '/* Chart.js stub */' >"$stub"
cd "$fixed" || exit 2
n=0
run() { # run NAME TOOL ARGS...: one invocation, its outputs in $out/NAME/
  local name=$1
  shift
  local dir="$out/$name"
  mkdir -p "$dir"
  (cd "$dir" && "$tools/$@" >stdout 2>stderr; echo $? >rc)
  sed -i "s|$dir|OUT|g" "$dir/stdout" "$dir/stderr"
  n=$((n + 1))
}
mapfile -t files < <(find . -name '*.json' | sed 's|^\./||' | LC_ALL=C sort)
for f in "${files[@]}"; do
  k=${f//\//__}
  run "export_csv__$k" gpubench-export --to csv "$fixed/$f"
  run "export_bencher__$k" gpubench-export --to bencher "$fixed/$f"
  run "export_gab__$k" gpubench-export --to github-action-benchmark -o gab "$fixed/$f"
  run "export_measures__$k" gpubench-export --list-measures "$fixed/$f"
  run "report__$k" gpubench-report --chartjs "$stub" -o report.html "$fixed/$f"
done
# Each file against the next one of its folder (sorted), in every format and metric set.
prev=""
prevdir=""
for f in "${files[@]}"; do
  d=$(dirname "$f")
  if [ "$d" = "$prevdir" ]; then
    k="${prev//\//__}__vs__$(basename "$f")"
    for fmt in console markdown json csv; do
      run "compare_${fmt}__$k" gpubench-compare --color never --format "$fmt" "$fixed/$prev" "$fixed/$f"
    done
    run "compare_all__$k" gpubench-compare --color never --metrics all "$fixed/$prev" "$fixed/$f"
    run "compare_mismatch__$k" gpubench-compare --color never --allow-settings-mismatch \
      "$fixed/$prev" "$fixed/$f"
    run "report_base__$k" gpubench-report --chartjs "$stub" -o report.html \
      --allow-settings-mismatch --baseline "$fixed/$prev" "$fixed/$f"
  fi
  prev=$f
  prevdir=$d
done
# Histories: every folder with at least four runs, the last as the contender.
for d in $(printf '%s\n' "${files[@]}" | xargs -n1 dirname | LC_ALL=C sort | uniq -c |
  awk '$1 >= 4 {print $2}'); do
  mapfile -t runs < <(find "$d" -maxdepth 1 -name '*.json' | sed 's|^\./||' | LC_ALL=C sort)
  last=${runs[${#runs[@]}-1]}
  k=${d//\//__}
  paths=()
  baselines=()
  for r in "${runs[@]}"; do paths+=("$fixed/$r"); done
  for r in "${runs[@]:0:${#runs[@]}-1}"; do baselines+=(--baseline "$fixed/$r"); done
  for fmt in console json; do
    run "history_${fmt}__$k" gpubench-compare --color never --allow-settings-mismatch \
      --format "$fmt" "${paths[@]}"
  done
  run "report_history__$k" gpubench-report --chartjs "$stub" -o report.html \
    --allow-settings-mismatch "${baselines[@]}" "$fixed/$last"
done
# --history DIR against the injected and metrics-on runs kept beside each history.
for d in history_gate_v3 history_gate_v4 history_short; do
  for f in "$d"/inject*.json "$d"/metrics_on.json; do
    [ -f "$f" ] || continue
    k=${f//\//__}
    run "history_dir__$k" gpubench-compare --color never --history "$fixed/$d" "$fixed/$f"
    run "history_dir_report__$k" gpubench-report --chartjs "$stub" -o report.html \
      --history "$fixed/$d" "$fixed/$f"
  done
done
# Several files as the shards of one run.
run "export_shards_x2" gpubench-export --to csv "$fixed/x2/devices_1.json" "$fixed/x2/arch_new1.json"
echo "tool_outputs: $n invocations over ${#files[@]} files in $out"
