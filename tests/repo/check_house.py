#!/usr/bin/env python3
"""The counting rules of issue #48 ("the house in one step: each mode decided once"), held so that
they cannot quietly regress (docs/architecture.md "House rules").

Comments are never searched; string literals only where a rule says so. "The library" is src/
less src/tools/ and src/config/settings_table.cpp (the parser and printer that turn text into the
enums and back); sources are .hpp .cpp .cu .cuh.

1. modes: each mode is branched on in at most 2 files of the library. A file branches on a mode
   when its code names one of the mode's enumerators (`Timer::k...`); the file that defines the
   enum (`enum class Timer`) does not count. Another CUDA tool (ncu, nsys) is a mode too: the
   literal "CUDA_INJECTION64_PATH" (the variable's name alone, as a reader passes it) is in
   src/common/environment.hpp only (messages that name it to the user may quote it),
   `InjectedCudaTool(` is called in at most one file besides environment.hpp, and the files whose
   code names `cuda_tool` or `InjectedCudaTool` are at most CUDA_TOOL_FILES_MAX (today's count).
2. environment: `getenv`, `secure_getenv`, `environ` in code only in src/common/environment.hpp.
3. flushes: no `flushes()` or `flushing()` in src/ code (the CacheStrategy replaced them).
4. counters: no counter written by a string literal, `counters["` or `counters[std::string(`, in
   src/ outside src/tools/ (the typed CounterSink replaced them).
5. folders: no folder of src/ holds more than MAX_FOLDER_FILES sources (.js and .css counted too)
   directly, but for FOLDER_EXCEPTIONS, each capped at its count today.
6. process state: the files of src/ whose code names `ProcessState` are at most
   PROCESS_STATE_FILES_MAX (4, #48's target: process_state.{hpp,cpp}, the loop that hands its
   parts to the stages, and Initialize that sets it up).
7. child variables: `_GPUBENCH_PROFILING_CHILD` and `_GPUBENCH_DEVICES_AT_ONCE` appear (in string
   literals or code) only in src/common/environment.hpp.

Usage: check_house.py SOURCE_DIR   (exit 1 with one line per violation)
       check_house.py --self-test  (the check finds a planted violation of each rule, not one
                                    written in a comment)
"""
import importlib.util
import os
import re
import sys
import tempfile


def _load_splitter():
    """split_code of check_gb_internals.py, next to this file: one C++ comment/string splitter."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_gb_internals.py")
    spec = importlib.util.spec_from_file_location("check_gb_internals", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.split_code


split_code = _load_splitter()

SOURCE_EXTENSIONS = (".hpp", ".cpp", ".cu", ".cuh")
FOLDER_EXTENSIONS = SOURCE_EXTENSIONS + (".js", ".css")
ENVIRONMENT_FILE = "common/environment.hpp"
NOT_LIBRARY = ("tools/", "config/settings_table.cpp")

# mode: the enum whose enumerators a branch names. At most MAX_MODE_FILES files each.
MODES = {
    "profiling role": "ProfilingRole",
    "cache policy": "CachePolicy",
    "timer": "Timer",
    "stopping rule": "Stopping",
    "device order": "DeviceOrder",
    "profile process": "ProfileProcess",
}
MAX_MODE_FILES = 2

# Another CUDA tool: today run_plan.{hpp,cpp} (the plan holds it), initialize.cpp (reads it once
# into the plan), harness.cpp (steps aside from CUPTI), environment.hpp (the reader).
CUDA_TOOL_FILES_MAX = 5
INJECTION_VARIABLE = "CUDA_INJECTION64_PATH"

CHILD_VARIABLES = ("_GPUBENCH_PROFILING_CHILD", "_GPUBENCH_DEVICES_AT_ONCE")

MAX_FOLDER_FILES = 20
# folder below src/: (cap = its count when the rule was set, why it may hold more than 20).
FOLDER_EXCEPTIONS = {
    "tools/gate": (23, "the gate's judgement, one header/source pair per step; split it into "
                       "subfolders rather than grow it"),
}

# #48's target: the stages get bundles of services (loop.cpp); other code uses process_access.hpp.
PROCESS_STATE_FILES_MAX = 4


class Source:
    """One file's code pieces and string literals: [(line, text)] each, comments dropped."""

    def __init__(self, text):
        self.pieces = split_code(text)  # [(line, "code" or "string", text)] in order
        self.code = [(line, piece) for line, kind, piece in self.pieces if kind == "code"]
        self.strings = [(line, piece) for line, kind, piece in self.pieces if kind == "string"]

    def first_joined(self, pattern):
        """The line of the first match of `pattern` in code and strings joined, or None."""
        starts, joined = [], ""
        for line, _, piece in self.pieces:
            starts.append((len(joined), line, piece))
            joined += piece
        match = re.search(pattern, joined)
        if not match:
            return None
        start, line, piece = [s for s in starts if s[0] <= match.start()][-1]
        return line + piece.count("\n", 0, match.start() - start)

    def first(self, pattern, strings=False):
        """The line of the first match of `pattern` in code (or in string literals), or None."""
        for line, piece in (self.strings if strings else self.code):
            match = re.search(pattern, piece)
            if match:
                return line + piece.count("\n", 0, match.start())
        return None


