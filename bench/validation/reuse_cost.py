#!/usr/bin/env python3
"""What a rerun with --gpubench_reuse costs, from one GPU call's committed runs.

A FOLDER holds, per suite, three runs made one after the other on one GPU (.h200-style
walls.txt / md_walls.txt lines `TAG rc=N wall=SECONDS` and TAG.json):
  plain_<suite>[_i] / md_before_<binary>   the full run without --gpubench_reuse (mdspan: plain GB)
  new_<suite>[_i]   / md_new_<binary>      the first run of a series (--gpubench_reuse=EMPTY_FOLDER)
  reuse_<suite>[_i] / md_reuse_<binary>    the rerun, reusing the first run's JSON

The signature's own cost, where the FOLDER has sig_walls.txt: full runs with the default
--gpubench_signature=on and with =off, alternating (sig_on_<suite>_<i>, sig_off_<suite>_<i>; the
pair i ran back to back, odd pairs on first): per suite the median of the pairs' on/off wall
ratios, with their range.

Prints each suite's walls, the rerun's share, and the rerun's rows by reuse_status. With
--check: every reused row equals its source row (real_time to double rounding, the signature
exactly), each --max SUITE=RATIO (rerun wall over the full run's: plain GB's for mdspan, the
signed first run's otherwise; `mdspan`: its binaries together) holds, each --all-reused
SUITE's rerun reused every row, each signature pair's runs exited 0 and every row of an `on` run
carries work_signature, none of an `off` run, and each --max-signature SUITE=PCT holds (the
median on/off ratio at most 1 + PCT/100).

Where a suite also has nomatch_<suite> (a run whose filter selects nothing: the process's floor),
the rerun's wall above that floor over the full run's above it is printed too, and each
--max-above-floor SUITE=RATIO is checked.

usage: reuse_cost.py FOLDER [--check] [--max SUITE=RATIO ...] [--all-reused SUITE ...]
                            [--max-signature SUITE=PCT ...] [--max-above-floor SUITE=RATIO ...]
"""
import json
import math
import os
import re
import statistics
import sys

STATUS = {1: "reused", 2: "new", 3: "changed", 4: "streak", 5: "aged", 6: "host_bound",
          7: "unsigned", 8: "run_differs", 9: "no_source"}


def walls(folder):
    found = {}
    for name in ("walls.txt", "md_walls.txt"):
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            continue
        for line in open(path):
            m = re.match(r"(\S+) rc=(\d+) wall=([\d.]+)", line)
            if m:
                found[m.group(1)] = (int(m.group(2)), float(m.group(3)))
    return found


def rows(folder, tag):
    document = json.load(open(os.path.join(folder, tag + ".json")))
    return {b["name"]: b for b in document["benchmarks"] if b.get("run_type") == "iteration"}


def suites(found):
    """(suite, plain tag, new tag, rerun tag) for every complete trio."""
    out = []
    for tag in sorted(found):
        m = re.match(r"reuse_(.+)$", tag) or re.match(r"md_reuse_(.+)$", tag)
        if not m:
            continue
        suite = m.group(1)
        if tag.startswith("md_"):
            plain, new = "md_before_" + suite, "md_new_" + suite
        else:
            plain, new = "plain_" + suite, "new_" + suite
        if plain in found and new in found:
            out.append((suite, plain, new, tag))
    return out


def signature_pairs(folder, failures):
    """{suite: [(on wall, off wall), ...]} from sig_walls.txt; checks each run's rows."""
    path = os.path.join(folder, "sig_walls.txt")
    if not os.path.exists(path):
        return {}
    walls_of = {}
    for line in open(path):
        m = re.match(r"sig_(on|off)_(\S+)_(\d+) rc=(\d+) wall=([\d.]+)", line)
        if not m:
            continue
        mode, suite, i, rc, wall = m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), \
            float(m.group(5))
        tag = "sig_%s_%s_%d" % (mode, suite, i)
        if rc != 0:
            failures.append("%s exited %d" % (tag, rc))
        for name, row in rows(folder, tag).items():
            if (mode == "on") != ("work_signature" in row):
                failures.append("%s: %s %s work_signature" % (
                    tag, name, "lacks" if mode == "on" else "has"))
        walls_of.setdefault(suite, {}).setdefault(i, {})[mode] = wall
    return {suite: [(p["on"], p["off"]) for _, p in sorted(pairs.items()) if len(p) == 2]
            for suite, pairs in walls_of.items()}


