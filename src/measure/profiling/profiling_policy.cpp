#include "measure/profiling/profiling_policy.hpp"

namespace gpubench::detail {

const ProfilingPolicy::ProfiledCall* ProfilingPolicy::CountersForTrial(const Settings& settings,
                                                                       const std::string& instance,
                                                                       double gpu_seconds) const {
  // GB discards its iteration-count trials, so a trial need not pay for a session.
  if (settings.profile_runs != ProfileRuns::kReported) return nullptr;
  if (!trials_.IsTrial(gpu_seconds)) return nullptr;
  if (!latest_profiled_ || latest_profiled_->instance != instance) return nullptr;
  return &*latest_profiled_;
}

bool ProfilingPolicy::CopyCountersForTrial(const Settings& settings, const std::string& instance,
                                           double gpu_seconds, ProfileOutcome* profile) const {
  const ProfiledCall* latest = CountersForTrial(settings, instance, gpu_seconds);
  if (latest == nullptr) return false;
  profile->kind = ProfileOutcome::Kind::kCopied;
  profile->counters = latest->counters;
  profile->copied_from_iterations = latest->iterations;
  return true;
}

}  // namespace gpubench::detail
