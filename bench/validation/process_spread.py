#!/usr/bin/env python3
"""How far one instance's median moves between processes of the same command: reads runs named
<prefix>_<variant>_<k>.json (one process each, a few repetitions) and prints, per variant and
benchmark, each process's median (ms) and the spread between processes ((max - min) / median).
Used for mdspan's left-layout 3-D sums (docs/accuracy.md "A number and what ran before it").

  process_spread.py FOLDER                    the table, in Markdown
  process_spread.py FOLDER --check-doc DOC    exit 1 unless every row printed is in DOC
"""
import glob
import json
import os
import re
import statistics
import sys

import doc_table


def per_process(folder):
    """{(variant, benchmark): [median of each process in k order]}"""
    found = {}
    for path in glob.glob(os.path.join(folder, "*.json")):
        match = re.match(r"([a-z0-9]+)_(.+)_(\d+)\.json$", os.path.basename(path))
        if not match:
            continue
        try:
            document = json.load(open(path))
        except (OSError, ValueError):
            continue
        times = {}
        for row in document.get("benchmarks", []):
            if row.get("run_type") == "iteration" and not row.get("error_occurred"):
                times.setdefault(row["run_name"].split("/manual_time")[0], []).append(row["real_time"])
        for name, values in times.items():
            key = (match.group(1) + " " + match.group(2), name)
            found.setdefault(key, []).append((int(match.group(3)), statistics.median(values) / 1e6))
    return {key: [v for _, v in sorted(runs)] for key, runs in found.items()}


def rows(folder):
    lines = []
    for (variant, name), medians in sorted(per_process(folder).items()):
        spread = (max(medians) - min(medians)) / statistics.median(medians) * 100
        lines.append("| %s | `%s` | %d | %s | %.1f%% |" % (
            variant, name, len(medians), ", ".join("%.2f" % m for m in medians), spread))
    return lines


def main():
    doc_table.run(__doc__, '| runs | benchmark | processes | median of each process (ms) | spread |', rows,
                  'process_spread: no run in %s (want <prefix>_<variant>_<k>.json)')


if __name__ == "__main__":
    main()