def read_tree(root):
    """{path below src/: Source} of the C++ sources, and {folder below src/: number of files}."""
    src = os.path.join(root, "src")
    sources, folders = {}, {}
    for folder, _, names in os.walk(src):
        relative_folder = os.path.relpath(folder, src).replace(os.sep, "/")
        folders[relative_folder] = sum(1 for n in names if n.endswith(FOLDER_EXTENSIONS))
        for name in names:
            if name.endswith(SOURCE_EXTENSIONS):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as handle:
                    sources[os.path.relpath(path, src).replace(os.sep, "/")] = Source(
                        handle.read())
    return sources, folders


def where(files):
    """"src/a.cpp:3, src/b.cpp:9" for {path: line}."""
    return ", ".join("src/%s:%d" % item for item in sorted(files.items())) or "none"


def found(sources, pattern, strings=False, skip=()):
    """{path: first line} of the files in sources whose code (or strings) match, less `skip`."""
    hits = {}
    for path, source in sources.items():
        if path in skip:
            continue
        line = source.first(pattern, strings)
        if line is not None:
            hits[path] = line
    return hits


def check(root, process_state_max=PROCESS_STATE_FILES_MAX, cuda_tool_max=CUDA_TOOL_FILES_MAX,
          folder_exceptions=None):
    """([(rule, violation)], [summary line]) of the tree at root."""
    if folder_exceptions is None:
        folder_exceptions = FOLDER_EXCEPTIONS
    sources, folders = read_tree(root)
    library = {p: s for p, s in sources.items() if not p.startswith(NOT_LIBRARY)}
    problems, summary = [], []

    # 1. Each mode decided once.
    for mode, enum in MODES.items():
        defining = found(library, r"\benum\s+class\s+%s\b" % enum)
        files = found(library, r"\b%s::k" % enum, skip=defining)
        if len(files) > MAX_MODE_FILES:
            problems.append(("modes", "%s::k is branched on in %d files (%s): a mode is branched "
                             "on in at most %d (where it is decided and where it acts); ask the "
                             "object made from it instead" % (enum, len(files), where(files),
                                                              MAX_MODE_FILES)))
        summary.append("modes: %s (%s::k) in %d of at most %d files: %s"
                       % (mode, enum, len(files), MAX_MODE_FILES, where(files)))
    tool_files = found(library, r"\b(cuda_tool|InjectedCudaTool)\b")
    if len(tool_files) > cuda_tool_max:
        problems.append(("cuda tool", "cuda_tool/InjectedCudaTool named in %d files (%s), at most "
                         "%d: the plan holds whether another CUDA tool is attached, read it there"
                         % (len(tool_files), where(tool_files), cuda_tool_max)))
    callers = found(library, r"\bInjectedCudaTool\s*\(", skip=(ENVIRONMENT_FILE,))
    if len(callers) > 1:
        problems.append(("cuda tool", "InjectedCudaTool( called in %d files besides %s (%s): it "
                         "is read once, into the plan" % (len(callers), ENVIRONMENT_FILE,
                                                          where(callers))))
    readers = found(sources, r'^"%s=?"$' % INJECTION_VARIABLE, strings=True,
                    skip=(ENVIRONMENT_FILE,))
    readers.update(found(sources, r"\b%s\b" % INJECTION_VARIABLE, skip=(ENVIRONMENT_FILE,)))
    for path, line in sorted(readers.items()):
        problems.append(("cuda tool", "src/%s:%d: the variable name %s outside src/%s: read it "
                         "through InjectedCudaTool()" % (path, line, INJECTION_VARIABLE,
                                                        ENVIRONMENT_FILE)))
    summary.append("modes: another CUDA tool named in %d of at most %d files (%s); "
                   "InjectedCudaTool( called in %d file besides the reader (%s); %s read by "
                   "name only in src/%s" % (len(tool_files), cuda_tool_max, where(tool_files),
                                            len(callers), where(callers), INJECTION_VARIABLE,
                                            ENVIRONMENT_FILE))

    # 2. The environment is read in one file.
    readers = found(sources, r"\b(getenv|secure_getenv|environ)\b", skip=(ENVIRONMENT_FILE,))
    for path, line in sorted(readers.items()):
        problems.append(("environment", "src/%s:%d: reads the environment (getenv/environ): only "
                         "src/%s does; add a reader there" % (path, line, ENVIRONMENT_FILE)))
    summary.append("environment: read in %d file besides src/%s"
                   % (len(readers), ENVIRONMENT_FILE))

    # 3. The cache strategy replaced flushes()/flushing().
    calls = found(sources, r"\b(flushes|flushing)\s*\(")
    for path, line in sorted(calls.items()):
        problems.append(("flushes", "src/%s:%d: flushes()/flushing(): ask the CacheStrategy "
                         "instead" % (path, line)))
    summary.append("flushes: flushes()/flushing() in %d files" % len(calls))

    # 4. Counters are written through the typed CounterSink. The index and its literal are
    # different pieces of the split: code and strings are searched joined.
    writes = {}
    for path, source in sources.items():
        if path.startswith("tools/"):
            continue
        line = source.first_joined(r'\bcounters\s*\[\s*("|std::string\s*\()')
        if line is not None:
            writes[path] = line
    for path, line in sorted(writes.items()):
        problems.append(("counters", "src/%s:%d: a counter written by a string (counters[\"...\"]"
                         " or counters[std::string(...)]): write it through the CounterSink with "
                         "the vocabulary's name" % (path, line)))
    summary.append("counters: written by a string in %d files outside src/tools/" % len(writes))

    # 5. Folder sizes.
    for folder, count in sorted(folders.items()):
        cap, _ = folder_exceptions.get(folder, (MAX_FOLDER_FILES, ""))
        if count > cap:
            problems.append(("folders", "src/%s/ holds %d source files, at most %d%s: split it "
                             "into subfolders by concern"
                             % (folder, count, cap, " (its exception's cap)"
                                if folder in folder_exceptions else "")))
    largest = max(folders.items(), key=lambda item: (item[0] not in folder_exceptions, item[1]))
    summary.append("folders: at most %d source files each; the largest without an exception is "
                   "src/%s/ (%d); exceptions: %s" % (
                       MAX_FOLDER_FILES, largest[0], largest[1], ", ".join(
                           "src/%s/ %d of cap %d" % (f, folders.get(f, 0), cap)
                           for f, (cap, _) in sorted(folder_exceptions.items())) or "none"))

    # 6. ProcessState's reach (a ratchet).
    state = found(sources, r"\bProcessState\b")
    if len(state) > process_state_max:
        problems.append(("process state", "ProcessState named in %d files, over the ratchet's %d "
                         "(%s): pass what the code needs instead of the process state"
                         % (len(state), process_state_max, where(state))))
    summary.append("process state: named in %d files (ratchet %d, target 4): %s"
                   % (len(state), process_state_max, ", ".join(sorted(state))))

    # 7. The variables gpubench sets for its children.
    for variable in CHILD_VARIABLES:
        places = found(sources, re.escape(variable), strings=True, skip=(ENVIRONMENT_FILE,))
        places.update(found(sources, r"\b%s\b" % variable, skip=(ENVIRONMENT_FILE,)))
        for path, line in sorted(places.items()):
            problems.append(("child variables", "src/%s:%d: names %s, which only src/%s names "
                             "(use its constant or reader)" % (path, line, variable,
                                                              ENVIRONMENT_FILE)))
    summary.append("child variables: %s named only in src/%s"
                   % (" and ".join(CHILD_VARIABLES), ENVIRONMENT_FILE))
    return problems, summary


