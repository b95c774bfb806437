#!/bin/sh
# Syntax check of the HTML report's scripts (src/tools/report/web/*.js) with Node.js, as Debian
# packages it (nodejs). Exits 77 (ctest: skipped) with the reason when node is missing, 1 under CI=true.
set -eu
# Under CI=true (.ci/run installs every package named below) a missing one is a failure: a test
# that CI skips is not a passing test.
missing() {  # missing "what is missing (Debian: apt-get install PACKAGE)"
  if [ "${CI:-}" = true ]; then
    echo "FAIL: $1; .ci/run installs it, so CI must have it"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}
for node in node nodejs; do
  if command -v "$node" >/dev/null 2>&1; then
    for file in "$@"; do "$node" --check "$file"; done
    exit 0
  fi
done
missing "node not found (Debian: apt-get install nodejs); $* not checked"
