#!/bin/sh
# Runs the gpubench-compare input fuzzer for a short time (CI smoke run).
#   run_loader_fuzzer.sh [SECONDS]                 build it with clang++ first
#   run_loader_fuzzer.sh --binary FUZZER [SECONDS] use an already built one
# Seeds: tests/data (good and bad inputs). Exits 77 (ctest: skipped)
# when clang++ with libFuzzer is not available (1 under CI=true); non-zero on a crash.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
fuzzer=""
if [ "${1:-}" = "--binary" ]; then
  fuzzer=$2
  shift 2
fi
seconds=${1:-30}
work=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-compare-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Under CI=true (.ci/run installs clang and libclang-rt) a missing one is a failure.
missing() {
  if [ "${CI:-}" = true ]; then
    echo "FAIL: $1; .ci/run installs it, so CI must have it"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}

if [ -z "$fuzzer" ]; then
  clang=""
  for candidate in clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14; do
    if command -v "$candidate" >/dev/null 2>&1; then
      clang=$candidate
      break
    fi
  done
  if [ -z "$clang" ]; then
    missing "clang++ not found (Debian: apt-get install clang libclang-rt-14-dev)"
  fi
  echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' \
    >"$work/probe.cpp"
  if ! "$clang" -fsanitize=fuzzer "$work/probe.cpp" -o "$work/probe" >/dev/null 2>&1; then
    missing "$clang cannot link libFuzzer (Debian: apt-get install libclang-rt-14-dev)"
  fi
  fuzzer="$work/gpubench_compare_loader_fuzzer"
  echo "building $fuzzer with $clang"
  # The tools' shared layers whole (base, load, changes, gate with its subfolders) and the report
  # writer the fuzzer checks. common/format.cpp: the library's number formatting, which the
  # tools print with.
  core_sources=$(ls "$repo"/src/common/format.cpp "$repo"/src/tools/compare/format_*.cpp \
    "$repo"/src/tools/compare/report_csv.cpp
    find "$repo"/src/tools/base "$repo"/src/tools/load "$repo"/src/tools/changes \
      "$repo"/src/tools/gate -name '*.cpp' | sort)
  # The simdjson fast path where libsimdjson-dev is installed (as in the CMake build).
  simdjson_flags=""
  printf '#include <simdjson.h>\nint main() { simdjson::ondemand::parser p; return 0; }\n' \
    >"$work/probe_simdjson.cpp"
  if "$clang" -std=c++17 "$work/probe_simdjson.cpp" -o "$work/probe_simdjson" -lsimdjson \
    >/dev/null 2>&1; then
    simdjson_flags="-DGPUBENCH_COMPARE_HAVE_SIMDJSON=1 -lsimdjson"
  fi
  # shellcheck disable=SC2086
  "$clang" -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -fsanitize-ignorelist="$here/fuzz_ubsan_ignorelist.txt" \
    -I"$repo/src" -I"$repo/include" \
    $core_sources "$here/loader_fuzzer.cpp" -o "$fuzzer" $simdjson_flags -lpthread
fi

mkdir -p "$work/corpus"
echo "fuzzing for ${seconds}s"
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 "$work/corpus" "$repo/tests/data"
