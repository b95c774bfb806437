// GB's API across versions: GB 1.8 replaced Run::error_occurred and Run::error_message with
// Run::skipped and Run::skip_message, and added State::name(); GB 1.9.5 added
// State::range_size().
#pragma once

#include <cstddef>
#include <optional>
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

template <class Run>
auto SetRunErrorImpl(Run& run, const std::string& message, int)
    -> decltype(run.skip_message, void()) {
  run.skipped = static_cast<decltype(run.skipped)>(2);  // internal::SkippedWithError
  run.skip_message = message;
}
template <class Run>
auto SetRunErrorImpl(Run& run, const std::string& message, long)
    -> decltype(run.error_message, void()) {
  run.error_occurred = true;
  run.error_message = message;
}

/// Makes the run an error row with `message`, as state.SkipWithError would have.
template <class Run>
void SetRunError(Run& run, const std::string& message) {
  SetRunErrorImpl(run, message, 0);
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

template <class State>
auto StateNameImpl(const State& state, int)
    -> decltype(std::string(state.name()), std::optional<std::string>()) {
  return std::string(state.name());
}
template <class State>
std::optional<std::string> StateNameImpl(const State&, long) {
  return std::nullopt;
}
template <class State>
auto StateRangeCountImpl(const State& state, int)
    -> decltype(state.range_size(), std::optional<int>()) {
  return static_cast<int>(state.range_size());
}
template <class State>
std::optional<int> StateRangeCountImpl(const State&, long) {
  return std::nullopt;
}

template <class Run>
auto RunSkippedWithMessageImpl(const Run& run, int) -> decltype(run.skipped, bool()) {
  return run.skipped == static_cast<decltype(run.skipped)>(1);  // internal::SkippedWithMessage
}
template <class Run>
bool RunSkippedWithMessageImpl(const Run&, long) {
  return false;  // before GB 1.8 a row can only fail
}

/// Whether the row was skipped deliberately (state.SkipWithMessage, GB >= 1.8), not failed.
template <class Run>
bool RunSkippedWithMessage(const Run& run) {
  return RunSkippedWithMessageImpl(run, 0);
}

template <class State>
auto StateSkippedImpl(const State& state, int) -> decltype(state.skipped(), bool()) {
  return state.skipped();
}
template <class State>
bool StateSkippedImpl(const State& state, long) {
  return state.error_occurred();
}

/// Whether the running benchmark was skipped (GB >= 1.8: with an error or a message) or ended
/// with an error.
template <class State>
bool StateSkipped(const State& state) {
  return StateSkippedImpl(state, 0);
}

/// The family name GB shows for the running benchmark (after any ->Name()), from
/// State::name(); nullopt before GB 1.8, whose State does not carry it.
template <class State>
std::optional<std::string> StateName(const State& state) {
  return StateNameImpl(state, 0);
}

/// How many arguments the running instance has, from State::range_size(); nullopt before
/// GB 1.9.5.
template <class State>
std::optional<int> StateRangeCount(const State& state) {
  return StateRangeCountImpl(state, 0);
}

}  // namespace gpubench::detail