# A tree that keeps every rule, with the rules' edges: the enum's own file, the parser, the tools,
# comments and strings that name what code may not.
CLEAN_TREE = {
    "common/environment.hpp":
        "inline const char* EnvironmentValue(const char* n) { return std::getenv(n); }\n"
        "inline char** All() { return environ; }\n"
        "inline std::string InjectedCudaTool() { return EnvironmentValue(\"%s\"); }\n"
        "constexpr const char* kChild = \"%s\";\n"
        "constexpr const char* kAtOnce = \"%s\";\n" % ((INJECTION_VARIABLE,) + CHILD_VARIABLES),
    "config/run_plan.hpp":
        "enum class ProfilingRole { kNone, kChild };\n"
        "constexpr ProfilingRole kDefault = ProfilingRole::kNone;\n"
        "struct RunPlan { std::string cuda_tool; };\n",
    "config/run_plan.cpp":
        "bool a = role == ProfilingRole::kChild && timer == Timer::kCupti;\n"
        "bool b = stop == Stopping::kPrecision || order == DeviceOrder::kAtOnce;\n"
        "bool c = process == ProfileProcess::kChild && cuda_tool.empty();\n"
        "std::string m = \"another tool is attached (%s is set)\";\n" % INJECTION_VARIABLE,
    "config/settings_table.cpp":
        "Timer t = Timer::kEvents; CachePolicy p = CachePolicy::kFlush;\n"
        "Stopping s = Stopping::kFixed; DeviceOrder o = DeviceOrder::kSerial;\n",
    "measure/profiling/counter_route.cpp": "bool r = role == ProfilingRole::kNone;\n",
    "measure/timing/cache_strategy.cpp": "bool f = policy == CachePolicy::kFlush;\n",
    "measure/timing/timed_iterations.cpp": "bool s = stop == Stopping::kFixed;\n",
    "measure/process/harness.cpp":
        "bool t = timer == Timer::kEvents && plan_.cuda_tool.empty();\n"
        "ProcessState& state = ProcessState::Get();\n",
    "measure/process/process_state.hpp": "struct ProcessState {};\n",
    "frontend/setup/devices.cpp": "bool o = order == DeviceOrder::kSerial;\n",
    "frontend/setup/initialize.cpp": "inputs.cuda_tool = detail::InjectedCudaTool();\n",
    "measure/publish/publish.cpp":
        "sink.Write(counters::kGpuTime, 1.0);\n"
        "double x = counters[i].second;\n"
        "std::string note = \"Timer::kCupti, getenv, ProcessState, flushes()\";\n",
    "measure/stages/loop.cpp":
        "// Timer::kCupti, getenv(\"X\"), environ, flushes(), counters[\"x\"], ProcessState,\n"
        "/* CUDA_INJECTION64_PATH _GPUBENCH_PROFILING_CHILD InjectedCudaTool() cuda_tool */\n"
        "bool flushes_done = environment_ok;\n",
    "tools/load/rows.cpp":
        "row.counters[\"x\"] = 1; Timer t = Timer::kCupti; CachePolicy c = CachePolicy::kFlush;\n",
}
CLEAN_PROCESS_STATE_FILES = 2  # harness.cpp and process_state.hpp above
CLEAN_CUDA_TOOL_FILES = 5  # environment.hpp, run_plan.{hpp,cpp}, harness.cpp, initialize.cpp
CLEAN_EXCEPTIONS = {"tools/gate": (22, "the self-test's excepted folder")}

