#!/usr/bin/env bash
# README's first quick-start command without its apt-get (the packages installed already), timed
# part by part in a fresh clone of this checkout's HEAD, with no compiler cache: the configure,
# the build of the library and the examples, and the examples' run (docs/user_guide.md "Building
# and testing"). The command is read from README.md, so the time is that of what README says.
#
#   bench/validation/build_time.sh [COMMIT]   (default HEAD; the clone is removed afterwards)
#
# Prints each part's wall time and the CPU time (user + system) of it and its children, the
# number of cores and the load average before and after: another job on the machine lengthens the
# wall times (not much the CPU times), so measure on an otherwise idle machine.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
commit=$(git -C "$repo" rev-parse "${1:-HEAD}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/gpubench"
git -C "$work/gpubench" checkout -q "$commit"

# The first ```sh block of README.md is the first command: its parts joined by " && ", less the
# apt-get ones.
command=$(awk '/^```sh$/ { inside = 1; next } inside && /^```$/ { exit } inside' \
  "$work/gpubench/README.md")
parts=()
while IFS= read -r part; do
  case $part in *apt-get*) ;; *) parts+=("$part") ;; esac
done < <(printf '%s\n' "$command" | sed 's/ && /\n/g')
if [ "${#parts[@]}" -ne 3 ]; then
  echo "expected 3 parts (configure, build, run) in README's first command, found ${#parts[@]}:"
  printf '  %s\n' "${parts[@]}"
  exit 1
fi

unset CMAKE_CXX_COMPILER_LAUNCHER CMAKE_CUDA_COMPILER_LAUNCHER CCACHE_DIR
echo "commit $(git -C "$work/gpubench" rev-parse --short HEAD), $(nproc) cores," \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
cd "$work/gpubench"
TIMEFORMAT='%R %U %S'
total_wall=0
total_cpu=0
for i in "${!parts[@]}"; do
  name=$(printf '%s' "${parts[$i]}" | cut -c1-60)
  { time bash -c "${parts[$i]}" >"$work/part$i.log" 2>&1; } 2>"$work/time$i" || {
    echo "FAIL: ${parts[$i]}"
    tail -20 "$work/part$i.log"
    exit 1
  }
  read -r wall user sys <"$work/time$i"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
  printf '%-62s wall %7.1f s  CPU %7.1f s\n' "$name" "$wall" "$cpu"
  total_wall=$(awk -v a="$total_wall" -v b="$wall" 'BEGIN { print a + b }')
  total_cpu=$(awk -v a="$total_cpu" -v b="$cpu" 'BEGIN { print a + b }')
done
printf '%-62s wall %7.1f s  CPU %7.1f s\n' "total" "$total_wall" "$total_cpu"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
