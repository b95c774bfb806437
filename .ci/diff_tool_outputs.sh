#!/usr/bin/env bash
# The three tools of two builds over the committed H200 runs: byte-identical outputs? (issue #48:
# a commit that moves files changes nothing the tools print; .ci/tool_outputs.sh lists what runs.)
# Usage: diff_tool_outputs.sh [--base-data DIR] [--head-data DIR] BASE [HEAD]
#   BASE, HEAD: a git revision, whose tree is taken with `git archive` (the repository and its
#   worktrees are not touched) and whose three tools are built alone; or a build folder that
#   holds them already (BUILD/src/tools/gpubench-*); or "." (HEAD's default): this checkout's
#   working tree, built. A revision built once is kept and reused (by its commit).
#   --base-data, --head-data: the runs each side reads. Default: a revision's own committed ones,
#   a build folder's source tree's (CMakeCache.txt), the working tree's: tests/data/h200 or, before
#   the move of issue #48, tests/compare/data/h200. Both sides' JSON files must be the same bytes.
# Work folder: $GPUBENCH_DIFF_WORK (default ${TMPDIR:-/tmp}/gpubench-diff). Exit 0 when identical.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${GPUBENCH_DIFF_WORK:-${TMPDIR:-/tmp}/gpubench-diff}
base_data=""
head_data=""
while [ $# -gt 0 ]; do
  case $1 in
  --base-data) base_data=$2; shift 2 ;;
  --head-data) head_data=$2; shift 2 ;;
  -*) echo "unknown option $1" >&2; exit 2 ;;
  *) break ;;
  esac
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  sed -n '4,14p' "$0" >&2
  exit 2
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)

# The committed runs under a source tree, wherever this revision keeps them.
data_of() {
  local d
  for d in tests/data/h200 tests/compare/data/h200; do
    if [ -d "$1/$d" ]; then
      echo "$1/$d"
      return
    fi
  done
  echo "no committed H200 runs under $1" >&2
  return 1
}

# Configures SOURCE into BUILD with only the tools, and builds them (log in BUILD.log).
build_tools() {
  if ! { cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_BUILD_TESTS=OFF \
    -DGPUBENCH_BUILD_BENCH=OFF -DGPUBENCH_INSTALL=OFF &&
    cmake --build "$2" -j"$(nproc)" --target gpubench-compare gpubench-export gpubench-report; } \
    >"$2.log" 2>&1; then
    tail -n 30 "$2.log" >&2
    echo "building the tools of $1 failed (log: $2.log)" >&2
    return 1
  fi
}

# Sets side_tools and side_data for one of BASE/HEAD.
resolve() {
  local spec=$1 sha
  if [ "$spec" = . ]; then
    build_tools "$repo" "$work/worktree-build"
    side_tools=$work/worktree-build/src/tools
    side_data=$(data_of "$repo")
  elif [ -x "$spec/src/tools/gpubench-compare" ]; then
    side_tools=$(cd "$spec/src/tools" && pwd)
    local source
    source=$(sed -n 's/^gpubench_SOURCE_DIR:STATIC=//p' "$spec/CMakeCache.txt")
    side_data=$(data_of "${source:-$repo}")
  elif sha=$(git -C "$repo" rev-parse --verify --quiet "$spec^{commit}"); then
    local tree=$work/rev-$sha
    if [ ! -f "$tree/built" ]; then
      rm -rf "$tree"
      mkdir -p "$tree/src"
      git -C "$repo" archive "$sha" | tar -x -C "$tree/src"
      build_tools "$tree/src" "$tree/build"
      touch "$tree/built"
    fi
    side_tools=$tree/build/src/tools
    side_data=$(data_of "$tree/src")
  else
    echo "$spec: neither a build folder with the tools, a revision, nor '.'" >&2
    return 2
  fi
}

resolve "$1"
base_tools=$side_tools
base_data=${base_data:-$side_data}
resolve "${2:-.}"
head_tools=$side_tools
head_data=${head_data:-$side_data}
echo "base: $base_tools on $base_data"
echo "head: $head_tools on $head_data"

# The runs themselves: moved, never changed.
sums() { (cd "$1" && find . -name '*.json' -exec sha256sum {} + | LC_ALL=C sort -k2); }
if ! diff <(sums "$base_data") <(sums "$head_data") >"$work/data.diff"; then
  head -n 20 "$work/data.diff"
  echo "the two sides' runs differ (JSON files above): nothing to compare the tools on"
  exit 1
fi

# One fixed data folder for both sides, so that the paths the tools print are the same.
"$repo/.ci/tool_outputs.sh" "$base_tools" "$base_data" "$work/base-out" "$work/data"
"$repo/.ci/tool_outputs.sh" "$head_tools" "$head_data" "$work/head-out" "$work/data"
if diff -r "$work/base-out" "$work/head-out" >"$work/outputs.diff"; then
  echo "tool outputs byte-identical ($(find "$work/head-out" -type f | wc -l) files)"
else
  head -n 40 "$work/outputs.diff"
  echo "tool outputs differ: $(grep -c '^diff \|^Only in' "$work/outputs.diff") files" \
    "(all of it: $work/outputs.diff)"
  exit 1
fi
