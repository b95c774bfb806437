#!/usr/bin/env python3
"""Does a number depend on what ran before it in the process? Reads the runs of
order_check.sh (a binary run twice in its suite's order, order_1.json and order_2.json, then each
instance alone twice, alone_<i>_<k>.json) and applies its rule: an instance DEPENDS when the
difference of its median in order and alone is beyond both 0.5% and three times the larger
between-process spread of either. Prints one table row per instance, or one line per folder.

  order_table.py FOLDER...                 every instance of each folder
  order_table.py --summary FOLDER...       instances compared, how many depend, the largest
                                           difference and the largest spread, per folder
  order_table.py --check-doc DOC ROOT      every table row of DOC whose last cell names a folder
                                           (`tests/data/.../`) must give that folder's figures:
                                           instances, depend (the 3rd and 4th cells); exit 1 if not
"""
import glob
import json
import os
import re
import statistics
import sys


def medians(path):
    try:
        document = json.load(open(path))
    except (OSError, ValueError):
        return {}
    values = {}
    for row in document.get("benchmarks", []):
        if row.get("run_type") == "iteration" and not row.get("error_occurred"):
            values.setdefault(row["run_name"], []).append(row["real_time"])
    return {name: statistics.median(times) for name, times in values.items()}


def judge(folder):
    """(name, in order, alone, difference %, spread %, depends) per instance of the folder."""
    order = [medians(os.path.join(folder, "order_%d.json" % k)) for k in (1, 2)]
    alone = [{}, {}]
    for path in glob.glob(os.path.join(folder, "alone_*_*.json")):
        k = int(re.search(r"_(\d+)\.json$", path).group(1)) - 1
        alone[k].update(medians(path))
    names = set(order[0]) & set(order[1]) & set(alone[0]) & set(alone[1])
    rows = []
    for name in sorted(names):
        in_order = statistics.mean([order[0][name], order[1][name]])
        by_itself = statistics.mean([alone[0][name], alone[1][name]])
        spread = max(abs(order[0][name] - order[1][name]) / in_order,
                     abs(alone[0][name] - alone[1][name]) / by_itself) * 100
        difference = (in_order / by_itself - 1) * 100
        rows.append((name, in_order, by_itself, difference, spread,
                     abs(difference) > max(0.5, 3 * spread)))
    return rows


def summary(folder):
    rows = judge(folder)
    return {"instances": len(rows), "depend": sum(r[5] for r in rows),
            "largest_difference": max((abs(r[3]) for r in rows), default=0),
            "largest_spread": max((r[4] for r in rows), default=0)}


def check_doc(doc, root):
    problems = 0
    checked = 0
    for line in open(doc):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 5:
            continue
        found = re.search(r"`(tests/data/[^`]+)`", cells[-1])
        if not found:
            continue
        figures = summary(os.path.join(root, found.group(1)))
        stated = (cells[2], cells[3])
        actual = (str(figures["instances"]), str(figures["depend"]))
        checked += 1
        if stated != actual:
            problems += 1
            print("FAIL %s: the doc says %s instances, %s depend; the data give %s, %s" %
                  (found.group(1), stated[0], stated[1], actual[0], actual[1]))
        else:
            print("ok   %s: %s instances, %s depend" % (found.group(1), actual[0], actual[1]))
    if checked == 0:
        print("FAIL: no table row of %s names a folder of runs" % doc)
        return 1
    return 1 if problems else 0


def main():
    args = sys.argv[1:]
    if args[:1] == ["--check-doc"]:
        sys.exit(check_doc(args[1], args[2]))
    if args[:1] == ["--summary"]:
        for folder in args[1:]:
            s = summary(folder)
            print("%s: %d instances, %d depend, largest difference %.2f%%, largest spread %.2f%%"
                  % (folder, s["instances"], s["depend"], s["largest_difference"],
                     s["largest_spread"]))
        return
    print("| benchmark | in order | alone | difference | spread | |")
    print("|---|---|---|---|---|---|")
    for folder in args:
        for name, in_order, alone, difference, spread, depends in judge(folder):
            print("| `%s` | %.5g | %.5g | %+.2f%% | %.2f%% | %s |" %
                  (name, in_order, alone, difference, spread, "DEPENDS" if depends else ""))


if __name__ == "__main__":
    main()
