#!/usr/bin/env python3
"""Wall times of repeated commands, from a GPU call's walls.txt (lines `<tag>_<k> rc=<code>
wall=<seconds>`, or `<tag> rc=... wall=...` for a command run once): per tag, how many runs, their
exit codes, and the median, least and most wall time. Used for the floor under a rerun
(docs/accuracy.md "Reusing unchanged work: what a rerun costs").

  walls_table.py WALLS                    the table, in Markdown
  walls_table.py WALLS --check-doc DOC    exit 1 unless every row printed is in DOC
"""
import re
import statistics
import sys

import doc_table


def rows(path):
    runs = {}
    for line in open(path):
        match = re.match(r"(\S+?)(?:_(\d+))? rc=(\d+) wall=([\d.]+)$", line.strip())
        if match:
            runs.setdefault(match.group(1), []).append((float(match.group(4)), int(match.group(3))))
    lines = []
    for tag, values in runs.items():
        walls = [wall for wall, _ in values]
        codes = ", ".join(str(code) for code in sorted({code for _, code in values}))
        lines.append("| `%s` | %d | %s | %.3f s | %.3f s | %.3f s |" % (
            tag, len(walls), codes, statistics.median(walls), min(walls), max(walls)))
    return lines


def main():
    doc_table.run(__doc__, '| command | runs | exit codes | median | least | most |', rows,
                  'walls_table: no line `<tag> rc=<code> wall=<seconds>` in %s')


if __name__ == "__main__":
    main()
