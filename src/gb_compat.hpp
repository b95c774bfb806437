// Reading a GB run's error across GB versions: GB 1.8 replaced Run::error_occurred and
// Run::error_message with Run::skipped and Run::skip_message.
#pragma once

#include <string>

namespace gpubench::detail {

template <class Run>
auto RunErrorMessageImpl(const Run& run, int) -> decltype(run.skip_message, std::string()) {
  return run.skipped ? (run.skip_message.empty() ? "skipped" : run.skip_message) : "";
}
template <class Run>
auto RunErrorMessageImpl(const Run& run, long) -> decltype(run.error_message, std::string()) {
  return run.error_occurred ? run.error_message : "";
}
template <class Run>
auto RunFailedImpl(const Run& run, int) -> decltype(run.skipped, bool()) {
  return run.skipped != 0;
}
template <class Run>
auto RunFailedImpl(const Run& run, long) -> decltype(run.error_occurred, bool()) {
  return run.error_occurred;
}

/// The run's error or skip message; "" when it ran.
template <class Run>
std::string RunErrorMessage(const Run& run) {
  return RunErrorMessageImpl(run, 0);
}

/// Whether the run errored or was skipped.
template <class Run>
bool RunFailed(const Run& run) {
  return RunFailedImpl(run, 0);
}

}  // namespace gpubench::detail
