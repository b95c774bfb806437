#!/usr/bin/env python3
"""Which tests did CI's ctest run skip, and may it skip them? (issue #47: a test skipped in CI is
not a passing test)

Reads the console output of a whole ctest run (its closing "The following tests did not run:"
list) and fails for every skipped test that is neither labelled gpu (CI has no GPU) nor one the
user guide calls optional in "Building and testing" (OPTIONAL below: the mdspan suite lives
outside the repository).

  check_ci_skips.py CTEST_OUTPUT BUILD_DIR
  check_ci_skips.py --self-test
"""
import re
import subprocess
import sys

# docs/user_guide.md "Building and testing": "suite_mdspan is optional: it needs kokkos/mdspan's
# suite beside the checkout ... and is skipped with the reason without it".
OPTIONAL = {"suite_mdspan"}


def skipped_tests(ctest_output):
    """The names ctest lists as skipped: lines like '\t 296 - gpu_faults (Skipped)'."""
    return re.findall(r"^\s*\d+ - (\S+) \(Skipped\)\s*$", ctest_output, re.MULTILINE)


def gpu_tests(build_dir):
    listing = subprocess.run(["ctest", "--test-dir", build_dir, "-N", "-L", "gpu"],
                             capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"^\s*Test\s+#\d+: (\S+)\s*$", listing, re.MULTILINE))


def judge(skipped, gpu):
    return [name for name in skipped if name not in gpu and name not in OPTIONAL]


def self_test():
    output = ("The following tests did not run:\n\t 13 - Gpu.Copy (Skipped)\n"
              "\t 14 - python.results (Skipped)\n\t 15 - suite_mdspan (Skipped)\n")
    skipped = skipped_tests(output)
    assert skipped == ["Gpu.Copy", "python.results", "suite_mdspan"], skipped
    assert judge(skipped, {"Gpu.Copy"}) == ["python.results"]
    assert judge(skipped_tests("100% tests passed\n"), set()) == []
    print("self-test OK")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    with open(sys.argv[1], errors="replace") as f:
        output = f.read()
    skipped = skipped_tests(output)
    wrong = judge(skipped, gpu_tests(sys.argv[2]))
    print(f"ctest skipped {len(skipped)} tests: {len(skipped) - len(wrong)} GPU or optional")
    for name in wrong:
        print(f"FAIL: {name} was skipped, but it is no GPU test and the user guide's 'Building "
              "and testing' does not call it optional: whatever it missed, .ci/run must provide it")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
