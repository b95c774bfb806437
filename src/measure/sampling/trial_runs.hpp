// Telling Google Benchmark's iteration-count trials from the calls it reports.
//
// For each benchmark instance GB calls the function with a growing iteration count (1, then
// more) until one call's time reaches min_time; it reports that call and discards the earlier
// ones. Later repetitions reuse the count found and are all reported; so is every call with an
// explicit count (->Iterations(n), --benchmark_min_time=<n>x).
//
// A profiling session costs about 15 ms of CUPTI time, and a suite makes several trial calls per
// instance, so gpubench profiles only calls that GB can report. A call is certainly a trial when
// the min_time GB applies to it is known, the call's GPU time (what GB compares: gpubench
// benchmarks use manual time, and GB refuses to mix that with UseRealTime) is below it, and the
// same instance has just run with fewer iterations (so this is neither the first call, which may
// carry an explicit count, nor a repetition, which repeats the count, nor the restart after a
// warm-up phase).
//
// The min_time GB applies is the benchmark's own ->MinTime() when it has one, else
// --benchmark_min_time. gpubench reads ->MinTime() from GB's benchmark object for every
// benchmark registered through gpubench (and every gpubench::Fixture). It cannot read it for a
// benchmark registered with GB's own function macros (GB >= 1.9.5 lets those run): an own
// min_time below the global one then makes a reported call look like a trial. GB's calling
// pattern gives it away afterwards: a trial is always followed by a longer call of the same
// instance. BeginCall and Finish check that and return a warning for the call that was
// misjudged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace gpubench::detail {

class TrialRunDetector {
 public:
  /// `min_time_seconds`: GB's global min_time; nullopt judges no call a trial.
  explicit TrialRunDetector(std::optional<double> min_time_seconds = std::nullopt)
      : min_time_seconds_(min_time_seconds) {}

  /// At the start of every call of a gpubench benchmark; `own_min_time_seconds` is the
  /// benchmark's ->MinTime() (0: none, or unknown). Returns a warning (or "") when the call
  /// noted by NoteCopiedCounters turns out to have been reported.
  std::string BeginCall(const std::string& instance, int64_t iterations,
                        double own_min_time_seconds = 0);

  /// After the timed iterations of the call begun last: true when GB will discard the call.
  bool IsTrial(double gpu_seconds) const;

  /// After the timed iterations of the call begun last, of a benchmark whose count GB grows (no
  /// explicit count): whether GB discards it, for what it cost. Unlike IsTrial this includes the
  /// instance's first call (GB's one-iteration start), which may carry an explicit count when
  /// gpubench cannot see it and so is never used to skip profiling.
  bool IsDiscarded(double gpu_seconds) const;

  /// The min_time GB applies to the call begun last; nullopt judges no call a trial.
  std::optional<double> CallMinTimeSeconds() const;

  /// The call begun last, judged a trial, got the counters of the same instance's profiled
  /// call with `source_iterations` iterations instead of a profiling session of its own.
  void NoteCopiedCounters(double gpu_seconds, int64_t source_iterations);

  /// After the last call: BeginCall's check for a call that had no successor.
  std::string Finish();

  std::optional<double> min_time_seconds() const { return min_time_seconds_; }

 private:
  struct Call {
    std::string instance;
    int64_t iterations = 0;
    bool follows_shorter_call = false;
    double own_min_time_seconds = 0;
    bool first_call = false;
  };
  struct CopiedCall {
    Call call;
    double gpu_seconds = 0;
    int64_t source_iterations = 0;
  };
  std::string Misjudged(const CopiedCall& copied) const;

  std::optional<double> min_time_seconds_;
  // Iterations of each instance's latest call: memory grows with the number of instances only.
  std::unordered_map<std::string, int64_t> last_iterations_;
  Call current_;
  std::optional<CopiedCall> copied_;
};

}  // namespace gpubench::detail