def main(argv):
    folder = argv[1]
    check = "--check" in argv
    def limits_of(flag):  # every `FLAG SUITE=NUMBER` as {SUITE: NUMBER}
        return {suite: float(number) for suite, number in
                (argv[i + 1].split("=") for i, arg in enumerate(argv) if arg == flag)}

    limits, floor_limits = limits_of("--max"), limits_of("--max-above-floor")
    signature_limits = limits_of("--max-signature")
    all_reused = {argv[i + 1] for i, arg in enumerate(argv) if arg == "--all-reused"}
    found = walls(folder)
    failures = []
    print("| suite | plain | first run (signed) | rerun | rerun / first | rerun / plain | rerun's rows |")
    print("|---|---|---|---|---|---|---|")
    md_plain = md_rerun = 0.0
    for suite, plain, new, rerun in suites(found):
        for tag in (plain, new, rerun):
            if found[tag][0] != 0:
                failures.append("%s exited %d" % (tag, found[tag][0]))
        source, again = rows(folder, new), rows(folder, rerun)
        counts = {}
        for name, row in again.items():
            status = STATUS.get(int(row.get("reuse_status", 0)), "absent")
            counts[status] = counts.get(status, 0) + 1
            if status != "reused":
                continue
            was = source.get(name)
            if was is None:
                failures.append("%s: %s reused, but the first run has no such row" % (rerun, name))
            elif not math.isclose(row["real_time"], was["real_time"], rel_tol=1e-12) or \
                    row.get("work_signature") != was.get("work_signature"):
                failures.append("%s: %s reused real_time %r (signature %r), source %r (%r)" % (
                    rerun, name, row["real_time"], row.get("work_signature"), was["real_time"],
                    was.get("work_signature")))
        if suite in all_reused and counts.get("reused", 0) != len(again):
            failures.append("%s: %d of %d rows reused" % (rerun, counts.get("reused", 0), len(again)))
        p, n, r = found[plain][1], found[new][1], found[rerun][1]
        if plain.startswith("md_"):
            md_plain += p
            md_rerun += r
        shown = ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items(), key=lambda x: -x[1]))
        print("| %s | %.3f s | %.3f s | %.3f s | %.2f | %.2f | %s |" % (
            suite, p, n, r, r / n, r / p, shown))
        base = suite.rstrip("_0123456789") if not plain.startswith("md_") else suite
        if base in limits and r / (p if plain.startswith("md_") else n) > limits[base]:
            failures.append("%s: rerun %.3f s is %.2f of its reference, over %.2f" % (
                suite, r, r / (p if plain.startswith("md_") else n), limits[base]))
    if md_plain > 0:
        print("\nmdspan, the binaries above together: plain GB %.1f s, rerun %.1f s (%.2fx)" % (
            md_plain, md_rerun, md_rerun / md_plain))
        if "mdspan" in limits and md_rerun / md_plain > limits["mdspan"]:
            failures.append("mdspan: rerun %.2fx plain GB, over %.2f" % (
                md_rerun / md_plain, limits["mdspan"]))
    floors = [(suite, found["nomatch_" + suite][1], found[plain][1], found[rerun][1])
              for suite, plain, _, rerun in suites(found) if "nomatch_" + suite in found]
    if floors:
        print("\n| suite | floor (filter selects nothing) | full run above it | rerun above it "
              "| rerun / full, above the floor |")
        print("|---|---|---|---|---|")
    for suite, floor, full, rerun in floors:
        share = max(rerun - floor, 0.0) / (full - floor)
        print("| %s | %.3f s | %.3f s | %.3f s | %.3f |" % (
            suite, floor, full - floor, max(rerun - floor, 0.0), share))
        if suite in floor_limits and share > floor_limits[suite]:
            failures.append("%s: the rerun above the floor is %.3f of the full run's, over %.3f" % (
                suite, share, floor_limits[suite]))
    pairs = signature_pairs(folder, failures)
    if pairs:
        print("\n| suite | pairs | signature on (median) | off (median) | on / off, median of pairs "
              "| range |")
        print("|---|---|---|---|---|---|")
    for suite, walls_on_off in sorted(pairs.items()):
        ratios = [on / off for on, off in walls_on_off]
        median = statistics.median(ratios)
        print("| %s | %d | %.3f s | %.3f s | %.4f | %.4f-%.4f |" % (
            suite, len(ratios), statistics.median(on for on, _ in walls_on_off),
            statistics.median(off for _, off in walls_on_off), median, min(ratios), max(ratios)))
        if suite in signature_limits and median > 1 + signature_limits[suite] / 100:
            failures.append("%s: the signature costs %.2f%% (median of %d pairs), over %.2f%%" % (
                suite, 100 * (median - 1), len(ratios), signature_limits[suite]))
    if check and failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        return 1
    if check:
        print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
