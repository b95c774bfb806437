// Entry points: GPUBENCH_MAIN() in place of BENCHMARK_MAIN(), or gpubench::Initialize in a main
// of your own.
#pragma once

namespace gpubench {

/// What Initialize decided.
struct InitResult {
  bool run_benchmarks = true;  ///< false: exit now with exit_code (bad flag, help, a listing).
  int exit_code = 0;
};

/// Parses and removes the --gpubench_* flags from argv (GB's own flags are left for
/// benchmark::Initialize), reads GPUBENCH_* environment variables, queries the device and adds
/// the settings and device facts to GB's context block. Bad input prints what was wrong and
/// what is valid to stderr and returns {false, 2}. The result must be checked: a main of your
/// own returns `exit_code` when `run_benchmarks` is false (README, "Your own main").
[[nodiscard]] InitResult Initialize(int* argc, char** argv);

/// Initialize, then benchmark::Initialize, then runs the benchmarks with gpubench's console
/// reporter (GB's JSON file output is untouched, but for the rows an abort leaves). Returns the
/// process exit code: 0 after a run (skipped or failed benchmarks are reported in the output, not
/// the exit code), 2 on bad command-line input and when --benchmark_filter selects no benchmark,
/// 1 when the profiling child aborted in a benchmark (its row is an error, the others ran). A
/// benchmark that aborts the process (SIGABRT) ends it with that signal, after its error row and
/// the end of the JSON are written.
int Main(int argc, char** argv);

/// Main, and before_benchmarks() once after the initialisation (this process's CUDA context on
/// the device exists then) and before the first benchmark: for a suite that prints the device's
/// properties, say. Not called where Initialize ends the run (a bad flag, the parent of several
/// devices' children), nor in the child process gpubench starts to profile. A plain function
/// pointer (a lambda without captures converts to it) keeps this header free of includes, where
/// std::function would bring <functional> into every suite for one call from main.
int Main(int argc, char** argv, void (*before_benchmarks)());

}  // namespace gpubench

/// Defines main() for a gpubench benchmark binary.
#define GPUBENCH_MAIN()                                                    \
  int main(int argc, char** argv) { return ::gpubench::Main(argc, argv); } \
  int main(int, char**)
