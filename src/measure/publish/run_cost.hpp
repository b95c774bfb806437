// What a run costs in wall time: each row's share (counters wall_time, wall_warmup, wall_timed,
// wall_profiling, samples) and the whole run's split for the closing line on stderr. Trial calls
// of GB's rule cost too: theirs is added to the instance's next reported row.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "measure/call/call_result.hpp"

namespace gpubench::detail {

class RunCost {
 public:
  /// What one reported row cost.
  struct Row {
    double wall_seconds = 0;  ///< the call (and GB's trial calls before it) and its profiling
    int64_t samples = 0;      ///< timed bodies: the call's and its trial calls'
  };

  /// As the run starts (Initialize).
  void Start() { start_ = std::chrono::steady_clock::now(); }
  /// The profiling child's process, from its start to its end.
  void AddProfilingPass(double seconds) { profiling_ += seconds; }

  /// A call's loop has ended (Publish). `trial`: GB will discard the call (an iteration-count
  /// trial), so its cost goes to the instance's next reported row; `wrapped`: a gpubench
  /// registration wraps the function and calls FunctionDone when it returns (else the loop's
  /// own span is the call's); `profiled_here`: call.wall_profiling_seconds was spent in this
  /// process (profile_process=same), not in the profiling child. Returns the row's cost for an
  /// unwrapped reported call.
  std::optional<Row> LoopDone(const CallResult& call, bool trial, bool wrapped, bool profiled_here);
  /// The benchmark function of the call whose loop ended last has returned after
  /// `function_seconds` (its set-up and tear-down included): the row's cost, or nullopt for a
  /// trial and for a function whose loop did not end.
  std::optional<Row> FunctionDone(double function_seconds);

  /// "the run took ... of wall time: ..." with the split, or "" before Start.
  std::string Summary() const;

 private:
  struct Pending {
    double seconds = 0;
    int64_t samples = 0;
  };
  struct LastCall {
    std::string instance;
    bool trial = false;
    double loop_seconds = 0;
    double profiling_seconds = 0;
    int64_t iterations = 0;
  };
  std::optional<Row> CallDone(const LastCall& call, double function_seconds);

  std::optional<std::chrono::steady_clock::time_point> start_;
  std::map<std::string, Pending> trials_;  ///< per instance, since its last reported row
  std::optional<LastCall> last_;
  double profiling_ = 0;
  double warmup_ = 0;
  double timed_ = 0;
  double trial_calls_ = 0;
  double setup_ = 0;
};

}  // namespace gpubench::detail
