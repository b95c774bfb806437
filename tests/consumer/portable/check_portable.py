#!/usr/bin/env python3
"""One suite source, built with and without gpubench (tests/consumer/portable; docs/user_guide.md
"One source for CUDA and other backends").

  check_portable.py plain   SOURCE_DIR WORK_DIR [PREFIX_PATH]
  check_portable.py package SOURCE_DIR WORK_DIR BUILD_DIR [PREFIX_PATH]

PREFIX_PATH: where CMake finds GB (and the CUDA toolkit), directories separated by ':'. The
environment's PORTABLE_CMAKE names the cmake to use (ctest sets it to its own), else PATH's.

plain: the project configured with C++ alone and GB alone, <gpubench/portable.hpp> copied into
its build tree; the rows must be GB's own: GB's names, every body's iterations counted, the
UntimedScope's 2 ms per iteration left out of the time, the callback of gpubench::Main run once
before the first benchmark, no gpubench context.
package: gpubench installed from BUILD_DIR into WORK_DIR/prefix and found with find_package; the
same source must give gpubench's rows: the same names with GB's /manual_time, gpubench's
context. Without a GPU every row is an error naming no usable CUDA device; with one every row is
measured. The callback runs once either way (never in gpubench's profiling child, whose stderr is
this run's too).
Both: an unrecognised argument exits 1 (plain, GB's) or 2 (package, gpubench's) before the
callback; PORTABLE_OWN_MAIN=1 (a main of one's own with gpubench::Initialize) gives the same rows
without the callback.
"""
import json
import os
import shutil
import subprocess
import sys

CMAKE = os.environ.get("PORTABLE_CMAKE", "cmake")
CALLBACK_LINE = "portable: before_benchmarks"
NO_DEVICE = "no usable CUDA device"
ALWAYS = [
    "BM_Loop/iterations:7", "BM_LoopOnStream/iterations:3", "BM_Untimed/iterations:5",
    "BM_Capture/three/iterations:2", "BM_Typed<double>/iterations:2",
    "BM_Typed<int,char>/iterations:2", "Registered/lambda/iterations:2",
    "Registered/args/iterations:2", "Counting/Iterate/iterations:4", "Counting/Whole",
    "Typed<float>/Size/iterations:2",
]
# The forms GB added later: gpubench has them on every GB; GB's plain build where GB does.
OPTIONAL = {
    "template_capture": ["BM_TypedCapture<int16_t>/seven/iterations:2"],
    "template_method": ["Typed<double>/Method/iterations:2"],
    "named": ["BM_Named/nine/iterations:2"],
}
# What each row's body must have recorded (counter: value).
COUNTERS = {
    "BM_Capture/three": {"captured": 3},
    "Registered/args": {"captured": 5},
    "BM_Typed<double>": {"type_size": 8},
    "BM_Typed<int,char>": {"type_size": 5},
    "BM_TypedCapture<int16_t>/seven": {"captured": 7, "type_size": 2},
    "Typed<float>/Size": {"type_size": 4},
    "Typed<double>/Method": {"type_size": 8},
    "BM_Named/nine": {"captured": 9},
    "Counting/Iterate": {"default_stream": 1},
    "Counting/Whole": {"default_stream": 1},
}


def call(args, problems, what, env=None):
    result = subprocess.run(args, capture_output=True, text=True, timeout=900, env=env)
    if result.returncode != 0:
        output = result.stdout[-3000:] + result.stderr[-3000:]
        problems.append("%s failed (exit %d):\n%s" % (what, result.returncode, output))
    return result.returncode == 0


