// When a call of a benchmark pays for a profiling session, and what the loop remembers between
// GB's calls to decide it: the trial detector, the latest profiled call's counters (copied into
// trials) and which messages were already printed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "gpubench/settings.hpp"
#include "measure/call/call_result.hpp"
#include "measure/sampling/trial_runs.hpp"

namespace gpubench::detail {

class ProfilingPolicy {
 public:
  /// The counters of a successful profiling session.
  struct ProfiledCall {
    std::string instance;
    int64_t iterations = 0;
    std::map<std::string, double> counters;
  };

  /// Tells GB's iteration-count trials from calls it may report (see trial_runs.hpp).
  TrialRunDetector& trials() { return trials_; }
  void SetTrialRunDetector(TrialRunDetector detector) { trials_ = std::move(detector); }

  /// The counters a trial call of `instance` takes instead of a session of its own: the
  /// instance's latest profiled call's, when `settings` profile reported calls only and the call
  /// begun last (`gpu_seconds` of GPU time) is a trial; else null.
  const ProfiledCall* CountersForTrial(const Settings& settings, const std::string& instance,
                                       double gpu_seconds) const;

  /// For a trial call: the latest profiled call's counters copied into *profile (kind kCopied),
  /// true; false when the call profiles itself.
  bool CopyCountersForTrial(const Settings& settings, const std::string& instance,
                            double gpu_seconds, ProfileOutcome* profile) const;

  void RememberProfiledCall(ProfiledCall call) { latest_profiled_ = std::move(call); }
  /// After a failed session: trials of this instance profile again rather than copy counters.
  void ForgetProfiledCall() { latest_profiled_.reset(); }

  /// True the first time `message` is asked about: each message is printed once per process.
  bool FirstTime(const std::string& message) { return printed_.insert(message).second; }

 private:
  TrialRunDetector trials_;
  std::optional<ProfiledCall> latest_profiled_;
  std::set<std::string> printed_;
};

}  // namespace gpubench::detail
