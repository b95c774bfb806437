#!/bin/sh
# Syntax check of the HTML report's script (src/tools/report/web/report.js) with Node.js, as Debian
# packages it (nodejs). Exits 77 (ctest: skipped) with the reason when node is missing.
set -eu
script=$1
for node in node nodejs; do
  if command -v "$node" >/dev/null 2>&1; then
    exec "$node" --check "$script"
  fi
done
echo "SKIP: node not found (Debian: apt-get install nodejs); $script was not checked"
exit 77
