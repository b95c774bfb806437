// Where a call's hardware counters come from, chosen once per run from the run plan's profiling
// role (config/run_plan.hpp): four routes, one per role, made by MakeCounterRoute, the one place
// besides the plan that tells the roles apart. The warm-up, the counter stages, the loop and the
// publisher ask the route what to do instead of asking which process this is.
#pragma once

#include <memory>
#include <string>

#include "common/status.hpp"
#include "config/run_plan.hpp"
#include "config/settings_table.hpp"
#include "gpu/nvml/gpu_sharing.hpp"
#include "measure/call/call_result.hpp"

namespace gpubench::detail {

class ProfilingPass;
class ProfilingPolicy;
class ProfileLog;

/// What the routes read and write: the process's profiling pass, trial-copy policy and profile
/// log, and the run's settings.
struct RouteServices {
  ProfilingPass& pass;
  ProfilingPolicy& policy;
  ProfileLog& profile_log;
  const Settings& settings;
};

class CounterRoute {
 public:
  virtual ~CounterRoute() = default;
  virtual ProfilingRole role() const = 0;

  /// Whether GB's calls here are timed. The profiling child's are not: they are no trial of GB's
  /// iteration count, start no timer run and go from the warm-up straight to the counters.
  virtual bool TimesCalls() const { return true; }
  /// Whether the instance was profiled already (the child profiles each instance once, at its
  /// first call; its other repetitions are skipped).
  virtual bool AlreadyProfiled(const std::string& /*instance*/) const { return false; }
  /// Settles the call's counters without a session where this route can: none here, the child's
  /// (the parent), or a copy of the latest profiled call's (a trial of GB's iteration count).
  /// False: a profiling session runs here.
  virtual bool SettleWithoutSession(CallResult* call) const = 0;
  /// Whether the session's wall time is this call's (wall_profiling): it ran in this process.
  virtual bool ChargesProfilingWall() const { return false; }
  /// The call's end: the child keeps the session for the timed pass and skips the call (the
  /// failed Status kProfilingPassSkip); Ok elsewhere.
  virtual Status EndCall(SharingMonitor& /*monitor*/, const CallResult& /*call*/) const {
    return Status::Ok();
  }
  /// --gpubench_reuse: a call that reused its source row ends here, unprofiled. The child hands
  /// its signature to the parent (ProfilingPass::StoreReused) and skips the call (the failed
  /// Status kProfilingPassSkip); Ok elsewhere.
  virtual Status EndReusedCall(const CallResult& /*call*/, double /*wall_seconds*/) const {
    return Status::Ok();
  }
  /// The parent: the child's signature of an instance it profiled and signed whole.
  virtual std::optional<uint64_t> SignedInChild(const std::string& /*instance*/) const {
    return std::nullopt;
  }
  /// The parent: the child's signature of an instance the child reused, or null.
  virtual const ChildSignature* ReusedInChild(const std::string& /*instance*/) const {
    return nullptr;
  }
  /// Whether the counters are profiled right after the call's timed iterations, in this process
  /// (profiled_inline; the row's cost counts the session).
  virtual bool ProfilesAfterTiming() const { return false; }
  /// Whether a failed session is logged here (the parent's were logged by the child).
  virtual bool LogsFailedSessions() const { return true; }
  /// gpubench_gpu_busy (how busy time is measured, or why not) and gpubench_host_calls (per
  /// instance, the CUDA runtime calls of the loop body: "INSTANCE=NAME:COUNT:SECONDS,...;...",
  /// per iteration, known here from the profiling child; docs/user_guide.md "Context block").
  virtual KeyValues BusyContext(const std::string& profiler_status) const = 0;
};

/// The route of `role`: the one switch on the profiling role outside the run plan.
std::unique_ptr<CounterRoute> MakeCounterRoute(ProfilingRole role, RouteServices services);

}  // namespace gpubench::detail
