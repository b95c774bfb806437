#include "measure/call/abort_note.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "gb/gb_internals.hpp"

namespace gpubench::detail {
namespace {

// Written before the body runs, read by the signal handler (which may only write(2) it).
char note[1024];
std::atomic<bool> armed{false};
struct sigaction previous {};

void OnAbort(int signal_number) {
  if (armed.load()) {
    const ssize_t written = ::write(STDERR_FILENO, note, std::strlen(note));
    (void)written;
  }
  sigaction(SIGABRT, &previous, nullptr);
  raise(signal_number);
}

void Install() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = OnAbort;
    sigemptyset(&action.sa_mask);
    return sigaction(SIGABRT, &action, &previous) == 0;
  }();
  (void)installed;
}

}  // namespace

void NoteUntimedBody(const char* phase, const std::string& instance) {
  Install();
  armed.store(false);
  std::snprintf(note, sizeof(note),
                "gpubench: the process aborted in the %s body of %s, which gpubench runs outside "
                "Google Benchmark's timed iterations. If GB reported a failed check of "
                "'%s' above, the body calls state.PauseTiming() or "
                "state.ResumeTiming(): GB allows them only inside its timed iterations, and under "
                "manual time they would not take GPU work out of the GPU time anyway. Put the "
                "work that must stay untimed in a gpubench::UntimedScope (docs/user_guide.md "
                "\"Benchmarks that synchronise\")\n",
                phase, instance.c_str(), kGbPauseCheckText);
  armed.store(true);
}

void ClearUntimedBody() { armed.store(false); }

}  // namespace gpubench::detail
