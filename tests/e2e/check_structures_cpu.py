#!/usr/bin/env python3
"""The validation suite bench/validation/structures built for its CPU backend on its own: the
bodies shared with the CUDA backend (bodies.inc, converted to gpubench) through
gpubench/portable.hpp, with neither CUDA nor gpubench (its CMake project finds only Google
Benchmark and CXX; no CUDA include path, so a CUDA header in the plain branch would not compile).
Every benchmark runs and passes its own check, under its plain GB name, and the backend's print
comes once, before the benchmarks (gpubench::Main's before_benchmarks in the plain branch).

usage: check_structures_cpu.py SOURCE_DIR WORK_DIR [CMAKE_PREFIX_PATH]
The environment's STRUCTURES_CMAKE names the cmake to use (ctest sets it), else PATH's.
"""
import json
import os
import shutil
import subprocess
import sys

CMAKE = os.environ.get("STRUCTURES_CMAKE", "cmake")
EXPECTED = {"bitset_set/1000", "bitset_set/100000000", "bitset_count/1000",
            "bitset_count/100000000", "bitset_count_then_clear/100000000",
            "deque_push_front/1000000", "deque_push_front/10000000", "deque_push_back/1000000",
            "deque_push_back/10000000", "deque_pop_back/1000000", "deque_pop_back/10000000",
            "deque_clear/1000000"}


def run(args, **kwargs):
    result = subprocess.run(args, capture_output=True, text=True, timeout=900, **kwargs)
    if result.returncode != 0:
        sys.exit("FAIL %s: exit %d\n%s\n%s" % (" ".join(args), result.returncode,
                                                result.stdout[-3000:], result.stderr[-3000:]))
    return result


def main():
    source, work = sys.argv[1], sys.argv[2]
    prefix = sys.argv[3] if len(sys.argv) > 3 else ""
    shutil.rmtree(work, ignore_errors=True)
    configure = [CMAKE, "-S", os.path.join(source, "bench", "validation", "structures"), "-B", work,
                 "-DCMAKE_BUILD_TYPE=Release"]
    if prefix:
        configure.append("-DCMAKE_PREFIX_PATH=" + prefix)
    run(configure)
    cache = open(os.path.join(work, "CMakeCache.txt")).read()
    if "CMAKE_CUDA_COMPILER" in cache:
        sys.exit("FAIL: the CPU build looked for CUDA")
    run([CMAKE, "--build", work, "-j2"])
    binary = os.path.join(work, "structures_cpu")
    result = run([binary, "--benchmark_format=json", "--benchmark_min_time=0.01"])
    document = json.loads(result.stdout[result.stdout.index("{"):])
    rows = [b for b in document["benchmarks"] if b.get("run_type") == "iteration"]
    names = {row["name"] for row in rows}
    problems = []
    if names != EXPECTED:
        problems.append("names %s, expected the plain GB names %s" % (sorted(names),
                                                                       sorted(EXPECTED)))
    for row in rows:
        if row.get("error_occurred"):
            problems.append("%s: %s" % (row["name"], row.get("error_message")))
        elif row.get("iterations", 0) < 1 or row.get("real_time", 0) <= 0:
            problems.append("%s: no time" % row["name"])
    # gpubench's context keys all start so; GB's own may name gpubench in a path.
    ours = [key for key in document["context"] if key.startswith(("gpubench_", "gpu_", "cuda_"))]
    if ours:
        problems.append("the context has gpubench's keys (%s): the plain branch was not the one "
                        "built" % ", ".join(ours[:3]))
    printed = result.stdout[:result.stdout.index("{")].count("structures: CPU backend")
    if printed != 1:
        problems.append("the backend's print came %d times before the JSON, not once" % printed)
    for problem in problems:
        print("FAIL " + problem)
    if problems:
        sys.exit(1)
    print("OK: %d benchmarks of the CPU backend, plain GB names, no CUDA, no gpubench" % len(rows))


if __name__ == "__main__":
    main()
