// What an abort (SIGABRT: std::terminate, abort(), a failed assert or a failed check of GB's)
// leaves behind. gpubench has one SIGABRT handler; it flushes stdout first (a suite's own message
// before the abort would otherwise stay in its buffer), then writes what was prepared before the
// body ran, with write(2) only, and ends the process with the signal as it would have ended:
//
// - the untimed-body note: inside a body gpubench runs outside GB's timed iterations (the
//   warm-up, the hold check, the profiled and the busy bodies) GB's State::PauseTiming and
//   ResumeTiming fail GB's check and abort; gpubench says what that means and what to use;
// - the running benchmark's row: an error row in GB's JSON for the instance whose function
//   runs, appended to every JSON output that GPUBENCH_MAIN() writes, which is then closed, so the
//   file keeps the rows before it and stays valid JSON; and a line naming the instance in the
//   profiling child's file, so that the parent does not run it again.
#pragma once

#include <string>

namespace gpubench::detail {

/// Installs the handler (once; later calls do nothing).
void InstallAbortHandler();

/// The next body is an untimed one of `instance` in `phase` ("warm-up", ...): an abort from now
/// on is explained. Installs the handler.
void NoteUntimedBody(const char* phase, const std::string& instance);
/// The body ended (or a timed one follows): no explanation.
void ClearUntimedBody();

/// What an abort writes for the benchmark whose function runs from now on.
struct AbortRow {
  std::string name;        ///< the row's name, as GB names it ("BM_Copy/1048576/manual_time")
  std::string json;        ///< GB's JSON of its error row (gb_internals.hpp GbJsonRows)
  std::string child_line;  ///< the profiling child's line for it ("" outside the child)
};
/// The benchmark function of `row.name` runs from now on (installs the handler).
void ArmAbortRow(AbortRow row);
/// The function returned: an abort from now on happened outside a benchmark function.
void DisarmAbortRow();

/// A JSON output whose "benchmarks" array GB has opened on `fd` (a file opened with O_APPEND, or
/// stdout): an abort appends the armed row and closes the array and the document. Returns a
/// handle, or -1 when no more outputs can be taken. The caller keeps `fd` open until
/// RemoveAbortJsonOutput.
int AddAbortJsonOutput(int fd);
/// GB wrote a row to the output: an abort's row needs a separator before it.
void AbortJsonOutputHasRows(int handle);
/// GB closed the output (or it is going away): an abort leaves it alone.
void RemoveAbortJsonOutput(int handle);

/// The profiling child's file (-1: none): an abort appends the armed row's child line.
void SetAbortLineFile(int fd);

}  // namespace gpubench::detail
