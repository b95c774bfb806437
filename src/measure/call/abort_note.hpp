// An abort inside a body that gpubench runs outside Google Benchmark's timed iterations (the
// warm-up, the hold check, the profiled and the busy bodies). There GB's State::PauseTiming and
// ResumeTiming fail GB's check (the timer is not started, or already finished) and abort the
// process: GB prints only its check. gpubench then says what it means and what to use instead.
#pragma once

#include <string>

namespace gpubench::detail {

/// The next body is an untimed one of `instance` in `phase` ("warm-up", ...): an abort from now
/// on is explained. Installs the SIGABRT handler on first use.
void NoteUntimedBody(const char* phase, const std::string& instance);
/// The body ended (or a timed one follows): no explanation.
void ClearUntimedBody();

}  // namespace gpubench::detail
