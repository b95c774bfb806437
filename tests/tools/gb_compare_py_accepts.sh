#!/bin/sh
# Google Benchmark's own tools/compare.py must accept gpubench-style JSON
# (context with gpubench_* / gpu_* keys, gpubench counters).
# usage: gb_compare_py_accepts.sh BASELINE.json CONTENDER.json
# Exits 77 (ctest: skipped) when compare.py or scipy is not installed; 1 under CI=true.
set -u
baseline=$1
contender=$2
# Under CI=true (.ci/run installs every package named below) a missing one is a failure: a test
# that CI skips is not a passing test.
missing() {  # missing "what is missing (Debian: apt-get install PACKAGE)"
  if [ "${CI:-}" = true ]; then
    echo "FAIL: $1; .ci/run installs it, so CI must have it"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}

compare_py=""
for candidate in /usr/share/benchmark/compare.py /usr/local/share/benchmark/compare.py; do
  [ -f "$candidate" ] && compare_py=$candidate && break
done
if [ -z "$compare_py" ] && command -v dpkg >/dev/null 2>&1; then
  compare_py=$(dpkg -L libbenchmark-tools 2>/dev/null | grep '/compare.py$' | head -n 1)
fi
if [ -z "$compare_py" ]; then
  missing "Google Benchmark's compare.py not found (Debian: apt-get install libbenchmark-tools)"
fi

# compare.py needs numpy and scipy; the python3 on PATH may not have them
# (e.g. a pyenv build), so prefer one that does.
python=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null 2>&1 &&
    "$candidate" -c "import numpy, scipy" >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  missing "no python3 with numpy and scipy (Debian: apt-get install python3-scipy)"
fi

echo "running: $python $compare_py benchmarks $baseline $contender"
"$python" "$compare_py" benchmarks "$baseline" "$contender"
status=$?
if [ "$status" -ne 0 ]; then
  echo "FAIL: compare.py exited with $status on gpubench-style JSON"
  exit 1
fi
echo "OK: compare.py accepted both files"
