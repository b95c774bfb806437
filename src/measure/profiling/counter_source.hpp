// Where a process's hardware counters come from, decided once: at Initialize, from the settings,
// the profiler and the profiling pass's stage. The loop and its stages ask this object instead of
// reading the settings, the harness and the pass each time, so one call's path can be read from
// one value.
#pragma once

#include "gpubench/settings.hpp"
#include "measure/profiling/profiling_pass.hpp"

namespace gpubench::detail {

class CounterSource {
 public:
  enum class Kind {
    kNone,            ///< profile_iterations=0, or no profiler here and no child's file
    kHere,            ///< profile_process=same: each call profiles after its timed iterations
    kProfilingChild,  ///< this process is the profiling child: calls profile and are skipped
    kChildFile,       ///< the child's parent: calls are timed and take the child's counters
  };

  CounterSource() = default;
  explicit CounterSource(Kind kind) : kind_(kind) {}

  /// The one decision: `has_profiler` is whether this process set up CUPTI's profiler.
  static CounterSource Decide(const Settings& settings, bool has_profiler,
                              ProfilingPass::Stage stage);

  Kind kind() const { return kind_; }
  /// A profiling session (and the busy measurement) runs in this process.
  bool profiles_here() const { return kind_ == Kind::kHere || kind_ == Kind::kProfilingChild; }
  /// Calls profile, hand their session to the parent and are skipped, untimed.
  bool profiling_child() const { return kind_ == Kind::kProfilingChild; }
  /// Calls profile right after their own timed iterations (the profiler slows them: a note).
  bool after_timing() const { return kind_ == Kind::kHere; }
  /// Calls take their counters from the profiling child's file.
  bool from_child() const { return kind_ == Kind::kChildFile; }
  /// "none", "here", "profiling child", "child's file".
  const char* name() const;

 private:
  Kind kind_ = Kind::kNone;
};

}  // namespace gpubench::detail
