#!/usr/bin/env python3
"""The physical GPU in the context block (issue #50): gpu_uuid, gpu_serial, gpu_vbios_version and
gpu_driver_version of a run are what nvidia-smi says of the device with the run's gpu_pci_bus_id;
with two GPUs or more, a --gpubench_devices run holds each device's as gpu_<N>_*. Exits 77 (skip)
without a GPU or without nvidia-smi.

usage: check_identity.py GPUBENCH_GPU_TARGETS WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

ARGS = ["--benchmark_filter=^Fault_1_Good", "--gpubench_profile_iterations=0",
        "--benchmark_out_format=json"]
FIELDS = ["pci.bus_id", "uuid", "serial", "vbios_version", "driver_version"]
FAILURES = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        FAILURES.append(message)


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(77)


def bus_key(bus_id):
    """(domain, bus, device, function) of "0000:19:00.0" (CUDA) or "00000000:19:00.0" (nvidia-smi)."""
    domain, bus, rest = bus_id.strip().lower().split(":")
    device, function = rest.split(".")
    return tuple(int(part, 16) for part in (domain, bus, device, function))


def nvidia_smi():
    """{bus key: {field: value}} for every GPU nvidia-smi lists."""
    if shutil.which("nvidia-smi") is None:
        skip("nvidia-smi not found: nothing to check the context against")
    text = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(FIELDS), "--format=csv,noheader"],
                          capture_output=True, text=True, timeout=60, check=True).stdout
    gpus = {}
    for line in text.splitlines():
        values = [value.strip() for value in line.split(",")]
        if len(values) == len(FIELDS):
            gpus[bus_key(values[0])] = dict(zip(FIELDS, values))
    return gpus


def run(binary, out, extra=()):
    result = subprocess.run([binary] + ARGS + ["--benchmark_out=" + out] + list(extra),
                            capture_output=True, text=True, timeout=600)
    if not os.path.exists(out):
        print(result.stdout + result.stderr)
        return result.returncode, None
    with open(out) as handle:
        return result.returncode, json.load(handle)


def key_of(fact, device=None):
    """The context key of a device fact: gpu_<fact>, or gpu_<N>_<fact> of a --gpubench_devices run."""
    return "gpu_%s" % fact if device is None else "gpu_%d_%s" % (device, fact)


def check_device(context, device, gpus):
    """The identity keys of `device` (None: the run's one) against nvidia-smi's row of its bus id."""
    bus_id = context.get(key_of("pci_bus_id", device), "")
    smi = gpus.get(bus_key(bus_id)) if bus_id else None
    if not smi:
        check(False, "%s %r: no such GPU in nvidia-smi's list" % (key_of("pci_bus_id", device),
                                                                   bus_id))
        return
    for fact in ("uuid", "driver_version", "vbios_version", "serial"):
        key, expected = key_of(fact, device), smi[fact]
        value = context.get(key, "")
        if expected.startswith("[") or expected == "N/A":  # [N/A], [Not Supported]
            check(value.startswith("unknown: "),
                  "%s %r where nvidia-smi has none (%s)" % (key, value, expected))
        else:
            check(value == expected, "%s %r, nvidia-smi %r" % (key, value, expected))


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    code, document = run(binary, os.path.join(work, "identity.json"))
    if document is None or document["context"].get("gpu_status") != "ok":
        skip("no usable CUDA device: %s" % (document or {}).get("context", {}).get("gpu_status"))
    check(code == 0, "exit code %d" % code)
    gpus = nvidia_smi()
    context = document["context"]
    check_device(context, None, gpus)
    print("     " + ", ".join("%s %s" % (key_of(fact), context.get(key_of(fact)))
                              for fact in ("uuid", "serial", "vbios_version", "driver_version")))
    fingerprint_keys = context.get("gpubench_fingerprint_keys", "").split(",")
    check(not any(key.startswith(key_of("")) for key in fingerprint_keys),
          "no gpu_* key is fingerprinted: %s" % fingerprint_keys)
    if len(gpus) >= 2:
        code, merged = run(binary, os.path.join(work, "devices.json"), ["--gpubench_devices=0,1"])
        check(code == 0 and merged is not None, "--gpubench_devices=0,1: exit code %d" % code)
        if merged is not None:
            for device in (0, 1):
                check_device(merged["context"], device, gpus)
            uuids = {merged["context"].get(key_of("uuid", device)) for device in (0, 1)}
            check(len(uuids) == 2, "two devices, two UUIDs: %s" % uuids)
    else:
        print("     one GPU: --gpubench_devices not checked")
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
