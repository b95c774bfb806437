#!/usr/bin/env python3
"""The layer rule of src/ (docs/architecture.md "Layers"): a file includes only its own folder and
lower layers, never a higher one, and never a sibling tool's folder.

Core, lowest first:  schema < common < config < gb < gpu < measure < frontend (gb includes only
                     schema and common)
Tools, lowest first: schema < common < tools/base < tools/load < tools/changes < tools/gate
                     < tools/{compare,export,report}
schema/ (the vocabulary: counter names, context keys) includes nothing but its own folder. The
tools may include nothing of the core but schema/ and common/; the core includes nothing of the
tools.
Public headers (include/gpubench) include no private header. Every private include names its
folder ("gpu/backend.hpp"), so the layer shows where the include is written.

Usage: check_layers.py SOURCE_DIR   (exit 1 with one line per violation)
       check_layers.py --self-test  (the check finds a planted violation of each kind)
"""
import os
import re
import sys
import tempfile

CORE = ["schema", "common", "config", "gb", "gpu", "measure", "frontend"]
TOOLS = ["tools/base", "tools/load", "tools/changes", "tools/gate"]
TOOL_APPS = ["tools/compare", "tools/export", "tools/report"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(relative):
    """The layer folder of a path below src/ ("gpu", "tools/gate"), or None."""
    parts = relative.split("/")
    if parts[0] == "tools" and len(parts) > 2:
        return "tools/" + parts[1]
    if parts[0] in CORE and len(parts) > 1:
        return parts[0]
    return None


def allowed(source, target):
    if source == target:
        return True
    if source == "gb":
        return target == "common"  # GB's internals see nothing of gpubench but common/
    if source in CORE:
        return target in CORE and CORE.index(target) < CORE.index(source)
    if target in ("schema", "common"):
        return True
    if target not in TOOLS:
        return False  # the core beyond schema and common, or a sibling tool
    rank = len(TOOLS) if source in TOOL_APPS else TOOLS.index(source)
    return TOOLS.index(target) < rank


def check(root):
    problems = []
    src = os.path.join(root, "src")
    for folder, _, files in os.walk(src):
        for name in files:
            if not name.endswith((".hpp", ".cpp", ".cu", ".cuh")):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, src).replace(os.sep, "/")
            source = layer_of(relative)
            if source is None:
                problems.append("src/%s: not in a layer folder (%s)" % (relative, ", ".join(CORE + TOOLS + TOOL_APPS)))
                continue
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    match = INCLUDE.match(line)
                    if not match or match.group(1).startswith("gpubench/"):
                        continue
                    included = match.group(1)
                    target = layer_of(included)
                    if target is None:
                        problems.append("src/%s:%d: #include \"%s\" does not name its layer folder"
                                        % (relative, number, included))
                    elif not os.path.exists(os.path.join(src, included)):
                        problems.append("src/%s:%d: #include \"%s\": no such file below src/"
                                        % (relative, number, included))
                    elif not allowed(source, target):
                        problems.append("src/%s:%d: #include \"%s\": layer %s may not include %s"
                                        % (relative, number, included, source, target))
    public = os.path.join(root, "include", "gpubench")
    for name in sorted(os.listdir(public)) if os.path.isdir(public) else []:
        with open(os.path.join(public, name), encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                match = INCLUDE.match(line)
                if match and not match.group(1).startswith("gpubench/"):
                    problems.append("include/gpubench/%s:%d: public header includes private \"%s\""
                                    % (name, number, match.group(1)))
    return problems


def self_test():
    cases = {
        "upward": ("src/gpu/a.cpp", '#include "measure/b.hpp"\n', "src/measure/b.hpp"),
        "schema upward": ("src/schema/a.hpp", '#include "common/b.hpp"\n', "src/common/b.hpp"),
        "sibling tool": ("src/tools/export/a.cpp", '#include "tools/report/b.hpp"\n',
                         "src/tools/report/b.hpp"),
        "tool into core": ("src/tools/gate/a.cpp", '#include "gpu/b.hpp"\n', "src/gpu/b.hpp"),
        "core into tool": ("src/frontend/a.cpp", '#include "tools/base/b.hpp"\n',
                           "src/tools/base/b.hpp"),
        "bare name": ("src/measure/a.cpp", '#include "b.hpp"\n', "src/measure/b.hpp"),
        "public to private": ("include/gpubench/a.hpp", '#include "common/b.hpp"\n',
                              "src/common/b.hpp"),
        "gb into gpu": ("src/gb/a.cpp", '#include "gpu/b.hpp"\n', "src/gpu/b.hpp"),
        "gb into config": ("src/gb/a.cpp", '#include "config/b.hpp"\n', "src/config/b.hpp"),
        "changes into gate": ("src/tools/changes/a.cpp", '#include "tools/gate/b.hpp"\n',
                              "src/tools/gate/b.hpp"),
    }
    failures = 0
    for label, (path, text, target) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            for file, content in ((path, text), (target, "\n")):
                os.makedirs(os.path.dirname(os.path.join(root, file)), exist_ok=True)
                with open(os.path.join(root, file), "w") as handle:
                    handle.write(content)
            if not check(root):
                print("self-test FAIL: %s not found" % label)
                failures += 1
    with tempfile.TemporaryDirectory() as root:  # allowed: downward and within a layer
        for file, content in (("src/measure/a.cpp", '#include "gpu/b.hpp"\n#include "measure/c.hpp"\n'),
                              ("src/gpu/b.hpp", "\n"), ("src/measure/c.hpp", "\n"),
                              ("src/tools/report/d.cpp", '#include "tools/gate/e.hpp"\n#include "common/f.hpp"\n'),
                              ("src/tools/gate/e.hpp", '#include "schema/g.hpp"\n'), ("src/common/f.hpp", '#include "schema/g.hpp"\n'),
                              ("src/schema/g.hpp", "\n")):
            os.makedirs(os.path.dirname(os.path.join(root, file)), exist_ok=True)
            with open(os.path.join(root, file), "w") as handle:
                handle.write(content)
        if check(root):
            print("self-test FAIL: allowed includes reported: %s" % check(root))
            failures += 1
    print("self-test: %d of %d cases as expected" % (len(cases) + 1 - failures, len(cases) + 1))
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    problems = check(sys.argv[1])
    for problem in problems:
        print(problem)
    if not problems:
        print("layers: every include runs within its layer or downward")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
