#!/usr/bin/env python3
"""Does the target gpubench_cpu_tests build every program the CPU tests run?

.ci/run's sanitizer and GB 1.9.1 stages build only that target (tests/CMakeLists.txt), not all.
A CPU test (label cpu or compare) that runs a program of the build outside it would fail there
with "not found"; this check names the program and the test in the full build first.

Reads the tests from `ctest --show-only=json-v1` and the target's files (one path a line, written
by CMake). Every word of a CPU test's command that is a program or a shared library of the build
directory must be one of those files, and every test program among them must have been built
(in a partial build, CMake lists an unbuilt one's tests as one unlabelled PROGRAM_NOT_BUILT).

  check_cpu_test_targets.py CTEST BUILD_DIR TARGET_FILES
  check_cpu_test_targets.py --self-test
"""
import json
import os
import re
import subprocess
import sys

CPU_LABELS = {"cpu", "compare"}


def labels(test):
    for prop in test.get("properties", []):
        if prop.get("name") == "LABELS":
            return set(prop.get("value", []))
    return set()


def built_program(path, build_dir):
    """A file of the build directory that runs or is loaded: an executable or a shared library."""
    if not os.path.isabs(path) or os.path.commonpath([path, build_dir]) != build_dir:
        return False
    if not os.path.isfile(path):
        return False
    return os.access(path, os.X_OK) or re.search(r"\.so(\.\d+)*$", path) is not None


def missing(tests, build_dir, target_files, is_program=built_program):
    """(test, path) for each program a CPU test runs that the target does not build, and for each
    test program of the target that this build did not make: gtest_discover_tests then lists one
    place-holder test, PROGRAM_NOT_BUILT, without labels, and a run selected by label would leave
    the program's tests out without a word."""
    build_dir = os.path.realpath(build_dir)
    listed = {os.path.realpath(f) for f in target_files}
    listed_names = {os.path.basename(f) for f in listed}
    found = []
    for test in tests:
        program = test["name"][:-len("_NOT_BUILT")] if test["name"].endswith("_NOT_BUILT") else ""
        if program in listed_names:
            found.append((test["name"], program))
        if not labels(test) & CPU_LABELS:
            continue
        for word in test.get("command", []):
            for part in re.split(r"[=;,:\s]", word):
                path = os.path.realpath(part) if part else ""
                if path and is_program(path, build_dir) and path not in listed:
                    found.append((test["name"], path))
    return found


def self_test():
    build = "/b"
    programs = {"/b/tests/unit/gpubench_unit_tests", "/b/bench/gpubench_short",
                "/b/tests/gpu/gpubench_gpu_tests", "/b/tools/gpubench-compare"}
    is_program = lambda path, build_dir: path in programs
    tests = [
        {"name": "Unit.A", "command": ["/b/tests/unit/gpubench_unit_tests", "--gtest_filter=A"],
         "properties": [{"name": "LABELS", "value": ["cpu"]}]},
        {"name": "short_cpu", "command": ["/usr/bin/python3", "check.py", "/b/bench/gpubench_short",
                                          "/b/tests/out"],
         "properties": [{"name": "LABELS", "value": ["cpu", "gpu"]}]},
        {"name": "tool", "command": ["sh", "x.sh", "--exe=/b/tools/gpubench-compare"],
         "properties": [{"name": "LABELS", "value": ["compare"]}]},
        {"name": "Gpu.B", "command": ["/b/tests/gpu/gpubench_gpu_tests"],
         "properties": [{"name": "LABELS", "value": ["gpu"]}]},
    ]
    listed = ["/b/tests/unit/gpubench_unit_tests"]
    found = missing(tests, build, listed, is_program)
    assert found == [("short_cpu", "/b/bench/gpubench_short"),
                     ("tool", "/b/tools/gpubench-compare")], found
    complete = listed + ["/b/bench/gpubench_short", "/b/tools/gpubench-compare"]
    assert missing(tests, build, complete, is_program) == []
    # A GPU test program left unbuilt is expected; a CPU one is not.
    unbuilt = [{"name": "gpubench_gpu_tests_NOT_BUILT", "command": ["gpubench_gpu_tests_NOT_BUILT"]},
               {"name": "gpubench_unit_tests_NOT_BUILT",
                "command": ["gpubench_unit_tests_NOT_BUILT"]}]
    found = missing(tests[:1] + unbuilt, build, complete, is_program)
    assert found == [("gpubench_unit_tests_NOT_BUILT", "gpubench_unit_tests")], found
    print("self-test OK")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    ctest, build_dir, target_files = sys.argv[1:]
    listing = subprocess.run([ctest, "--test-dir", build_dir, "--show-only=json-v1"],
                             capture_output=True, text=True, check=True).stdout
    tests = json.loads(listing)["tests"]
    with open(target_files) as f:
        files = [line.strip() for line in f if line.strip()]
    found = missing(tests, build_dir, files)
    cpu = sum(1 for t in tests if labels(t) & CPU_LABELS)
    print(f"{cpu} CPU tests; gpubench_cpu_tests builds {len(files)} files")
    for name, path in found:
        if name.endswith("_NOT_BUILT"):
            print(f"FAIL: {path}, a CPU test program of gpubench_cpu_tests, was not built: its "
                  f"tests are listed only as {name}, and a run selected by label skips them")
        else:
            print(f"FAIL: the CPU test {name} runs {path}, which gpubench_cpu_tests does not "
                  "build: add its target to _cpu_test_targets in tests/CMakeLists.txt")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
