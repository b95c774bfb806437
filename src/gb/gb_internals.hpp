// Everything gpubench knows about Google Benchmark beyond its documented API, in one place: GB's
// private members, its internal namespace, the way it names rows and the differences between
// its versions (1.7.1 to 1.9.x). A GB that changes one of them fails
// tests/unit/test_gb_internals.cpp, which names this file; tests/repo/check_gb_internals.py keeps
// such knowledge from spreading into the rest of src/ again.
//
// This layer includes only <benchmark/benchmark.h>, the standard library and common/.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/status.hpp"

namespace gpubench::detail {

/// GB's benchmark class (benchmark::internal::Benchmark before GB 1.9, benchmark::Benchmark
/// after), named without naming either: the same type as gpubench::BenchmarkHandle.
using GbBenchmark = std::remove_pointer_t<decltype(benchmark::RegisterBenchmark(
    "", static_cast<void (*)(benchmark::State&)>(nullptr)))>;

// ---------------------------------------------------------------------------------------------
// GB's benchmark object: private and protected members, the internal registration.

/// The family's number of arguments (GB's ArgsCnt(), protected before GB 1.9): -1 without args.
int ArgsCount(const GbBenchmark& benchmark);
/// The benchmark's own ->MinTime() in seconds, 0 when it has none: GB applies it in place of
/// --benchmark_min_time (private min_time_).
double OwnMinTimeSeconds(const GbBenchmark& benchmark);
/// The family's own ->Iterations(n), 0 when unset (private iterations_).
benchmark::IterationCount OwnIterations(const GbBenchmark& benchmark);
/// The family's name after any ->Name() (private name_).
const std::string& FamilyName(const GbBenchmark& benchmark);
/// Hands `benchmark` to GB (benchmark::internal::RegisterBenchmarkInternal: a raw pointer before
/// GB 1.9, a std::unique_ptr after), which owns it from then on; returns it.
GbBenchmark* RegisterOwned(GbBenchmark* benchmark);

// ---------------------------------------------------------------------------------------------
// GB's API across versions: GB 1.8 replaced Run::error_occurred and Run::error_message with
// Run::skipped and Run::skip_message, and added State::name(); GB 1.9.5 added
// State::range_size().

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

// ---------------------------------------------------------------------------------------------
// GB's rows and their names: BenchmarkName::str() is
// function/args/min_time/min_warmup_time/iterations/repeats/time_type/threads.

using GbRun = benchmark::BenchmarkReporter::Run;

/// The name part GB gives the instances of a family with ->Iterations(count): "iterations:2".
std::string CountNamePart(benchmark::IterationCount count);
/// Takes `count_part` (CountNamePart) out of the names of the rows whose family `counted` says
/// had its count set by gpubench.
void RestoreCountedNames(std::vector<GbRun>* runs, const std::string& count_part,
                         const std::function<bool(const std::string& function_name)>& counted);
/// A --benchmark_filter widened so that it also matches the names GB gives the instances of
/// gpubench's forms, where a filter of their plain GB names ("bitset_set/1000$") would match
/// nothing: each end anchor '$' (not an escaped one, nor one in a bracket expression) gets
/// "(/manual_time)?" before it, the time type the forms set; with a `count_part`
/// ("iterations:2", "" for none) also "(/<count_part>)?" before that, and "(<count_part>/)?"
/// before "manual_time", "process_time" and "repeats:", the parts that follow the count in GB's
/// names. A negative filter ("-...") stays negative; GB matches it against the whole name.
std::string WidenFilter(const std::string& filter, const std::string& count_part);
/// A row for the instance of `family` that `state` runs, named as GB names the instance
/// (BenchmarkInstance: argument names, min_time, min_warmup_time, the family's own count,
/// repetitions, time type, threads, from the family's private members): an iteration row of the
/// first repetition, with no iterations and no time, for a row GB's runner will never report.
GbRun InstanceRun(const GbBenchmark& family, const benchmark::State& state);
/// GB's JSON text of `runs` as its JSONReporter writes them inside the "benchmarks" array, with
/// nothing before the first row and nothing after the last.
std::string GbJsonRows(const std::vector<GbRun>& runs);
/// What GB's JSONReporter writes between two rows, and after the last row (the array's and the
/// document's close, Finalize).
inline constexpr char kGbJsonRowSeparator[] = ",\n";
inline constexpr char kGbJsonEnd[] = "\n  ]\n}\n";
/// Appends `tag` ("gpu:1") to the row's arguments, so that GB's name shows it before the time
/// type; nothing for an empty tag.
void TagRunArgs(GbRun* run, const std::string& tag);

/// The row's time is manual time (->UseManualTime()).
bool IsManualTime(const GbRun& run);
/// The row's CPU time is the process's (->MeasureProcessCPUTime()).
bool IsProcessTime(const GbRun& run);
/// The instance name gpubench's loop gave the row's call ("BM_Copy/1048576"): GB's family name
/// and arguments, without argument names, time type or repetition count.
std::string InstanceNameOfRun(const GbRun& run);
/// A row's name as GB writes it, as gpubench names the instance: GB appends "/min_time:...",
/// "/min_warmup_time:...", "/iterations:N", "/repeats:N", "/manual_time" (or "/real_time",
/// "/process_time") and "/threads:N" after the arguments, and writes a named argument as
/// "n:1024" where the instance has "1024". Each "name:value" part after the first becomes its
/// value, a tagged device's "gpu:1" too, so the instance "BM/8/gpu:1" and the row
/// "BM/n:8/gpu:1/manual_time" both read "BM/8/1".
std::string InstanceOfRowName(const std::string& name);
/// An aggregate row (mean, median, stddev, cv, or the user's statistics).
bool IsAggregate(const GbRun& run);
/// A repetition's own row.
bool IsIteration(const GbRun& run);
/// GB's mean aggregate.
bool IsMean(const GbRun& run);
/// Which repetition a row of IsIteration is (0, 1, ...).
int64_t RepetitionIndex(const GbRun& run);

// ---------------------------------------------------------------------------------------------
// GB's output, flags and behaviour.

/// Splits GB's JSON file text at its "benchmarks" array: `context_object` gets the text of an
/// object that holds the file's members before the array (its "context"), `rows` the array's
/// inside. An error when the text is not GB's JSON layout.
Status SplitGbJson(const std::string& text, std::string* context_object, std::string* rows);
/// GB's JSON file text of a context object (its JSON text) and the "benchmarks" array's inside
/// (rows written as GB writes them, joined by ",\n    "), in GB's layout.
std::string JoinGbJson(const std::string& context, const std::string& rows);

/// GB's own flag value, read before GB parses: the last --benchmark_<name>=VALUE, else the
/// variable BENCHMARK_<NAME>; "" when neither is given.
std::string GbFlagValue(int argc, char** argv, const std::string& name);

/// Whether this GB takes a count for every instance from --benchmark_min_time=<n>x (GB >= 1.8):
/// each instance without a count or min_time of its own then runs n iterations a call, and GB
/// puts the count in no name (a family's ->Iterations(n) names its rows ".../iterations:n/...").
bool GbTakesGlobalCounts();

/// Sets --benchmark_min_time to "<count>x" before benchmark::Initialize reads argv (a
/// --benchmark_min_time given there still replaces it); a count of 0 gives back the value it had
/// before. False, changing nothing, on GB 1.7.
bool SetGlobalCount(benchmark::IterationCount count);

/// The names of every instance GB would run, as --benchmark_list_tests prints them; before
/// benchmark::Initialize, that is every registered benchmark, unfiltered. nullopt on GB 1.7.
std::optional<std::vector<std::string>> ListInstanceNames();

/// GB's default --benchmark_min_time (the same in GB 1.7 to 1.9).
constexpr double kDefaultMinTimeSeconds = 0.5;

/// The min_time GB applies to benchmarks without their own ->MinTime(), from the value of
/// --benchmark_min_time (or BENCHMARK_MIN_TIME; empty when neither is given): "0.5" (GB 1.7)
/// or "0.5s" (GB >= 1.8) give seconds; "<n>x" (explicit iterations) and anything unreadable
/// give nullopt, meaning "no call can be judged a trial".
std::optional<double> MinTimeSeconds(const std::string& flag_value);

/// GB reports a call that reached this many iterations whatever its time (GB's internal
/// kMaxIterations).
inline constexpr int64_t kGbMaxIterations = 1000000000;

/// State::KeepRunningBatch(n): GB's timer starts on the first batch, and a batch may claim more
/// iterations than GB asked for (max_iterations); GB reports the iterations that ran. Returns
/// KeepRunningBatch's answer.
inline bool ClaimIterations(benchmark::State& state, benchmark::IterationCount count) {
  return state.KeepRunningBatch(count);
}

/// The check GB prints before it aborts on State::PauseTiming() or ResumeTiming() outside its
/// timed iterations.
inline constexpr char kGbPauseCheckText[] = "started_ && !finished_";

}  // namespace gpubench::detail
