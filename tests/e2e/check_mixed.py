#!/usr/bin/env python3
"""Runs the mixed CPU/GPU suite and checks the console's time titles.

Every row of a plain CPU benchmark must come under GB's own header ("Time", never "GPU time");
the GPU benchmark's row under a "GPU time" header when it ran, or, without a GPU, an error row
with gpubench's no-device message.
"""
import subprocess
import sys


def fail(message, output):
    print(output)
    print("FAIL: " + message)
    sys.exit(1)


def main():
    binary = sys.argv[1]
    result = subprocess.run([binary, "--benchmark_min_time=0.01"], capture_output=True,
                            text=True, timeout=300)
    output = result.stdout + result.stderr
    if result.returncode != 0:
        fail("exit code %d, expected 0" % result.returncode, output)
    header = None
    rows = {}
    for line in result.stdout.splitlines():
        if line.startswith("Benchmark"):
            header = line
        elif line.startswith("BM_"):
            rows[line.split()[0]] = (header, line)
    if 'rows under a "GPU time" header: GPU time per iteration' not in result.stdout:
        fail("the banner does not say what the time titles mean", output)
    for name in ("BM_HostSort/1024", "BM_HostParse"):
        if name not in rows:
            fail("no row for %s" % name, output)
        header, _ = rows[name]
        if header is None or "GPU time" in header or " Time " not in header:
            fail("%s is under the header %r, expected GB's \"Time\"" % (name, header), output)
    name = "BM_DeviceMemset/1048576/manual_time"
    if name not in rows:
        fail("no row for %s" % name, output)
    header, row = rows[name]
    if "ERROR OCCURRED" in row:
        if "gpubench: no usable CUDA device (" not in row:
            fail("the GPU benchmark failed with something else than no device: %r" % row, output)
        print(result.stdout)
        print("OK: no GPU; CPU rows under GB's \"Time\" header, the GPU row skipped: %r" % row)
        return
    if header is None or "GPU time" not in header:
        fail("%s is under the header %r, expected \"GPU time\"" % (name, header), output)
    print(result.stdout)
    print("OK: CPU rows under GB's \"Time\" header, the GPU row under \"GPU time\"")


if __name__ == "__main__":
    main()
