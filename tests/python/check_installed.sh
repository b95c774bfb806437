#!/bin/sh
# The installed gpubench_results.py: importable from the prefix's Python module folder, and it
# runs the prefix's gpubench-export (found beside itself, with neither PATH nor GPUBENCH_EXPORT).
# usage: check_installed.sh BUILD_DIR WORK_DIR PYTHON_DIR PYTHON RUN.json
set -eu
build=$1 work=$2 python_dir=$3 python=$4 run=$5
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work.install.log" 2>&1 ||
  { cat "$work.install.log"; echo "FAIL: cmake --install"; exit 1; }
module="$work/prefix/$python_dir/gpubench_results.py"
[ -f "$module" ] || { echo "FAIL: $module was not installed"; exit 1; }
[ -x "$work/prefix/bin/gpubench-export" ] || { echo "FAIL: no gpubench-export in the prefix"; exit 1; }
cd "$work"
env -u GPUBENCH_EXPORT PATH=/usr/bin:/bin PYTHONPATH="$work/prefix/$python_dir" \
  PYTHONDONTWRITEBYTECODE=1 "$python" - "$run" "$work/prefix" <<'PY'
import sys
import gpubench_results as gr
run, prefix = sys.argv[1], sys.argv[2]
assert gr.__file__.startswith(prefix), gr.__file__
tool = gr.find_export_tool()
assert tool == prefix + "/bin/gpubench-export", tool
rows = gr.read_run(run)
assert rows and all(row["counter"] for row in rows), len(rows)
print("installed module at", gr.__file__, "read", len(rows), "rows through", tool)
PY
