"""The command line shared by the scripts that print a Markdown table from committed GPU runs and
hold docs/accuracy.md to it: `SCRIPT SOURCE` prints the table, `SCRIPT SOURCE --check-doc DOC`
exits 1 unless every row is in DOC, naming each missing one."""
import sys


def run(usage, header, rows, nothing_found):
    """header: the table's first line; rows(source) -> its rows; nothing_found: the message when
    there are none."""
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--check-doc"):
        sys.exit(usage)
    table = rows(sys.argv[1])
    if not table:
        sys.exit(nothing_found % sys.argv[1])
    if len(sys.argv) == 2:
        print(header)
        print("|" + "---|" * (header.count("|") - 1))
        print("\n".join(table))
        return
    doc = open(sys.argv[3]).read()
    missing = [line for line in table if line not in doc]
    for line in missing:
        print("not in %s: %s" % (sys.argv[3], line))
    sys.exit(1 if missing else 0)
