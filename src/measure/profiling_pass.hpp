// Hardware metrics taken before any timing. Once CUPTI's profiler has attached to a process, held
// short kernels run 5-10% slower there until CUPTI detaches, and the profiler cannot attach again
// after a detach (docs/accuracy.md "Metrics on and off"). So gpubench's runner runs the suite
// twice: a profiling pass, in which each benchmark instance runs a warm-up and one profiling
// session and is then skipped, and the timed pass after CUPTI has detached, whose calls take
// their instance's counters from the profiling pass.
#pragma once

#include <map>
#include <string>

#include "measure/call_result.hpp"

namespace gpubench::detail {

/// How the profiling pass ends each call (a SkipWithError that only its own reporter sees).
inline constexpr const char* kProfilingPassSkip =
    "profiling pass: profiled, timed in the next pass";

class ProfilingPass {
 public:
  enum class Stage {
    kInline,     ///< no profiling pass (a main that calls benchmark::RunSpecifiedBenchmarks):
                 ///< each call profiles after its timed iterations, as gpubench did before
    kProfiling,  ///< the profiling pass runs: calls profile and are skipped, nothing is timed
    kTiming,     ///< after the profiling pass: calls are timed and take its counters
  };

  /// What the profiling pass learnt about one instance.
  struct Entry {
    ProfileOutcome profile;  ///< kProfiled or kFailed
    SharingVerdict sharing;  ///< other processes on the GPU around the session
  };

  Stage stage() const { return stage_; }
  void Begin() { stage_ = Stage::kProfiling; }
  void End() { stage_ = Stage::kTiming; }

  /// The instance's entry, or null when the profiling pass did not profile it.
  const Entry* Find(const std::string& instance) const;
  void Store(const std::string& instance, Entry entry);
  size_t size() const { return entries_.size(); }

  /// A timed call's counters: the instance's session (kind kFromPass), its failure (kFailed), or
  /// kFailed with the reason when the pass has nothing for it. Another process on the GPU
  /// around the session marks the call shared too, since its counters come from there.
  void TakeCounters(const std::string& instance, CallResult* call) const;

 private:
  Stage stage_ = Stage::kInline;
  std::map<std::string, Entry> entries_;
};

}  // namespace gpubench::detail