def build(mode, source_dir, work_dir, prefix_path, problems):
    build_dir = os.path.join(work_dir, "build")
    configure = [CMAKE, "-S", os.path.join(source_dir, "tests", "consumer", "portable"),
                 "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                 "-DGPUBENCH_PORTABLE_MODE=" + mode, "-DGPUBENCH_SOURCE_DIR=" + source_dir]
    if prefix_path:
        configure.append("-DCMAKE_PREFIX_PATH=" + ";".join(prefix_path))
    if not call(configure, problems, "configuring the %s build" % mode):
        return None
    if mode == "plain":
        with open(os.path.join(build_dir, "CMakeCache.txt")) as cache:
            found_cuda = [line.strip() for line in cache
                          if line.startswith(("CMAKE_CUDA_COMPILER:", "CUDAToolkit_"))]
        if found_cuda:
            problems.append("the plain build looked for CUDA: %s" % found_cuda)
    if not call([CMAKE, "--build", build_dir, "-j", "2"], problems, "building the %s suite" % mode):
        return None
    return os.path.join(build_dir, "portable_suite")


def run(binary, args, env_extra=None):
    env = dict(os.environ)
    env.pop("PORTABLE_OWN_MAIN", None)
    env.update(env_extra or {})
    return subprocess.run([binary] + args, capture_output=True, text=True, timeout=600, env=env)


def base_name(name, mode):
    """The name less GB's /manual_time (gpubench's rows) and the /iterations:N GB puts in it."""
    if mode == "package":
        name = name[:-len("/manual_time")] if name.endswith("/manual_time") else name
    return name.split("/iterations:")[0]


def check_rows(report, mode, label, problems):
    context = report["context"]
    forms = [f for f in context.get("portable_optional_forms", "").split(",") if f]
    if mode == "package" and sorted(forms) != sorted(OPTIONAL):
        problems.append("%s: gpubench has every form on every GB, the build registered %s" %
                        (label, forms))
    expected = ALWAYS + [name for form in forms for name in OPTIONAL.get(form, [])]
    rows = [row for row in report["benchmarks"] if row.get("run_type", "iteration") == "iteration"]
    names = [row["name"] for row in rows]
    if mode == "package":
        plain_names = [name for name in names if not name.endswith("/manual_time")]
        if plain_names:
            problems.append("%s: rows without gpubench's manual time: %s" % (label, plain_names))
        names = [name[:-len("/manual_time")] if name.endswith("/manual_time") else name
                 for name in names]
    if sorted(names) != sorted(expected):
        problems.append("%s: the rows are\n  %s\nexpected GB's names\n  %s" %
                        (label, sorted(names), sorted(expected)))
    has_gpubench_context = "gpubench_settings_fingerprint" in context
    if has_gpubench_context != (mode == "package"):
        problems.append("%s: gpubench's context is %s" %
                        (label, "there" if has_gpubench_context else "missing"))
    errors = [row for row in rows if row.get("error_occurred")]
    no_device = errors and len(errors) == len(rows) and all(
        NO_DEVICE in row.get("error_message", "") for row in rows)
    if mode == "package" and no_device:
        return "no device"
    if errors:
        problems.append("%s: error rows: %s" %
                        (label, ["%s: %s" % (r["name"], r.get("error_message")) for r in errors]))
    for row in rows:
        name = base_name(row["name"], mode)
        # GB runs the body as often as it counts; gpubench also in its untimed warm-up.
        iterations = row.get("iterations")
        body = row.get("body_iterations", 0)
        if not iterations or (body != iterations if mode == "plain" else body < iterations):
            problems.append("%s: %s ran its body %s times, GB counted %s iterations" %
                            (label, row["name"], body, iterations))
        for counter, value in COUNTERS.get(name, {}).items():
            if row.get(counter) != value:
                problems.append("%s: %s has %s=%s, expected %s" %
                                (label, row["name"], counter, row.get(counter), value))
        if mode == "plain" and name == "Counting/Iterate" and row.get("stream_round_trip") != 1:
            problems.append("%s: the fixture's stream() did not give back SetStream's pointer" %
                            label)
        if name == "BM_Loop" and not row.get("flops_per_second", 0) > 0:
            problems.append("%s: BM_Loop lacks SetFlopsProcessed's flops_per_second" % label)
        if mode == "plain" and name == "BM_Untimed":
            # 2 ms per iteration slept inside UntimedScope; GB's time must leave them out.
            unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[row["time_unit"]]
            seconds = row["real_time"] * unit
            if seconds >= 1e-3:
                problems.append("%s: BM_Untimed took %.6f s per iteration: UntimedScope did not "
                                "pause GB's timer around the 2 ms sleep" % (label, seconds))
    return "measured"


def check_callback_rows(report, calls, label, problems):
    for row in report["benchmarks"]:
        if row.get("error_occurred"):
            continue
        if row.get("before_benchmarks_calls") != calls:
            problems.append("%s: %s saw the callback called %s times before it, expected %d" %
                            (label, row["name"], row.get("before_benchmarks_calls"), calls))


def check_binary(binary, mode, problems):
    args = ["--benchmark_format=json", "--benchmark_min_time=0.01"]
    outcome = None
    for label, env, calls in [("gpubench::Main", {}, 1),
                              ("own main", {"PORTABLE_OWN_MAIN": "1"}, 0)]:
        label = "%s, %s" % (mode, label)
        result = run(binary, args, env)
        if result.returncode != 0:
            problems.append("%s: exit %d, expected 0:\n%s" % (label, result.returncode,
                                                             result.stderr[-3000:]))
            continue
        try:
            report = json.loads(result.stdout)
        except ValueError as error:
            problems.append("%s: stdout is no JSON (%s):\n%s" %
                            (label, error, result.stdout[:2000]))
            continue
        said = result.stderr.count(CALLBACK_LINE)
        if said != calls:
            problems.append("%s: the callback ran %d times, expected %d:\n%s" %
                            (label, said, calls, result.stderr[-3000:]))
        wanted_context = "called" if calls else None
        if report["context"].get("portable_before_benchmarks") != wanted_context:
            problems.append("%s: the callback's context entry is %r, expected %r" %
                            (label, report["context"].get("portable_before_benchmarks"),
                             wanted_context))
        outcome = check_rows(report, mode, label, problems)
        check_callback_rows(report, calls, label, problems)
        print("%s: %d rows, %s; callback ran %d times" %
              (label, len(report["benchmarks"]), outcome, said))
    # Arguments nobody knows (one gpubench would parse, one left after GB's flags): GB's exit 1
    # without gpubench, gpubench's 2 with it; either way before the callback and any benchmark.
    wanted = 1 if mode == "plain" else 2
    for unknown in ["--gpubench_no_such_flag=1", "stray_argument"]:
        result = run(binary, [unknown] + args)
        if (result.returncode != wanted or CALLBACK_LINE in result.stderr or
                '"benchmarks"' in result.stdout):
            problems.append("%s, argument %s: exit %d (expected %d), stderr:\n%s" %
                            (mode, unknown, result.returncode, wanted, result.stderr[-2000:]))
    return outcome


def main():
    args = sys.argv[1:]
    fixed = {"plain": 3, "package": 4}.get(args[0] if args else "")
    if fixed is None or len(args) not in (fixed, fixed + 1):
        print(__doc__)
        return 2
    mode, source_dir, work_dir = args[:3]
    prefix_path = [p for p in (args[fixed] if len(args) > fixed else "").split(":") if p]
    shutil.rmtree(work_dir, ignore_errors=True)
    os.makedirs(work_dir)
    problems = []
    if mode == "package":
        build_dir = args[3]
        prefix = os.path.join(work_dir, "prefix")
        if not call([CMAKE, "--install", build_dir, "--prefix", prefix], problems,
                    "cmake --install"):
            print("\n".join("FAIL: " + p for p in problems))
            return 1
        if not os.path.exists(os.path.join(prefix, "include", "gpubench", "portable.hpp")):
            problems.append("cmake --install did not install gpubench/portable.hpp")
        prefix_path = [prefix] + prefix_path
    binary = build(mode, source_dir, work_dir, prefix_path, problems)
    if binary:
        check_binary(binary, mode, problems)
    for problem in problems:
        print("FAIL: " + problem)
    if not problems:
        print("OK: the %s build's rows are %s" % (mode, "GB's own" if mode == "plain" else
                                                   "gpubench's"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
