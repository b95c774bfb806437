#!/usr/bin/env python3
"""Bad gpubench input: exit code 2, a message naming what was wrong and what is valid, and no
benchmark run (no JSON file written)."""
import os
import subprocess
import sys

CASES = [
    (["--gpubench_cache=cold"], {}, ["cold", "flush", "keep"]),
    (["--gpubench_cahce=keep"], {}, ["--gpubench_cahce", "--gpubench_cache=flush|keep"]),
    (["--gpubench_profile_iterations=-2"], {}, ["--gpubench_profile_iterations"]),
    (["--gpubench_clock_control=locked"], {}, ["locked", "none"]),
    ([], {"GPUBENCH_TIMER": "wall"}, ["GPUBENCH_TIMER=wall", "events|cupti"]),
    ([], {"GPUBENCH_FLUSH": "1"}, ["GPUBENCH_FLUSH", "GPUBENCH_CACHE="]),
    (["--benchmark_filtr=Copy"], {}, ["--benchmark_filtr"]),
]


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    failures = 0
    for index, (args, env_extra, expected) in enumerate(CASES):
        json_path = os.path.join(out_dir, "case%d.json" % index)
        if os.path.exists(json_path):
            os.remove(json_path)
        env = dict(os.environ, **env_extra)
        command = [binary] + args + ["--benchmark_out=" + json_path]
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        problems = []
        if result.returncode != 2:
            problems.append("exit code %d, expected 2" % result.returncode)
        for text in expected:
            if text not in result.stderr:
                problems.append("stderr lacks %r" % text)
        if os.path.exists(json_path):
            problems.append("benchmarks ran (JSON written)")
        if "BM_" in result.stdout:
            problems.append("benchmark output on stdout")
        status = "FAIL" if problems else "ok"
        print("%s: %s %s -> %s" % (status, env_extra, args, "; ".join(problems) or "rejected"))
        if problems:
            print("  stderr: " + result.stderr.replace("\n", "\n  "))
        failures += bool(problems)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
