#!/usr/bin/env python3
"""Counter names and context keys quoted in the Python scripts are the vocabulary's (issue #48).

The scripts cannot include the C++ tables (src/schema/), so a misspelt "gpu_busy_pcnt" would read
nothing. A quoted name that looks like one (starts with gpu_, gpubench_ or cuda_, or ends in _time,
_bytes, _pct, _mhz, _c or _w; a CUPTI metric's '__' excepted) must be a counter, a context key
(also as gpu_<N>_<key>, a --gpubench_devices run's), a stop reason or a clock-event reason, as
gpubench_schema_dump prints them; or a name a script uses for something else, listed below per
file with the reason (a listed name the file no longer holds fails too, so the list stays short).

Usage: check_python_names.py SCHEMA_DUMP_EXE REPO   (exit 1 with one line per unknown name)
       check_python_names.py --self-test            (the check finds a planted misspelt name)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

FOLDERS = ["bench/validation", "tests/gpu", "tests/tools", "tests/python", "tests/e2e", "python"]
LITERAL = re.compile(r"""(?<![\w])(["'])([a-z][a-z0-9_]*/?)\1""")
LOOKS_LIKE = re.compile(r"^(gpu|gpubench|cuda)_|_(time|bytes|pct|mhz|c|w)$")
DEVICE_KEY = re.compile(r"^gpu_[0-9]+_(.+)$")

# Names that look like the vocabulary's but are not: {file: {name: why}}.
NOT_NAMES = {
    "bench/validation/precision_check.py": {
        "median_half_width_pct": "a column of the script's own summary",
        "median_sd_pct": "a column of the script's own summary",
        "gpu_ns": "a field of the committed sample logs (per-sample GPU ns)",
    },
    "bench/validation/precision_design.py": {
        "gpu_ns": "a field of the committed sample logs (per-sample GPU ns)",
    },
    "bench/validation/cost_check.py": {
        "gpu_time_s": "a field of the script's own JSON (nvbench's GPU time)",
        "gpubench_1": "a key of the script's own JSON (one gpubench run)",
        "gpubench_10": "a key of the script's own JSON (ten gpubench runs)",
    },
    "bench/validation/sync_crosscheck.py": {
        "cuda_gpu_trace": "an nsys stats report's name",
    },
    "tests/gpu/check_sync_ncu.py": {
        "gpu_time": "a key of the script's own rows (real_time in seconds)",
    },
    "tests/tools/check_report.py": {
        "gate_inject_time": "a committed data file's name (tests/data)",
    },
    "tests/tools/check_export.py": {
        "gate_inject_bytes": "a committed data file's name (tests/data)",
    },
    "tests/e2e/check_devices.py": {
        "manual_time": "part of GB's benchmark name (/manual_time)",
        "one_at_a_time": "a value of gpubench_device_order",
    },
    "python/gpubench_results.py": {
        "gpu_shared_baseline": "a column of gpubench-export's comparison table",
        "gpu_shared_contender": "a column of gpubench-export's comparison table",
        "gpu_before": "a column of gpubench-compare --changes's table (a GPU change's GPU)",
        "gpu_after": "a column of gpubench-compare --changes's table (a GPU change's GPU)",
    },
}


def vocabulary(dump):
    names = set()
    for key in ("counters", "context_keys", "context_prefixes", "stop_reasons",
                "clock_event_reasons"):
        names.update(dump[key])
    return names


def known(name, names):
    if name in names:
        return True
    device = DEVICE_KEY.match(name)
    return device is not None and "gpu_" + device.group(1) in names


def python_files(root):
    for folder in FOLDERS:
        top = os.path.join(root, folder)
        for where, _, files in os.walk(top):
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.relpath(os.path.join(where, name), root).replace(os.sep, "/")


def check(root, names, not_names):
    problems = []
    for relative in python_files(root):
        allowed = not_names.get(relative, {})
        seen = set()
        with open(os.path.join(root, relative), encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                for match in LITERAL.finditer(line):
                    name = match.group(2)
                    if "__" in name or not LOOKS_LIKE.search(name):
                        continue
                    if name in allowed:
                        seen.add(name)
                    elif not known(name, names):
                        problems.append("%s:%d: \"%s\" is no counter, context key or reason of "
                                        "src/schema/ (misspelt? or list it in NOT_NAMES)"
                                        % (relative, number, name))
        for name in sorted(set(allowed) - seen):
            problems.append("%s: NOT_NAMES lists \"%s\", which the file no longer holds"
                            % (relative, name))
    for relative in sorted(not_names):
        if not os.path.exists(os.path.join(root, relative)):
            problems.append("%s: in NOT_NAMES, but no such file" % relative)
    return problems


def self_test():
    names = {"gpu_busy_pct", "real_time", "gpu_status", "gpubench_cache", "kernel_time/",
             "min_time"}
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "tests/gpu"))
        path = os.path.join(root, "tests/gpu/check_x.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write('row["gpu_busy_pct"], row["real_time"], ctx.get("gpu_3_status")\n'
                         'x = "dram__bytes_read.sum" + "precision" + "kernel_time/"\n'
                         "y = row['gpu_busy_pcnt']  # the planted misspelling\n"
                         'z = "my_local_time"\n')
        found = check(root, names, {})
        expected = ['tests/gpu/check_x.py:3: "gpu_busy_pcnt"', 'tests/gpu/check_x.py:4: '
                    '"my_local_time"']
        if len(found) != 2 or not all(f.startswith(e) for f, e in zip(found, expected)):
            print("self-test: expected the planted names, found %s" % found)
            return 1
        found = check(root, names, {"tests/gpu/check_x.py": {"my_local_time": "a test's",
                                                             "gone_time": "stale"}})
        if len(found) != 2 or "gpu_busy_pcnt" not in found[0] or "gone_time" not in found[1]:
            print("self-test: the list of other names did not work: %s" % found)
            return 1
    print("self-test: the check finds a misspelt name, and a stale entry of its list")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 3:
        print(__doc__)
        return 2
    dump = json.loads(subprocess.run([argv[1]], check=True, capture_output=True,
                                     text=True).stdout)
    problems = check(argv[2], vocabulary(dump), NOT_NAMES)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("every counter name and context key the Python scripts quote is the vocabulary's")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
