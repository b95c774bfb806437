#!/usr/bin/env python3
"""The median of each array in `gpubench_sum_neighbours ... suite` outputs, one column per output:
the first array, then each one after its spacer (bench/validation/NOTES-left-sum.md, "The kernel
depends on where its array lies").

usage: array_medians.py OUT1,OUT2,... [--check-doc DOC]"""
import re

import doc_table


def medians(path):
    found = []
    with open(path) as lines:
        for line in lines:
            match = re.search(r" (none|after(\d+)M) +median ([\d.]+) ms", line)
            if match:
                name = "the first" if match.group(1) == "none" else "after %s MiB" % match.group(2)
                found.append((name, float(match.group(3))))
    return found


def rows(sources):
    columns = [medians(path) for path in sources.split(",")]
    if not columns or not columns[0] or any(len(c) != len(columns[0]) for c in columns):
        return []
    return ["| %s | %s |" % (name, " | ".join("%.2f" % column[i][1] for column in columns))
            for i, (name, _) in enumerate(columns[0])]


if __name__ == "__main__":
    doc_table.run(__doc__, "| array | medians (ms) |", rows,
                  "array_medians: no medians in %s, or outputs of different lengths")
