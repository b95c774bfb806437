// Readings gpubench takes over each timed call, kept until GB reports the call's rows: the
// reporters compare them with GB's own numbers of those rows (frontend/paused_rows: GB's CPU
// time against the thread's; frontend/self_timed_rows: GB's manual time against the GPU time
// gpubench handed it).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpubench::detail {

/// What gpubench read over each timed call (the thread's CPU seconds, the GPU seconds it handed
/// GB), matched to GB's rows when they are reported: GB reports an instance once all its
/// repetitions ran, so its readings are complete by then.
class CallReadings {
 public:
  /// One timed call: GB's iteration count and gpubench's reading over the timed iterations.
  void Record(const std::string& instance, int64_t iterations, double seconds);

  /// `instance`'s repetitions, in order: their iteration count and reading each.
  struct Repetitions {
    int64_t iterations = 0;
    std::vector<double> seconds;
  };
  /// The readings of `instance`'s repetitions: those with the iteration count of its last call
  /// (GB runs every repetition with the count its trials settled on; the trials, with other
  /// counts, are dropped). Readings recorded since the last claim replace the earlier ones, so a
  /// name that runs again is matched to its new calls; without new ones the last claim stays
  /// (GB hands the same rows to the display and to the file reporter).
  const Repetitions& Claim(const std::string& instance);

 private:
  struct Reading {
    std::string instance;
    int64_t iterations;
    double seconds;
  };
  std::vector<Reading> pending_;
  std::map<std::string, Repetitions> claimed_;
};

}  // namespace gpubench::detail