# rule: (file below src/, the line planted into it). Each is also planted in a comment, where it
# must not be found.
PLANTED = [
    ("modes", "measure/stages/warmup.cpp", "if (timer == Timer::kCupti) return;"),
    ("modes", "frontend/hooks/reporter.cpp", "bool s = stop == Stopping::kFixed;"),
    ("environment", "measure/stages/warmup.cpp", "const char* home = std::getenv(\"HOME\");"),
    ("environment", "gpu/backend.cpp", "char** all = environ;"),
    ("environment", "gpu/backend.cpp", "const char* h = secure_getenv(\"HOME\");"),
    ("flushes", "measure/stages/loop.cpp", "if (cache.flushes()) return;"),
    ("flushes", "measure/stages/loop.cpp", "bool f = strategy->flushing ();"),
    ("counters", "measure/publish/publish.cpp", "state.counters[\"x\"] = 1.0;"),
    ("counters", "frontend/hooks/reporter.cpp",
     "run.counters[std::string(\"gpu_\") + name] = value;"),
    ("process state", "measure/stages/warmup.cpp", "auto& s = ProcessState::Get();"),
    ("child variables", "frontend/setup/devices.cpp",
     "setenv(\"_GPUBENCH_DEVICES_AT_ONCE\", \"1\", 1);"),
    ("child variables", "frontend/setup/profiling_run.cpp",
     "std::string v = std::string(\"_GPUBENCH_PROFILING_CHILD=\") + file;"),
    ("cuda tool", "gpu/cupti/attach.cpp",
     "const char* t = EnvironmentValue(\"CUDA_INJECTION64_PATH\");"),
    ("cuda tool", "measure/stages/warmup.cpp", "if (!InjectedCudaTool().empty()) return;"),
    ("cuda tool", "measure/stages/warmup.cpp", "if (plan.cuda_tool.empty()) return;"),
]


