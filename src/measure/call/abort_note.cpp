#include "measure/call/abort_note.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <utility>

#include "gb/gb_internals.hpp"

namespace gpubench::detail {
namespace {

// Written before the body runs, read by the signal handler, which only write(2)s them: the
// handler runs on the thread that aborted, the one that prepared them (GB's thread 0).
char note[1024];
std::atomic<bool> note_armed{false};

AbortRow row;
std::string row_stderr;  // the line on stderr that names the row's benchmark
std::atomic<bool> row_armed{false};

struct JsonOutput {
  std::atomic<int> fd{-1};
  std::atomic<bool> has_rows{false};
};
std::array<JsonOutput, 4> outputs;
std::atomic<int> line_file{-1};

struct sigaction previous {};

void Write(int fd, const char* text, size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, text, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;
    text += written;
    size -= static_cast<size_t>(written);
  }
}

void Write(int fd, const char* text) { Write(fd, text, std::strlen(text)); }

bool AnyJsonOutput() {
  for (const JsonOutput& output : outputs) {
    if (output.fd.load() >= 0) return true;
  }
  return false;
}

void CloseJsonOutputs(bool with_row) {
  for (JsonOutput& output : outputs) {
    const int fd = output.fd.exchange(-1);
    if (fd < 0) continue;
    if (with_row) {
      if (output.has_rows.load()) Write(fd, kGbJsonRowSeparator);
      Write(fd, row.json.data(), row.json.size());
    }
    Write(fd, kGbJsonEnd);
  }
}

void OnAbort(int signal_number) {
  // The suite's own output first, before anything of gpubench's: not async-signal-safe, but an
  // abort is raised by the thread that aborts, which is not inside stdio here unless stdio itself
  // aborted; what it printed would otherwise be lost with the buffer.
  std::fflush(stdout);
  std::cout.flush();
  if (note_armed.load()) Write(STDERR_FILENO, note);
  const bool with_row = row_armed.load();
  const bool json = AnyJsonOutput();
  if (with_row) {
    Write(STDERR_FILENO, row_stderr.data(), row_stderr.size());
    Write(STDERR_FILENO,
          json ? ": the JSON output keeps the rows before it, ends with an error row for it and "
                 "is closed; the benchmarks after it did not run\n"
               : "; the benchmarks after it did not run\n");
    const int file = line_file.load();
    if (file >= 0) Write(file, row.child_line.data(), row.child_line.size());
  } else if (json) {
    Write(STDERR_FILENO,
          "gpubench: the process aborted (SIGABRT) outside the function of a benchmark "
          "registered through gpubench (in one registered with GB's own macros, or in GB): the "
          "JSON output keeps the rows before it and is closed, without a row for the benchmark "
          "that aborted; the benchmarks after it did not run\n");
  }
  CloseJsonOutputs(with_row);
  sigaction(SIGABRT, &previous, nullptr);
  raise(signal_number);  // delivered with the previous action once this handler returns
}

}  // namespace

void InstallAbortHandler() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = OnAbort;
    sigemptyset(&action.sa_mask);
    return sigaction(SIGABRT, &action, &previous) == 0;
  }();
  (void)installed;
}

void NoteUntimedBody(const char* phase, const std::string& instance) {
  InstallAbortHandler();
  note_armed.store(false);
  std::snprintf(note, sizeof(note),
                "gpubench: the process aborted in the %s body of %s, which gpubench runs outside "
                "Google Benchmark's timed iterations. If GB reported a failed check of "
                "'%s' above, the body calls state.PauseTiming() or "
                "state.ResumeTiming(): GB allows them only inside its timed iterations, and under "
                "manual time they would not take GPU work out of the GPU time anyway. Put the "
                "work that must stay untimed in a gpubench::UntimedScope (docs/user_guide.md "
                "\"Benchmarks that synchronise\")\n",
                phase, instance.c_str(), kGbPauseCheckText);
  note_armed.store(true);
}

void ClearUntimedBody() { note_armed.store(false); }

void ArmAbortRow(AbortRow armed) {
  InstallAbortHandler();
  row_armed.store(false);
  row_stderr = "gpubench: the process aborted (SIGABRT) in the benchmark " + armed.name;
  row = std::move(armed);
  row_armed.store(true);
}

void DisarmAbortRow() { row_armed.store(false); }

int AddAbortJsonOutput(int fd) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    int free = -1;
    if (outputs[i].fd.compare_exchange_strong(free, fd)) {
      outputs[i].has_rows.store(false);
      return static_cast<int>(i);
    }
  }
  return -1;
}

void AbortJsonOutputHasRows(int handle) {
  if (handle >= 0 && static_cast<size_t>(handle) < outputs.size()) {
    outputs[handle].has_rows.store(true);
  }
}

void RemoveAbortJsonOutput(int handle) {
  if (handle >= 0 && static_cast<size_t>(handle) < outputs.size()) outputs[handle].fd.store(-1);
}

void SetAbortLineFile(int fd) { line_file.store(fd); }

}  // namespace gpubench::detail
