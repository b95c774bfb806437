#!/usr/bin/env bash
# How the H200 numbers in the docs were produced: build on the device machine (no network:
# Debian packages carried in .deps), run the GPU tests and the benchmarks, keep logs in $OUT.
# Usage: bench/validation/h200_run.sh [build|test|nvtx|forms|examples|examples3|gate3|inject|rerun|shared|arch|devices|overhead|rss|
#                          suite|suitecost|crosscheck|groups|short_methods|short_ncu|short_nvbench|
#                          short_gpubench|attach|metricspass|onoff|onoff_clocks|onoffcause|fmarounds|killed|field|oldbuild|fieldold|streams|watchab|
#                          oldpair|tarjson|pack|cost|placement|gatev4|issue37|mdspan|precision|series|series2|ownmain|all]...
set -uo pipefail
OUT=${OUT:-/tmp/gpubench_out}
mkdir -p "$OUT" /tmp/deps
for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export CMAKE_PREFIX_PATH=/tmp/deps/usr
BUILD=${BUILD:-/tmp/gpubench_build}

step_build() {
  cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH=/tmp/deps/usr >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; return 1; }
  cmake --build $BUILD -j 16 ${BUILD_TARGETS:+--target $BUILD_TARGETS} >"$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -60; return 1; }
  echo "build ok"
}
step_test() {
  (cd $BUILD && ctest -L "gpu|examples" --output-on-failure -j1 --timeout 900 --verbose) >"$OUT/ctest_gpu.log" 2>&1
  cp -r $BUILD/tests/gpu/ncu_out "$OUT/ncu_out" 2>/dev/null
  grep -E "^[0-9]+: \[gpu\]|Test +#[0-9]+:|tests passed|FAIL|ratio|: copy|: Ncu_|ncu profiled" "$OUT/ctest_gpu.log" | head -80
}
step_examples() {
  $BUILD/bench/gpubench_examples --benchmark_out="$OUT/examples_h200.json" \
    --benchmark_out_format=json --gpubench_profile_out="$OUT/profile_ranges.jsonl" \
    >"$OUT/examples.log" 2>&1
  tail -25 "$OUT/examples.log"
  python3 -c "import json,collections; r=[json.loads(l) for l in open('$OUT/profile_ranges.jsonl')]; print('profiling sessions: %d, %.2f s; per instance: %s' % (len(r), sum(x['seconds'] for x in r), dict(collections.Counter(x['benchmark'] for x in r))))"
}
step_overhead() {
  for cache in keep flush; do
    $BUILD/bench/gpubench_overhead --gpubench_cache=$cache --gpubench_profile_iterations=0 \
      --benchmark_out="$OUT/overhead_$cache.json" --benchmark_out_format=json \
      >"$OUT/overhead_$cache.log" 2>&1
    grep -E "^BM_" "$OUT/overhead_$cache.log"
  done
}
step_crosscheck() {
  python3 bench/validation/crosscheck_ncu.py $BUILD/bench/gpubench_examples "$OUT/crosscheck" 2>&1 | tail -14
}
step_suitecost() {  # the suite-cost half of the crosscheck only
  python3 bench/validation/crosscheck_ncu.py $BUILD/bench/gpubench_examples "$OUT/crosscheck" --suite-only \
    2>&1 | tail -10
}
step_rss() {
  $BUILD/bench/gpubench_rss --benchmark_out="$OUT/rss.json" --benchmark_out_format=json \
    >"$OUT/rss.log" 2>&1
  python3 -c "import json,sys; b=json.load(open('$OUT/rss.json'))['benchmarks']; r=[x['rss_bytes'] for x in b]; print('rss over %d instances: first %.1f MB, 100th %.1f MB, last %.1f MB, max %.1f MB' % (len(r), r[0]/1e6, r[min(99,len(r)-1)]/1e6, r[-1]/1e6, max(r)/1e6))"
}
step_suite() {
  for flags in "" "--gpubench_profile_iterations=0"; do
    /usr/bin/time -f "suite wall %e s, max RSS %M kB ($flags)" $BUILD/bench/gpubench_examples $flags \
      >"$OUT/suite${flags:+_off}.log" 2>"$OUT/suite${flags:+_off}.time" ; tail -1 "$OUT/suite${flags:+_off}.time"
  done
}
step_nvtx() {  # which ncu NVTX filter forms select the nested ranges
  $BUILD/tests/gpu/gpubench_gpu_targets --benchmark_list_tests >/dev/null || return 1
  for filter in 'gpubench@Ncu_Spin/10000/' 'gpubench@Ncu_Spin/' 'regex:gpubench@Ncu_Spin/1.*/'; do
    count=$(ncu --nvtx --nvtx-include "$filter" --metrics gpu__time_duration.sum \
      $BUILD/tests/gpu/gpubench_gpu_targets --benchmark_filter=Ncu_Spin \
      --gpubench_profile_iterations=0 2>&1 | grep -c "^  SpinKernel")
    echo "ncu --nvtx-include '$filter': $count kernels"
  done
}
step_forms() {  # every registration form: GB's names and the counters; ncu selects templated instances
  python3 tests/e2e/check_forms.py $BUILD/bench/gpubench_forms "$OUT" --min-time 0.05 2>&1 |
    grep -E "^(ok  |FAIL|    |OK:)"
  # One GB call of one iteration (min_time below one iteration's time): ReduceFinal after
  # ReducePartial for Reduce<float>, one AxpbKernel for BM_AxpbT<double, 4>; nothing of gpubench's.
  for name in 'Reduce<float>/Float/67108864' 'BM_AxpbT<double, 4>/4194304'; do
    ncu --nvtx --nvtx-include "gpubench@$name/" --metrics gpu__time_duration.sum \
      $BUILD/bench/gpubench_forms --benchmark_filter="^$name/" --benchmark_min_time=0.000001 \
      --gpubench_profile_iterations=0 --benchmark_out="$OUT/forms_ncu.json" \
      --benchmark_out_format=json >"$OUT/forms_ncu.log" 2>&1
    python3 - "$name" "$OUT/forms_ncu.log" "$OUT/forms_ncu.json" <<'PY'
import collections, json, re, sys
name, log, out = sys.argv[1:]
kernels = [re.match(r"  (?:void )?([^(]+)", line).group(1) for line in open(log)
           if re.match(r"  \S.*\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\), Context", line)]
try:
    runs = [b for b in json.load(open(out))["benchmarks"] if b.get("run_type") == "iteration"]
    gb = ", ".join("%s: %d iterations %s" % (b["name"], b["iterations"],
                   b.get("error_message", "")) for b in runs)
except (OSError, ValueError, KeyError) as error:
    gb = "no GB output: %s" % error
print("ncu --nvtx-include 'gpubench@%s/': %d kernels %s; GB: %s" % (
    name, len(kernels), dict(collections.Counter(kernels)), gb))
PY
  done
}
# Real data for the gate's tests: reruns of both suites with repetitions, and real injected
# regressions of the gate suite (GATE_SUITE_INJECT, see bench/validation/gate_suite.cu). Tag names
# the files.
run_suite() {  # run_suite BINARY REPETITIONS NAME [ENV...]
  local binary=$1 reps=$2 name=$3; shift 3
  /usr/bin/time -f "$name: %e s" env "$@" $BUILD/bench/$binary --benchmark_repetitions=$reps ${GATE_ARGS:-} \
    --benchmark_out="$OUT/$name.json" --benchmark_out_format=json >"$OUT/$name.log" 2>&1
  tail -1 "$OUT/$name.log"
}
step_examples3() {
  for i in ${GATE_RUNS:-1 2 3}; do run_suite gpubench_examples 5 examples_${GATE_TAG:-a}$i; done
}
step_gate3() {
  for i in ${GATE_RUNS:-1 2 3}; do run_suite gpubench_gate_suite 10 gate_${GATE_TAG:-a}$i; done
}
step_inject() {
  run_suite gpubench_gate_suite 10 gate_inject_time GATE_SUITE_INJECT=time
  run_suite gpubench_gate_suite 10 gate_inject_bytes GATE_SUITE_INJECT=bytes
}
# The history's data (issue #22): GATE_RUNS separate runs of the gate suite at one setting, then
# each real injection once: copy_time (+8 us on the 1 GiB copy, ~1%), time (+2.3% FMA work),
# bytes (+2% copied).
step_gatehistory() {
  local runs=${HISTORY_RUNS:-10} i
  for i in $(seq -w 1 $runs); do
    GATE_ARGS=--benchmark_min_time=0.1 run_suite gpubench_gate_suite 10 gate_v3_$i
  done
  for what in copy_time time bytes; do
    GATE_ARGS=--benchmark_min_time=0.1 run_suite gpubench_gate_suite 10 gate_v3_inject_$what \
      GATE_SUITE_INJECT=$what
  done
}
# Issue #35: what a result costs beside NVBench, and the spread of SPREAD processes' medians
# (bench/validation/cost_check.py; COST_ARGS: more gpubench flags, COST_TAG: the folder's name
# part).
step_cost() {
  python3 bench/validation/cost_check.py $BUILD/bench/gpubench_short ${NVB:-.peers/nvbench/copy_bench} \
    "$OUT/cost${COST_TAG:+_$COST_TAG}" --spread ${SPREAD:-8} ${COST_ARGS:+--gpubench-args="$COST_ARGS"} \
    ${COST_NO_NVBENCH:+--skip-nvbench} ${COST_REPS:+--reps $COST_REPS} 2>&1 | tee "$OUT/cost${COST_TAG:+_$COST_TAG}.txt"
}
# Issue #35: where the tiny kernel's spread between processes comes from (two processes of
# bench/experiments/placement.cu: pages, offsets and code copies of one kernel).
step_placement() {
  local i
  for i in 1 2; do
    $BUILD/bench/experiments/gpubench_placement --benchmark_repetitions=3 --gpubench_max_seconds=0.1 \
      --gpubench_profile_iterations=0 --benchmark_out="$OUT/placement_$i.json" \
      --benchmark_out_format=json >"$OUT/placement_$i.log" 2>&1
  done
  python3 - "$OUT"/placement_1.json "$OUT"/placement_2.json <<'PY' | tee "$OUT/placement.txt"
import json, statistics, sys
for path in sys.argv[1:]:
    rows = json.load(open(path))["benchmarks"]
    med = {}
    for b in rows:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median":
            med[b["run_name"].replace("/manual_time", "")] = b["real_time"]
    for family in ("BM_TinyPage", "BM_TinyOffset", "BM_TinyCode"):
        values = [v for k, v in med.items() if k.startswith(family)]
        if values:
            print(f"{path}: {family}: {len(values)} instances, min {min(values):.1f} max "
                  f"{max(values):.1f} ns, sd {100 * statistics.pstdev(values) / statistics.mean(values):.2f}%: "
                  + " ".join(f"{v:.0f}" for v in values))
PY
}
# Issue #35/#36: HISTORY_RUNS runs of the gate suite at default settings (method version 4),
# then the real injections: fma1 (+1.04% FMA steps), fma2 (+2.08%), time (+2.3% on Gate_Fma).
step_gatev4() {
  local runs=${HISTORY_RUNS:-10} i
  for i in $(seq -w 1 $runs); do run_suite gpubench_gate_suite 10 gate_v4_$i; done
  for what in fma1 fma2 time; do
    run_suite gpubench_gate_suite 10 gate_v4_inject_$what GATE_SUITE_INJECT=$what
  done
}
# Issue #21: the synchronising example against ncu (bench/validation/sync_crosscheck.py).
step_sync() {
  python3 bench/validation/sync_crosscheck.py $BUILD/bench/gpubench_sync "$OUT/sync" \
    $BUILD/bench/experiments/libgpubench_activity_trace.so 2>&1 | tee "$OUT/sync.txt"
}
# state.PauseTiming() in the loop body (bench/examples/paused_timing.cu): GB 1.7 (the build above)
# aborts in gpubench's warm-up body, which gpubench explains; GB 1.9.1 built for release (source
# carried in .deps/gb-1.9.1-src.tar.gz, from Debian 13's source package as .ci/run uses it) runs it,
# and gpubench's reporters mark the paused rows timing_paused=1. gpubench_sync with GB 1.9.1: no row
# may be marked.
step_paused() {
  local dir="$OUT/paused" gb=/tmp/gb191 build191=/tmp/gpubench_gb191
  mkdir -p "$dir"
  $BUILD/bench/gpubench_paused --benchmark_filter=paused:1 >"$dir/gb17.log" 2>&1
  echo "GB 1.7: gpubench_paused exit $?"
  grep -E "Check|gpubench: the process aborted" "$dir/gb17.log" | cut -c1-240
  if [ ! -d $gb/prefix ]; then
    mkdir -p $gb && tar xzf .deps/gb-1.9.1-src.tar.gz -C $gb
    { cmake -S $gb/benchmark-1.9.1 -B $gb/build -DCMAKE_BUILD_TYPE=Release -DGIT_VERSION=1.9.1 \
        -DBENCHMARK_ENABLE_TESTING=OFF -DBENCHMARK_ENABLE_GTEST_TESTS=OFF \
        -DBENCHMARK_ENABLE_WERROR=OFF -DBENCHMARK_INSTALL_DOCS=OFF -DCMAKE_INSTALL_PREFIX=$gb/prefix &&
      cmake --build $gb/build -j 16 && cmake --install $gb/build; } >"$dir/gb_build.log" 2>&1 ||
      { tail -20 "$dir/gb_build.log"; return 1; }
  fi
  { cmake -S . -B $build191 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_PREFIX_PATH="$gb/prefix;/tmp/deps/usr" &&
    cmake --build $build191 -j 16 --target gpubench_paused gpubench_sync; } >"$dir/build.log" 2>&1 ||
    { grep -E "error" -A3 "$dir/build.log" | head -30; return 1; }
  $build191/bench/gpubench_paused --benchmark_repetitions=3 --benchmark_out="$dir/paused_gb191.json" \
    --benchmark_out_format=json >"$dir/paused_gb191.log" 2>&1
  echo "GB 1.9.1: gpubench_paused exit $?"
  grep "timing_paused=1" "$dir/paused_gb191.log" | head -2 | cut -c1-400
  $build191/bench/gpubench_sync --benchmark_repetitions=3 --benchmark_out="$dir/sync_gb191.json" \
    --benchmark_out_format=json >"$dir/sync_gb191.log" 2>&1
  echo "GB 1.9.1: gpubench_sync exit $?"
  python3 - "$dir" "$OUT" "$BUILD" <<'PY'
import glob, json, os, sys
for name in ("paused_gb191", "sync_gb191"):
    d = json.load(open(os.path.join(sys.argv[1], name + ".json")))
    print(name, d["context"].get("library_version"), d["context"].get("library_build_type"))
    for b in d["benchmarks"]:
        if b.get("run_type") == "iteration" or b.get("aggregate_name") == "median":
            print("  %-44s %-7s GPU %9.2f us  CPU %10.2f us  timing_paused=%s" % (
                b["name"], b.get("aggregate_name", ""), b["real_time"] / 1e3, b["cpu_time"] / 1e3,
                b.get("timing_paused", "-")))
# Every other JSON of this session: no row may be marked.
marked = 0
paths = [p for root in sys.argv[2:] for p in glob.glob(os.path.join(root, "**", "*.json"),
                                                      recursive=True)]
for path in paths:
    if "paused_gb191" in path:
        continue
    try:
        rows = json.load(open(path)).get("benchmarks", [])
    except Exception:
        continue
    marked += sum(1 for b in rows if "timing_paused" in b)
print("rows marked timing_paused in the %d other JSON files of this session: %d" % (len(paths), marked))
PY
}
# The thermal counters and --gpubench_thermal=wait on a heavy benchmark
# (bench/validation/thermal.cu, a tensor-core GEMM): first with wait, while the GPU is cool (each
# repetition starts within the margin of the coolest temperature), then a minute or more without
# waiting, which warms the GPU. nvidia-smi is only queried (never set).
step_thermal() {
  local dir="$OUT/thermal" bin=$BUILD/bench/gpubench_thermal
  mkdir -p "$dir"
  nvidia-smi --query-gpu=temperature.gpu,power.draw,clocks.sm,power.limit --format=csv \
    >"$dir/smi_before.txt" 2>&1
  cat "$dir/smi_before.txt"
  timeout ${WAIT_LIMIT:-300} $bin --gpubench_thermal=wait:${THERMAL_MARGIN:-5} \
    --benchmark_repetitions=${WAIT_REPS:-5} --benchmark_min_time=${WAIT_MIN_TIME:-3} \
    --benchmark_out="$dir/wait.json" --benchmark_out_format=json >"$dir/wait.log" 2>&1
  echo "thermal=wait: exit $?"
  timeout ${NONE_LIMIT:-200} $bin --benchmark_repetitions=${NONE_REPS:-12} \
    --benchmark_min_time=${NONE_MIN_TIME:-5} \
    --benchmark_out="$dir/none.json" --benchmark_out_format=json >"$dir/none.log" 2>&1
  echo "thermal=none: exit $?"
  grep -h "gpubench: BM_HeavyGemm" "$dir/wait.log" "$dir/none.log" | cut -c1-300 | head -4
  python3 - "$dir" <<'PY'
import json, os, statistics, sys
NAMES = {0x2: "applications_clocks_setting", 0x4: "sw_power_cap", 0x8: "hw_slowdown",
         0x10: "sync_boost", 0x20: "sw_thermal_slowdown", 0x40: "hw_thermal_slowdown",
         0x80: "hw_power_brake_slowdown", 0x100: "display_clock_setting"}
def reasons(value):
    if value is None:
        return "-"
    names = [n for bit, n in NAMES.items() if int(value) & bit]
    return "|".join(names) or "none"
for name in ("wait", "none"):
    path = os.path.join(sys.argv[1], name + ".json")
    try:
        d = json.load(open(path))
    except Exception as e:
        print(name, "no JSON:", e)
        continue
    print(name, d["context"].get("gpubench_thermal"), "|", d["context"].get("gpubench_gpu_thermal", "")[-120:])
    times = []
    for b in d["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        times.append(b["real_time"])
        print("  rep %2d  %8.1f us  sm %5.0f MHz  %3.0f C -> %3.0f C  %4.0f W  wait %5.1f s  %s" % (
            b.get("repetition_index", -1), b["real_time"] / 1e3, b.get("sm_clock_mhz", 0),
            b.get("gpu_temp_start_c", -1), b.get("gpu_temp_end_c", -1), b.get("gpu_power_w", -1),
            b.get("thermal_wait_time", 0), reasons(b.get("clock_event_reasons"))))
    if len(times) > 1:
        med = statistics.median(times)
        print("  %s: %d reps, median %.1f us, (max-min)/median %.2f%%, cv %.2f%%" % (
            name, len(times), med / 1e3, 100 * (max(times) - min(times)) / med,
            100 * statistics.stdev(times) / statistics.mean(times)))
PY
  nvidia-smi --query-gpu=temperature.gpu,power.draw,clocks.sm --format=csv,noheader 2>&1
}
# A later session on a freshly started machine: one more rerun of each suite and the ~2% time
# injection (Gate_Fma 524 steps), for the "rerun after a restart" files.
step_rerun() {
  GATE_TAG=b GATE_RUNS=1 step_examples3
  GATE_TAG=b GATE_RUNS="1 2" GATE_ARGS=--benchmark_min_time=0.1 step_gate3
  GATE_ARGS=--benchmark_min_time=0.1 run_suite gpubench_gate_suite 10 gate_inject_time \
    GATE_SUITE_INJECT=time
}
# Two copies of the example suite started together on one GPU, then one alone: the shared runs
# are flagged gpu_shared=1, the lone run is not (issue #16).
step_shared() {
  local ex=$BUILD/bench/gpubench_examples
  $ex --benchmark_out="$OUT/shared_a.json" --benchmark_out_format=json >"$OUT/shared_a.log" 2>&1 &
  local a=$!
  sleep 1
  $ex --benchmark_out="$OUT/shared_b.json" --benchmark_out_format=json >"$OUT/shared_b.log" 2>&1
  wait $a
  $ex --benchmark_out="$OUT/alone.json" --benchmark_out_format=json >"$OUT/alone.log" 2>&1
  python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
for name in ("shared_a", "shared_b", "alone"):
    d = json.load(open(os.path.join(out, name + ".json")))
    rows = [b for b in d["benchmarks"] if b.get("run_type") == "iteration"]
    shared = [b["name"] for b in rows if b.get("gpu_shared") == 1]
    print("%s: %d of %d rows gpu_shared=1; sharing at start: %s; profiler: %s" % (
        name, len(shared), len(rows), d["context"].get("gpubench_gpu_sharing"),
        d["context"].get("gpubench_profiler")[:90]))
    for b in rows:
        print("   %-40s %10.1f us shared=%s" % (b["name"], b["real_time"] / 1e3 if b["time_unit"] == "ns" else b["real_time"], b.get("gpu_shared")))
    for line in open(os.path.join(out, name + ".log")):
        if "GPU is shared" in line or "HARDWARE_BUSY" in line:
            print("   stderr: " + line.strip()[:300])
PY
}
# The architecture change (issue #9) must not change a number: the example suite again, judged by
# the gate against the committed H200 baseline of the same settings.
step_arch() {
  run_suite gpubench_examples 3 examples_arch
  $BUILD/src/tools/gpubench-compare tests/data/h200/examples_a1.json \
    "$OUT/examples_arch.json" >"$OUT/compare_arch.txt" 2>&1
  echo "gpubench-compare examples_a1 (committed) vs examples_arch: exit $?"
  grep -E "^(Benchmark|BM_|gpubench-compare|Verdict|  )" "$OUT/compare_arch.txt" | head -40
}
# Every GPU of the machine (issue #15): a part of the example suite on all devices, then on
# device 1 alone; the same kernel's numbers per device, and device 1 alone against its rows of
# the run on all.
step_devices() {
  local ex=$BUILD/bench/gpubench_examples filter='^BM_(Copy|Fma|TinyKernel)'
  nvidia-smi -L
  $ex --gpubench_devices=all --benchmark_filter="$filter" --benchmark_repetitions=3 \
    --benchmark_min_time=0.1 --benchmark_out="$OUT/devices_all.json" >"$OUT/devices_all.log" 2>&1
  echo "devices=all: exit $?"
  $ex --gpubench_devices=1 --benchmark_filter="$filter" --benchmark_repetitions=3 \
    --benchmark_min_time=0.1 --benchmark_out="$OUT/devices_1.json" >"$OUT/devices_1.log" 2>&1
  echo "devices=1: exit $?"
  python3 - "$OUT" <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
everything = json.load(open(os.path.join(out, "devices_all.json")))
ctx = everything["context"]
print("gpubench_devices=%s; %s" % (ctx.get("gpubench_devices"), "; ".join(
    "%s=%s" % (k, v) for k, v in sorted(ctx.items()) if k.startswith("gpu_") and
    (k.endswith("_name") or k.endswith("_pci_bus_id") or k.endswith("_status")))))
rows = [b for b in everything["benchmarks"] if b.get("run_type") == "iteration"]
by = {}
for b in rows:
    base, _, rest = b["run_name"].partition("/gpu:")
    device = rest.split("/")[0]
    by.setdefault(base, {}).setdefault(device, []).append(b)
print("%-22s %-5s %12s %8s %14s %10s" % ("benchmark", "gpu", "median us", "cv %", "bytes_moved", "sm MHz"))
for base, devices in by.items():
    for device, runs in sorted(devices.items()):
        t = [r["real_time"] / (1e3 if r["time_unit"] == "ns" else 1) for r in runs]
        cv = 100 * statistics.pstdev(t) / statistics.mean(t) if len(t) > 1 else 0
        print("%-22s %-5s %12.3f %8.3f %14.0f %10.0f" % (base, device, statistics.median(t), cv,
              statistics.median(r.get("bytes_moved", 0) for r in runs),
              statistics.median(r.get("sm_clock_mhz", 0) for r in runs)))
one = json.load(open(os.path.join(out, "devices_1.json")))
print("devices=1 names == gpu:1 names of the all run:",
      [b["name"] for b in one["benchmarks"]] ==
      [b["name"] for b in everything["benchmarks"] if "/gpu:1/" in b["name"]])
everything["benchmarks"] = [b for b in everything["benchmarks"] if "/gpu:1/" in b["name"]]
json.dump(everything, open(os.path.join(out, "devices_all_gpu1.json"), "w"))
PY
  $BUILD/src/tools/gpubench-compare "$OUT/devices_all_gpu1.json" "$OUT/devices_1.json" \
    >"$OUT/compare_devices.txt" 2>&1
  echo "gpubench-compare gpu:1 rows of the all run vs devices=1: exit $?"
  grep -E "^(BM_|gpubench-compare)" "$OUT/compare_devices.txt" | head -20
  ncu --nvtx --nvtx-include "gpubench@BM_TinyKernel/gpu:1/" --metrics gpu__time_duration.sum \
    $ex --gpubench_devices=1 --benchmark_filter="^BM_TinyKernel" --benchmark_min_time=0.000001 \
    --gpubench_profile_iterations=0 >"$OUT/devices_ncu.log" 2>&1
  echo "ncu --nvtx-include 'gpubench@BM_TinyKernel/gpu:1/' selected $(grep -c "^  .*(.*)x(.*), Context" "$OUT/devices_ncu.log") kernels (expect 1: one GB call of one iteration)"
}
# Metric groups and declared work (issue #13, docs/accuracy.md): the FMA and copy examples
# without and with --gpubench_metrics=+flops,+l2, and cuBLAS SGEMM (n = 1024, 2048, 4096, declared
# 2n^3 FLOP) with them; bench/validation/groups_check.py prints FLOPs against the analytic counts,
# the copies' dram_traffic_ratio and what the groups cost in passes and profiling time. About 10 s
# of GPU time. Needs gpubench_examples and gpubench_sgemm (BUILD_TARGETS="gpubench_examples
# gpubench_sgemm" bench/validation/h200_run.sh build groups).
step_groups() {
  local filter='^(BM_Fma|BM_Copy|CopyOnStream)/' groups=--gpubench_metrics=+flops,+l2
  rm -f "$OUT"/groups_off.* "$OUT"/groups_on.* "$OUT"/sgemm.*
  $BUILD/bench/gpubench_examples --benchmark_filter="$filter" --benchmark_min_time=0.2 \
    --benchmark_out="$OUT/groups_off.json" --benchmark_out_format=json \
    --gpubench_profile_out="$OUT/groups_off.jsonl" >"$OUT/groups_off.log" 2>&1
  $BUILD/bench/gpubench_examples --benchmark_filter="$filter" --benchmark_min_time=0.2 $groups \
    --benchmark_out="$OUT/groups_on.json" --benchmark_out_format=json \
    --gpubench_profile_out="$OUT/groups_on.jsonl" >"$OUT/groups_on.log" 2>&1
  $BUILD/bench/gpubench_sgemm --benchmark_min_time=0.2 $groups \
    --benchmark_out="$OUT/sgemm.json" --benchmark_out_format=json \
    --gpubench_profile_out="$OUT/sgemm.jsonl" >"$OUT/sgemm.log" 2>&1
  tail -6 "$OUT/groups_on.log" "$OUT/sgemm.log"
  python3 bench/validation/groups_check.py "$OUT" | tee "$OUT/groups_summary.txt"
}
# Short kernels (issue #10, docs/accuracy.md "Short kernels"). NVB = the NVBench peer binary.
step_short_methods() {
  $BUILD/bench/experiments/gpubench_timing_methods ${METHODS_ARGS:-} >"$OUT/short_methods.jsonl" 2>"$OUT/short_methods.err"
  echo "timing methods: $(wc -l <"$OUT/short_methods.jsonl") rows"; tail -3 "$OUT/short_methods.err"
}
step_short_ncu() {
  ncu --clock-control none --metrics gpu__time_duration.sum -k regex:'Tiny|Spin|Copy|Empty' --csv \
    $BUILD/bench/experiments/gpubench_timing_methods --kernels-only >"$OUT/short_ncu.csv" 2>"$OUT/short_ncu.err"
  echo "ncu rows: $(grep -c gpu__time_duration "$OUT/short_ncu.csv")"; tail -3 "$OUT/short_ncu.err"
}
step_short_nvbench() {
  local nvb=${NVB:-.peers/nvbench/copy_bench}
  $nvb -d 0 -b Tiny --json "$OUT/nvb_tiny.json" >"$OUT/nvb_tiny.md" 2>&1
  $nvb -d 0 -b Copy -a "Elements=[1048576,2097152,4194304,8388608,16777216,33554432]" \
    --json "$OUT/nvb_copy.json" >"$OUT/nvb_copy.md" 2>&1
  grep -E "^\|" "$OUT/nvb_tiny.md" "$OUT/nvb_copy.md" | head -20
}
step_short_gpubench() {  # SHORT_ARGS: extra flags; SHORT_TAG: file name part
  local tag=${SHORT_TAG:-default}
  $BUILD/bench/gpubench_short --gpubench_profile_iterations=0 ${SHORT_ARGS:-} \
    --benchmark_out="$OUT/short_$tag.json" --benchmark_out_format=json >"$OUT/short_$tag.log" 2>&1
  grep -E "_mean|_cv" "$OUT/short_$tag.log" | head -30
}
# Field conditions and metrics on/off (issue #25, docs/accuracy.md "A shared GPU").
# Which part of CUPTI's profiler, left attached, slows held short kernels.
step_attach() {
  $BUILD/bench/experiments/gpubench_profiler_attach ${ATTACH_ARGS:-} 2>&1 | tee "$OUT/attach.txt"
}
# Metrics off and on in alternating runs of the same three short kernels.
step_onoff() {
  local filter='^BM_Short(Tiny|Copy/1048576|Copy/67108864)/'
  for i in ${ONOFF_RUNS:-1 2 3}; do
    for mode in off on; do
      local flags=""
      [ $mode = off ] && flags=--gpubench_profile_iterations=0
      ${ONOFF_BIN:-$BUILD/bench/gpubench_short} --benchmark_filter="$filter" --benchmark_repetitions=5 \
        --benchmark_min_time=${ONOFF_MIN_TIME:-0.1} $flags \
        --benchmark_out="$OUT/onoff${ONOFF_TAG:-}_${mode}$i.json" --benchmark_out_format=json \
        >"$OUT/onoff${ONOFF_TAG:-}_${mode}$i.log" 2>&1
    done
  done
  python3 - "$OUT" "${ONOFF_TAG:-}" <<'PY'
import glob, json, os, re, statistics, sys
out, tag = sys.argv[1], sys.argv[2]
table = {}
for path in sorted(glob.glob(os.path.join(out, "onoff%s_*.json" % tag))):
    mode, run = re.match(r"onoff%s_(on|off)(\d+)" % tag, os.path.basename(path)).groups()
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        t = b["real_time"] / (1e3 if b["time_unit"] == "ns" else 1)
        table.setdefault(b["run_name"].split("/manual_time")[0], {}).setdefault(mode, {}).setdefault(run, []).append(t)
for name, modes in table.items():
    line = []
    for mode in ("off", "on"):
        runs = modes.get(mode, {})
        medians = [statistics.median(v) for _, v in sorted(runs.items())]
        cvs = [100 * statistics.pstdev(v) / statistics.mean(v) for _, v in sorted(runs.items())]
        line.append("%s medians %s us (median %.4f), cv %s %%" % (mode, " ".join("%.4f" % m for m in medians),
                    statistics.median(medians), " ".join("%.3f" % c for c in cvs)))
    off = statistics.median(statistics.median(v) for v in modes["off"].values())
    on = statistics.median(statistics.median(v) for v in modes["on"].values())
    print("%-22s %s | %s | on/off %+.2f%%" % (name, line[0], line[1], 100 * (on / off - 1)))
PY
}
# Metrics on and off alternating through the profiling pass (tests/gpu/check_metrics_pass.py).
step_metricspass() {
  python3 tests/gpu/check_metrics_pass.py $BUILD/bench/gpubench_short "$OUT/metrics_pass" \
    ${PASS_RUNS:-4} 2>&1 | tee "$OUT/metrics_pass.txt"
}
# Metrics on and off for the tiny kernel alone, ten repetitions each, with the clocks and the
# clock-event reasons nvidia-smi reports every 200 ms beside them.
step_onoff_clocks() {
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,clocks_event_reasons.active,power.draw \
    --format=csv,noheader -lms 200 >"$OUT/clocks.csv" 2>&1 &
  local smi=$!
  for mode in off on; do
    local flags=""
    [ $mode = off ] && flags=--gpubench_profile_iterations=0
    echo "$mode start $(date +%T.%N)" >>"$OUT/clocks_marks.txt"
    $BUILD/bench/gpubench_short --benchmark_filter='^BM_ShortTiny/' --benchmark_repetitions=10 \
      --benchmark_min_time=0.05 $flags --gpubench_profile_out="$OUT/tiny_$mode.jsonl" \
      --benchmark_out="$OUT/tiny_$mode.json" --benchmark_out_format=json >"$OUT/tiny_$mode.log" 2>&1
    echo "$mode end $(date +%T.%N)" >>"$OUT/clocks_marks.txt"
  done
  kill $smi
  python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
for mode in ("off", "on"):
    rows = [b for b in json.load(open(os.path.join(out, "tiny_%s.json" % mode)))["benchmarks"]
            if b.get("run_type") == "iteration"]
    print(mode, " ".join("%.4f" % (b["real_time"] / 1e3) for b in rows))
PY
  cat "$OUT/clocks_marks.txt"; sort -u -t, -k2,4 "$OUT/clocks.csv" | head -20
}
# The code before the change, two jobs at once (FIELD_FILTER, 45 s allowed): rows written.
step_oldpair() {
  for i in 0 1; do
    BENCHMARK_MIN_TIME=0.25 timeout 45 /tmp/old_build/bench/gpubench_examples \
      --benchmark_filter="$FIELD_FILTER" --benchmark_repetitions=3 --benchmark_out_format=json \
      --benchmark_out="$OUT/oldpair_$i.json" >"$OUT/oldpair_$i.log" 2>&1 &
  done
  wait
  for i in 0 1; do
    echo "old pair job $i: $(grep -c '"run_type": "iteration"' "$OUT/oldpair_$i.json" 2>/dev/null) rows in 45 s"
  done
}
# A run killed with SIGTERM part way: what the file keeps (the committed cut-off example).
step_killed() {
  $BUILD/bench/gpubench_examples --benchmark_repetitions=3 --benchmark_out="$OUT/killed_sigterm.json" \
    --benchmark_out_format=json >"$OUT/killed.log" 2>&1 &
  local pid=$!
  sleep ${KILL_AFTER:-12}
  kill -TERM $pid; wait $pid
  echo "killed after ${KILL_AFTER:-12} s: exit $?, $(wc -c <"$OUT/killed_sigterm.json") bytes, $(grep -c '"run_type": "iteration"' "$OUT/killed_sigterm.json") iteration rows; last bytes: $(tail -c 40 "$OUT/killed_sigterm.json" | tr '\n' ' ')"
}
# Work on streams the loop was not given (issue #24), against ncu (tests/gpu/check_streams.py).
step_streams() {
  python3 tests/gpu/check_streams.py $BUILD/tests/gpu/gpubench_gpu_streams "$OUT/streams" 2>&1 |
    tee "$OUT/streams.txt" | grep -v '^\$'
}
# Does the stream watch (a CUPTI subscriber during each warm-up) change the timed iterations?
# The same tree built again with the watch left out, then runs alternating between the two
# (metrics off), and the watch build with metrics on; per run the median of 5 repetitions.
step_watchab() {
  rm -rf /tmp/nowatch && mkdir -p /tmp/nowatch &&
    tar --exclude=./.deps --exclude=./.old --exclude=./.git --exclude=./build -cf - . | tar -C /tmp/nowatch -xf -
  sed -i 's|callbacks_ = DriverCallbacks::Get(&unavailable_);|unavailable_ = "left out (experiment)";|' \
    /tmp/nowatch/src/gpu/cupti_stream_watch.cpp
  grep -q 'left out (experiment)' /tmp/nowatch/src/gpu/cupti_stream_watch.cpp || { echo "patch failed"; return 1; }
  cmake -S /tmp/nowatch -B /tmp/nowatch_build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH=/tmp/deps/usr -DGPUBENCH_BUILD_TESTS=OFF -DGPUBENCH_BUILD_TOOLS=OFF >/dev/null 2>&1 &&
    cmake --build /tmp/nowatch_build -j 16 --target gpubench_short >/dev/null 2>&1 || { echo "nowatch build failed"; return 1; }
  local filter='^BM_Short(Tiny|Copy/1048576|Copy/67108864)/'
  for i in ${AB_RUNS:-1 2 3}; do
    for variant in watch nowatch watchon; do
      local bin=$BUILD/bench/gpubench_short flags=--gpubench_profile_iterations=0
      [ $variant = nowatch ] && bin=/tmp/nowatch_build/bench/gpubench_short
      [ $variant = watchon ] && flags=""
      $bin --benchmark_filter="$filter" --benchmark_repetitions=5 --benchmark_min_time=0.1 $flags \
        --benchmark_out="$OUT/ab_${variant}_$i.json" --benchmark_out_format=json >/dev/null 2>&1
    done
  done
  python3 - "$OUT" <<'PY'
import glob, json, os, re, statistics, sys
table = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "ab_*.json"))):
    variant, run = re.match(r"ab_(\w+?)_(\d+)\.json", os.path.basename(path)).groups()
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            table.setdefault(b["run_name"].split("/manual_time")[0], {}).setdefault(variant, []).append(
                b["real_time"] / 1e3)
