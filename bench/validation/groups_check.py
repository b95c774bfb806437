#!/usr/bin/env python3
"""Reads the JSON of `bench/validation/h200_run.sh groups` and prints the accuracy checks of the metric
groups and of declared work (docs/accuracy.md, "Metric groups"):

- FMA example: flop_count_fp32 against the analytic 2 x threads x FMAs of bench/examples/fma.cu;
- cuBLAS SGEMM: flop_count_fp32 / 2n^3 for each n;
- copy examples: dram_traffic_ratio at footprints of at least 16x the L2;
- replay passes and profiling seconds with and without the groups (--gpubench_profile_out).

Usage: groups_check.py OUT_DIR   (files: groups_off.json/.jsonl, groups_on.json/.jsonl,
sgemm.json/.jsonl). Exit code 1 when a check is outside its bound, 2 when a file is missing.
"""
import json
import os
import sys

# bench/examples/fma.cu: BM_Fma/<blocks> with 256 threads per block and kFmaPerThread FMAs per
# thread.
FMA_THREADS_PER_BLOCK = 256
FMA_PER_THREAD = 4096
# FP32 FLOP per thread outside the FMA chain in bench/examples/fma.cu, from its PTX (nvcc -O3
# sm_90): one fma (seed + threadIdx.x * 1e-3f) and 16 add.f32 (+ c for 8 chains, the 8-term sum).
FMA_EXTRA_FLOP_PER_THREAD_PTX = 2 + 16


def load(out, name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        print("missing %s" % path)
        sys.exit(2)
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in open(path) if line.strip()]
    return json.load(open(path))


def rows(report):
    """Iteration rows by name without GB's /manual_time suffix (the last row of a name wins)."""
    out = {}
    for bench in report["benchmarks"]:
        if bench.get("run_type", "iteration") != "iteration" or bench.get("error_occurred"):
            continue
        out[bench["name"].replace("/manual_time", "")] = bench
    return out


def sessions(records):
    passes = sorted({r["passes"] for r in records})
    return "%d sessions, passes %s, %.2f s of profiling" % (
        len(records), "/".join(str(p) for p in passes), sum(r["seconds"] for r in records))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", ".")
    failures = []

    def check(ok, text):
        print(("ok    " if ok else "FAIL  ") + text)
        if not ok:
            failures.append(text)

    on = load(out, "groups_on.json")
    off = load(out, "groups_off.json")
    context = on["context"]
    print("GPU %s, driver %s, groups %s, profiler %s" % (
        context.get("gpu_name"), context.get("cuda_driver_version"),
        context.get("gpubench_metric_groups"), context.get("gpubench_profiler", "")[:100]))
    with_groups = rows(on)

    # 1. FMA: FP32 FLOPs against the analytic count.
    for name, bench in sorted(with_groups.items()):
        if not name.startswith("BM_Fma/"):
            continue
        threads = int(name.split("/")[1]) * FMA_THREADS_PER_BLOCK
        analytic = 2 * threads * FMA_PER_THREAD
        measured = bench["flop_count_fp32"]
        extra = (measured - analytic) / threads
        print("%s: flop_count_fp32 %.0f, analytic 2 x %d threads x %d FMAs = %d (ratio %.6f); "
              "%.2f FLOP per thread outside the FMA chain (PTX: %d); flop_rate %.3g FLOP/s = %.1f%% "
              "of flop_rate_peak %.3g; tensor_pipe_pct %.2f; other precisions fp64 %.0f fp16 %.0f"
              % (name, measured, threads, FMA_PER_THREAD, analytic, measured / analytic, extra,
                 FMA_EXTRA_FLOP_PER_THREAD_PTX, bench.get("flop_rate", 0),
                 bench.get("flop_rate_pct", 0), bench.get("flop_rate_peak", 0),
                 bench.get("tensor_pipe_pct", -1), bench.get("flop_count_fp64", -1),
                 bench.get("flop_count_fp16", -1)))
        check(measured - analytic == FMA_EXTRA_FLOP_PER_THREAD_PTX * threads,
              "%s: flop_count_fp32 = 2 x threads x FMAs + the %d FLOP per thread of the PTX's "
              "prologue and epilogue, exactly" % (name, FMA_EXTRA_FLOP_PER_THREAD_PTX))

    # 2. SGEMM: FP32 FLOPs against 2 n^3.
    sgemm = load(out, "sgemm.json")
    for name, bench in sorted(rows(sgemm).items(), key=lambda item: int(item[0].split("/")[1])):
        n = int(name.split("/")[1])
        ratio = bench["flop_count_fp32"] / (2.0 * n ** 3)
        print("%s: flop_count_fp32 / 2n^3 = %.5f, flop_count_ratio %.5f, fp64 %.0f, fp16 %.0f, "
              "tensor_pipe_pct %.2f, flop_rate_pct %.1f, arithmetic_intensity %.1f, "
              "dram_traffic_ratio %.3f, l2_hit_rate %.1f%%, GPU time %.1f us" % (
                  name, ratio, bench.get("flop_count_ratio", 0), bench.get("flop_count_fp64", -1),
                  bench.get("flop_count_fp16", -1), bench.get("tensor_pipe_pct", -1),
                  bench.get("flop_rate_pct", 0), bench.get("arithmetic_intensity", 0),
                  bench.get("dram_traffic_ratio", 0), bench.get("l2_hit_rate", -1),
                  bench["real_time"] / 1e3))
        check(abs(ratio - 1) <= 0.01, "%s: flop_count_fp32 within 1%% of 2n^3" % name)

    # 3. Copy: measured DRAM bytes over declared ones at footprints >= 16x L2.
    l2 = float(context["gpu_l2_bytes"])
    for name, bench in sorted(with_groups.items()):
        if not (name.startswith("BM_Copy/") or name.startswith("CopyOnStream/")):
            continue
        n = int(name.split("/")[-1])
        footprint = 2 * n * 4
        ratio = bench.get("dram_traffic_ratio")
        print("%s: footprint %.1fx L2, declared_bytes %.0f, bytes_moved %.0f, dram_traffic_ratio "
              "%s, l2_read_bytes %.0f, l2_write_bytes %.0f, l2_hit_rate %.1f%%" % (
                  name, footprint / l2, bench.get("declared_bytes", 0),
                  bench.get("bytes_moved", 0), "%.5f" % ratio if ratio else "missing",
                  bench.get("l2_read_bytes", -1), bench.get("l2_write_bytes", -1),
                  bench.get("l2_hit_rate", -1)))
        if footprint >= 16 * l2:
            check(ratio is not None and abs(ratio - 1) <= 0.01,
                  "%s: dram_traffic_ratio within 1%% of 1.0 at >= 16x L2" % name)

    # 4. What the groups cost: replay passes and profiling time, same benchmarks.
    without = rows(off)
    for name in sorted(set(without) & set(with_groups)):
        print("%s: profile_passes %s -> %s with the groups" % (
            name, without[name].get("profile_passes"), with_groups[name].get("profile_passes")))
    print("without groups: " + sessions(load(out, "groups_off.jsonl")))
    print("with +flops,+l2: " + sessions(load(out, "groups_on.jsonl")))
    print("sgemm with +flops,+l2: " + sessions(load(out, "sgemm.jsonl")))
    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