def self_test():
    failures = 0
    cases = 0
    with tempfile.TemporaryDirectory() as scratch:
        def make(extra=None, folder_files=None):
            root = tempfile.mkdtemp(dir=scratch)
            tree = dict(CLEAN_TREE)
            # A folder at the limit and an excepted one at its cap, both allowed.
            for i in range(MAX_FOLDER_FILES):
                tree["measure/full/f%d.hpp" % i] = ""
            for i in range(CLEAN_EXCEPTIONS["tools/gate"][0]):
                tree["tools/gate/g%d.cpp" % i] = ""
            for path, line in (extra or {}).items():
                tree[path] = tree.get(path, "") + line + "\n"
            for path, text in list(tree.items()) + list((folder_files or {}).items()):
                full = os.path.join(root, "src", path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w", encoding="utf-8") as handle:
                    handle.write(text)
            return root

        def run(root):
            return check(root, process_state_max=CLEAN_PROCESS_STATE_FILES,
                         cuda_tool_max=CLEAN_CUDA_TOOL_FILES,
                         folder_exceptions=CLEAN_EXCEPTIONS)

        cases += 1
        problems, _ = run(make())
        if problems:
            print("self-test FAIL: the clean tree is reported: %s" % problems)
            failures += 1

        for rule, path, line in PLANTED:
            cases += 2
            problems, _ = run(make({path: line}))
            if not problems or any(r != rule for r, _ in problems):
                print("self-test FAIL: %r planted in src/%s: expected rule %r, found %s"
                      % (line, path, rule, problems))
                failures += 1
            for commented in ("// " + line, "/* " + line + " */"):
                problems, _ = run(make({path: commented}))
                if problems:
                    print("self-test FAIL: %r in a comment in src/%s is reported: %s"
                          % (commented, path, problems))
                    failures += 1

        # A folder of 21 files; the excepted folder one past its cap.
        for folder, count in (("measure/crowd", MAX_FOLDER_FILES + 1),
                              ("tools/gate", CLEAN_EXCEPTIONS["tools/gate"][0] + 1)):
            cases += 1
            files = {"%s/n%d.cpp" % (folder, i): "" for i in range(count)}
            problems, _ = run(make(folder_files=files))
            if [r for r, _ in problems] != ["folders"] or "src/%s/" % folder not in problems[0][1]:
                print("self-test FAIL: src/%s/ with %d files: expected one folders violation, "
                      "found %s" % (folder, count, problems))
                failures += 1
    print("self-test: %d of %d cases as expected" % (cases - failures, cases))
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    if not os.path.isdir(os.path.join(sys.argv[1], "src")):
        print("check_house.py: %s has no src/ folder; give the repository's root (the folder "
              "that holds src/)" % sys.argv[1], file=sys.stderr)
        return 2
    problems, summary = check(sys.argv[1])
    for rule, problem in problems:
        print("house rule '%s': %s" % (rule, problem))
    if not problems:
        for line in summary:
            print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