for name, variants in table.items():
    print(name, " | ".join("%s %s" % (v, " ".join("%.3f" % x for x in variants[v])) for v in
                           ("watch", "nowatch", "watchon") if v in variants), "us")
PY
}
# ../shared/checks/field_conditions.sh (carried in .field/) on the examples: alone, two and four
# jobs at once, next to a busy CUDA process, metrics off. FIELD_BIN: another binary (the code
# before the change, built by step_oldbuild); FIELD_TAG: the log folder.
FIELD_FILTER=${FIELD_FILTER:-'BM_TinyKernel|BM_Fma|BM_Copy/1048576'}
step_field() {
  local tag=${FIELD_TAG:-after}
  mkdir -p "$OUT/field_$tag"
  # Default settings, as users run them (FIELD_MIN_TIME sets GB's min_time, and with it GB's rule).
  OUT="$OUT/field_$tag" ${FIELD_MIN_TIME:+BENCHMARK_MIN_TIME=$FIELD_MIN_TIME} \
    bash .field/field_conditions.sh ${FIELD_BIN:-$BUILD/bench/gpubench_examples} "$FIELD_FILTER" \
    ${FIELD_LIMIT:-300} 2>&1 | tee "$OUT/field_$tag.txt"
}
# The code before the change (.old: git archive of that commit), its examples only.
step_oldbuild() {
  cmake -S .old -B /tmp/old_build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH=/tmp/deps/usr -DGPUBENCH_BUILD_TESTS=OFF -DGPUBENCH_BUILD_TOOLS=OFF \
    >"$OUT/old_configure.log" 2>&1 &&
    cmake --build /tmp/old_build -j 16 --target gpubench_examples gpubench_short >"$OUT/old_build.log" 2>&1 &&
    echo "old build ok" || tail -20 "$OUT/old_build.log"
}
step_fieldold() { FIELD_TAG=before FIELD_BIN=/tmp/old_build/bench/gpubench_examples FIELD_LIMIT=${FIELD_LIMIT:-60} step_field; }
# Issue #37: the GPU tests of busy time from other threads, the missed-work check and
# exceptions (gpu_streams without its ncu part takes the relations only; gpu_faults; the busy
# cross-check; the GPU unit tests), then three runs of each synchronising suite with default
# settings: no row may be refused.
step_issue37() {
  (cd $BUILD && ctest -R "gpu_streams|gpu_faults|gpu_busy_crosscheck|^Gpu\\." --output-on-failure \
    -j1 --timeout 600) >"$OUT/ctest_issue37.log" 2>&1
  grep -E "tests passed|Failed|FAIL|Passed|gpu_busy_time|error:|refused" "$OUT/ctest_issue37.log" | head -60
  cp $BUILD/tests/gpu/streams_out/streams.json $BUILD/tests/gpu/faults_out/faults.json "$OUT/" 2>/dev/null
  local i bin
  mkdir -p "$OUT/sync3"
  for i in 1 2 3; do
    for bin in gpubench_sync gpubench_forms; do
      $BUILD/bench/$bin --benchmark_out="$OUT/sync3/${bin}_$i.json" --benchmark_out_format=json \
        ${SYNC3_ARGS:-} >"$OUT/sync3/${bin}_$i.log" 2>&1
      echo "$bin run $i: exit $?"
    done
  done
  python3 - "$OUT"/sync3/*.json <<'PY' | tee "$OUT/sync3.txt"
import json, sys
for path in sys.argv[1:]:
    rows = [r for r in json.load(open(path))["benchmarks"] if r.get("run_type") == "iteration"]
    bad = [r["name"] + ": " + r.get("error_message", "")[:200] for r in rows
           if r.get("error_occurred") and "missed GPU work" in r.get("error_message", "")]
    other = [r["name"] for r in rows if r.get("error_occurred") and r not in bad]
    print("%s: %d rows, %d refused for missed work, %d other errors" %
          (path.split("/")[-1], len(rows), len(bad), len(other)))
    for line in bad:
        print("  REFUSED " + line)
PY
}
# Issues #35 and #37: kokkos/mdspan's suite whole, plain GB beside the two conversions
# (bench/validation/mdspan_cost.sh; the suite travels in .suites/mdspan, an ignored copy of
# ../shared/suites/mdspan).
step_mdspan() {
  DEPS_PREFIX=/tmp/deps/usr bash bench/validation/mdspan_cost.sh ${MDSPAN_SUITE:-.suites/mdspan} $BUILD \
    "$OUT/mdspan" 90 2>&1 | tail -90
}
step_packall() {  # every file in one archive, the .txt summaries beside it (few files come back)
  (cd "$OUT" && tar czf /tmp/all.tgz --exclude='*.tgz' . &&
    find . -mindepth 1 -not -name '*.txt' -delete && mv /tmp/all.tgz .)
}
step_tarjson() { (cd "$OUT" && tar czf runs.tgz *.json *.log && rm -f *.json *.log); }
# The gate suite with a shorter min_time (its two launch-bound benchmarks take 0.5 s of GPU time
# at ~4 us an iteration, about 140 s a run with 10 repetitions otherwise).
# Issue #47: PRECISION_RUNS processes of gpubench_precision (bench/validation/precision_suite.cu),
# ten repetitions each, every timed sample kept (--gpubench_samples_out). PRECISION_ARGS adds flags:
# the design runs set an unreachable target (--gpubench_precision=0.00001) so that every repetition
# samples for the whole --gpubench_max_seconds; the check runs use default settings.
step_precision() {
  local dir="$OUT/${PRECISION_TAG:-precision}" i
  mkdir -p "$dir"
  for i in $(seq -w 1 ${PRECISION_RUNS:-8}); do
    /usr/bin/time -f "precision run $i: %e s" $BUILD/bench/gpubench_precision \
      --benchmark_repetitions=10 ${PRECISION_ARGS:-} --gpubench_samples_out="$dir/samples_$i.jsonl" \
      --benchmark_out="$dir/run_$i.json" --benchmark_out_format=json >"$dir/run_$i.log" 2>&1
    tail -1 "$dir/run_$i.log"
  done
  python3 bench/validation/precision_check.py "$dir"/run_*.json 2>&1 | tee "$dir/check.txt"
  (cd "$OUT" && tar cJf "${PRECISION_TAG:-precision}.tar.xz" "${PRECISION_TAG:-precision}")
}
# Issue #50: a series of the gate suite for change points, the GPU's identity in every context
# (gpu_uuid, gpu_serial, gpu_vbios_version, gpu_driver_version). Each run gets a made-up commit
# (--benchmark_context=commit=...): 12 plain reruns (c01..c12), then the real injections of
# bench/validation/gate_suite.cu, fma1 (f1..f4: Gate_FmaLong +1.04% steps), copy_time (t1..t4:
# Gate_Copy/268435456 about +1% time, same bytes) and bytes (b1..b3: that copy +2% elements), and a
# settings change, --gpubench_cache=keep (k1..k3). 10 repetitions each, default settings otherwise.
series_run() {  # series_run NAME COMMIT [ENV...] [-- ARGS...]
  local name=$1 commit=$2 envs=() args=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift && args=("$@")
  env "${envs[@]}" $BUILD/bench/gpubench_gate_suite --benchmark_repetitions=10 \
    --benchmark_context=commit=$commit "${args[@]}" --benchmark_out="$SERIES/$name.json" \
    --benchmark_out_format=json >"$SERIES/$name.log" 2>&1
  echo "$name rc=$?"
}
step_series() {
  local i
  SERIES="$OUT/${SERIES_TAG:-series}"
  mkdir -p "$SERIES"
  nvidia-smi --query-gpu=name,uuid,serial,vbios_version,driver_version,pci.bus_id --format=csv,noheader
  for i in $(seq -w 1 12); do series_run plain_$i c$i; done
  for i in 1 2 3 4; do series_run fma1_$i f$i GATE_SUITE_INJECT=fma1; done
  for i in 1 2 3 4; do series_run copytime_$i t$i GATE_SUITE_INJECT=copy_time; done
  for i in 1 2 3; do series_run bytes_$i b$i GATE_SUITE_INJECT=bytes; done
  for i in 1 2 3; do series_run keep_$i k$i -- --gpubench_cache=keep; done
  (cd "$OUT" && tar czf "${SERIES_TAG:-series}.tar.gz" "${SERIES_TAG:-series}")
}
# The second GPU's series (tests/data/h200/series_gpu_8f0dca1c): 12 plain reruns (g1..g6,
# g07..g12) with one run beside a busy process after the sixth (s1: its rows gpu_shared), then
# bytes1 (y1..y4: Gate_Copy/268435456 +1% elements), fma1 (h1..h4) and fma2 (j1..j3: +2.08%).
step_series2() {
  local i busy
  SERIES="$OUT/${SERIES_TAG:-series2}"
  mkdir -p "$SERIES"
  nvidia-smi --query-gpu=name,uuid,serial,vbios_version,driver_version,pci.bus_id --format=csv,noheader
  printf '%s\n' '__global__ void Spin(long long c) { long long t = clock64(); while (clock64() - t < c) {} }' \
    'int main(int argc, char** argv) { int s = argc > 1 ? atoi(argv[1]) : 60;' \
    '  for (int i = 0; i < s * 50; ++i) { Spin<<<1, 32>>>(40000000LL); cudaDeviceSynchronize(); } }' \
    >"$SERIES/busy.cu"
  nvcc -o "$SERIES/busy" "$SERIES/busy.cu"
  for i in 1 2 3 4 5 6; do series_run plain_0$i g$i; done
  "$SERIES/busy" 30 & busy=$!
  sleep 2
  series_run shared_1 s1
  kill "$busy"; wait "$busy" 2>/dev/null
  for i in 07 08 09 10 11 12; do series_run plain_$i g$i; done
  for i in 1 2 3 4; do series_run bytes1_$i y$i GATE_SUITE_INJECT=bytes1; done
  for i in 1 2 3 4; do series_run fma1_$i h$i GATE_SUITE_INJECT=fma1; done
  for i in 1 2 3; do series_run fma2_$i j$i GATE_SUITE_INJECT=fma2; done
  (cd "$OUT" && tar czf "${SERIES_TAG:-series2}.tar.gz" "${SERIES_TAG:-series2}")
}
# Issue #49: a main of one's own gets gpubench's rule on GB >= 1.8. Needs a build against such a GB
# (BUILD_GB18: a build folder configured with -DCMAKE_PREFIX_PATH=<GB 1.9.5 prefix>): the own-main
# suite and its GPUBENCH_MAIN() twin 3 times each, alternating (same rule and fingerprint, medians
# side by side), then the own-main ctest and field_conditions.sh (carried in .field/) on it.
step_ownmain() {
  local b=${BUILD_GB18:?set BUILD_GB18 to a build against GB 1.8 or later} i v dir="$OUT/ownmain"
  cmake --build "$b" -j16 --target gpubench_own_main_suite gpubench_own_main_twin gpubench_unit_tests
  mkdir -p "$dir"
  for i in 1 2 3; do for v in suite twin; do
    "$b/tests/gpubench_own_main_$v" --benchmark_repetitions=5 --benchmark_out="$dir/$v$i.json" \
      --benchmark_out_format=json >"$dir/$v$i.log" 2>&1
    echo "own main $v$i rc=$?"
  done; done
  (cd "$b" && ctest -R "own_main_recipe|GbInternals.AGlobal" -V) >"$dir/ctest.log" 2>&1
  echo "own-main ctest rc=$?"
  OUT="$dir/field" bash .field/field_conditions.sh \
    "$b/tests/gpubench_own_main_suite" BM_OwnMainMemset 150 | tee "$dir/field.txt"
}
# The tree again with experiment switches in gpubench::Initialize (never committed to src/; not
# GPUBENCH_* names, which gpubench refuses as unknown settings). The tiny kernel alone, one
# process per mode, the modes in rotating order (docs/accuracy.md "Metrics on and off").
step_onoffcause() {
  # Why the held tiny kernel timed apart with metrics on and off (issue #49, session 10). Up to
  # 815fd05 the timing process made its context while the profiling child ran; since then it
  # makes it after the child has ended. This copy of the tree can do either: ctx_beside is the
  # earlier order, on the present one. pause2 and off_pause2 wait 2 s after the context is made;
  # off_holdN allocates and holds N MiB right after it (a different place for every buffer after).
  rm -rf /tmp/onoff && mkdir -p /tmp/onoff &&
    tar --exclude=./.deps --exclude=./.peers --exclude=./.git --exclude=./build -cf - . | tar -C /tmp/onoff -xf -
  python3 - /tmp/onoff/src/frontend/setup/initialize.cpp <<'PY' || { echo "patch failed"; return 1; }
import sys
path = sys.argv[1]
text = open(path).read()
line = "  if (facts.available && !command_line.list_metrics) SetCurrentDevice(plan.settings.device, &facts);\n"
block = "  if (child_first) {\n    running_child.Announce(std::cerr);\n"
assert text.count(line) == 1 and text.count(block) == 1 and text.index(block) < text.index(line)
text = text.replace(line, line.replace("if (", "if (!exp_beside && ") +
    "  if (const char* pause = std::getenv(\"ONOFF_EXP_PAUSE_S\")) usleep(std::atof(pause) * 1e6);\n" +
    "  if (const char* mb = std::getenv(\"ONOFF_EXP_HOLD_MB\")) { void* held = nullptr;\n" +
    "    (void)cudaMalloc(&held, static_cast<size_t>(std::atof(mb) * 1048576)); }\n")
text = text.replace(block, "  const bool exp_beside = std::getenv(\"ONOFF_EXP_CTX_BESIDE\") != nullptr;\n" +
    line.replace("if (", "if (exp_beside && ") + block)
open(path, "w").write(text)
PY
  cmake -S /tmp/onoff -B /tmp/onoff_build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH=/tmp/deps/usr >/dev/null 2>&1 &&
    cmake --build /tmp/onoff_build -j 16 --target ${ONOFF_TARGETS:-gpubench_short} >"$OUT/onoff_build.log" 2>&1 ||
    { grep error -A3 "$OUT/onoff_build.log" | head -20; return 1; }
  # ONOFF_MODES picks and orders the modes; each round starts one mode further on.
  local bin=/tmp/onoff_build/bench/gpubench_short modes=(${ONOFF_MODES:-off on ctx_beside off_hold2 off_pause2})
  local args=(--benchmark_filter=^BM_ShortTiny/ --benchmark_min_time=0.1 --benchmark_repetitions=5
    --benchmark_out_format=json --benchmark_out=/tmp/onoff_run.json)
  for i in $(seq 1 ${ONOFF_ROUNDS:-6}); do
    local line="round $i"
    for k in $(seq 0 $(( ${#modes[@]} - 1 ))); do
      local mode=${modes[$(( (k + i) % ${#modes[@]} ))]}
      case $mode in
        off) $bin "${args[@]}" --gpubench_profile_iterations=0 ;;
        off_pause2) ONOFF_EXP_PAUSE_S=2 $bin "${args[@]}" --gpubench_profile_iterations=0 ;;
        off_hold*) ONOFF_EXP_HOLD_MB=${mode#off_hold} $bin "${args[@]}" --gpubench_profile_iterations=0 ;;
        on) $bin "${args[@]}" ;;
        ctx_beside) ONOFF_EXP_CTX_BESIDE=1 $bin "${args[@]}" ;;
        pause2) ONOFF_EXP_PAUSE_S=2 $bin "${args[@]}" ;;
      esac >/dev/null 2>&1
      # The median of the repetitions' times (ns) and of their SM clock (MHz), as
      # "time@clock", then each repetition's time in order.
      line="$line $mode $(python3 -c "import json,statistics,sys
rows = [b for b in json.load(open(sys.argv[1]))['benchmarks'] if b.get('run_type') == 'iteration']
print('%.1f@%.0f[%s]' % (statistics.median(b['real_time'] for b in rows),
                         statistics.median(b.get('sm_clock_mhz', 0) for b in rows),
                         ','.join('%.0f' % b['real_time'] for b in rows)))" /tmp/onoff_run.json)"
    done
    echo "$line" | tee -a "$OUT/onoffcause.txt"
  done
}
step_fmarounds() {  # issue #49: the FMA chain beside NVBench's peer, one process each, ROUNDS rounds
  local bin=$BUILD/bench/gpubench_short peer=.peers/copy_bench
  [ -x $peer ] || { echo "fmarounds: copy NVBench's peer binary to $peer first"; return 1; }
  local beside=/tmp/onoff_build/bench/gpubench_short  # the onoffcause copy, where it was built
  sec() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; local rc=$?; e=$(date +%s.%N)
    awk -v s=$s -v e=$e -v rc=$rc 'BEGIN{printf "%.3f%s", e-s, (rc?"(rc" rc ")":"")}'; }
  for r in $(seq 1 ${ROUNDS:-8}); do
    # In each round: gpubench, the onoffcause copy with its context made beside the child (the
    # order up to 815fd05), NVBench. Session 10 ran this on 815fd05, where the copy's variant was
    # the context made after the child (ctx_after), the order of today's code.
    local g a="" v
    g=$(sec $bin --benchmark_filter=^BM_ShortFma/ --benchmark_repetitions=1 \
      --benchmark_out_format=json --benchmark_out="$OUT/fma_rounds.json")
    [ -x $beside ] && a=" ctx_beside $(ONOFF_EXP_CTX_BESIDE=1 sec $beside \
      --benchmark_filter=^BM_ShortFma/ --benchmark_repetitions=1)"
    v=$(sec $peer -d 0 -b Fma --json /tmp/nvb.json)
    echo "round $r nvbench $v gpubench $g$a" | tee -a "$OUT/fma_rounds.txt"
  done
}
step_gatequick() { GATE_ARGS=--benchmark_min_time=0.1 step_gate3 && GATE_ARGS=--benchmark_min_time=0.1 step_inject; }
step_pack() {  # what comes back: a few files, the rest in one archive
  (cd "$OUT" && tar czf /tmp/logs.tgz --exclude='*.tgz' --exclude=examples_h200.json . &&
    find . -mindepth 1 -not -name examples_h200.json -not -name summary.txt -delete &&
    mv /tmp/logs.tgz .)
}
for step in "${@:-all}"; do
  case $step in
    all) step_build && step_test && step_examples && step_overhead && step_rss && step_suite &&
      step_crosscheck ;;
    *) step_$step ;;
  esac
done
