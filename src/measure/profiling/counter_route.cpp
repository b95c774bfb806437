#include "measure/profiling/counter_route.hpp"

#include "measure/profiling/busy_phase.hpp"
#include "measure/profiling/profiling_pass.hpp"
#include "measure/profiling/profiling_policy.hpp"
#include "measure/publish/publish.hpp"
#include "schema/context_keys.hpp"

namespace gpubench::detail {
namespace {

// How busy time is measured where it is: in this process or in the profiling child, which
// traces its warm-up bodies too (warmup_stages.hpp).
std::string BusyMethod(const Settings& settings, bool child) {
  const std::string where = child ? "in the profiling child; a body longer than 0.25 s after a "
                                    "set-up longer than 0.25 s: its warm-up body, traced the "
                                    "same way"
                                  : "in this process";
  return "CUPTI activity records of up to " + std::to_string(settings.profile_iterations) +
         " untimed iterations per instance after its profiled ones (" + where +
         "): gpu_busy_time is the union of the intervals of its kernels, memcpy "
         "and memset per iteration, gpu_busy_pct that over the GPU time per "
         "iteration; the host calls are the CUDA runtime API records of the loop "
         "body (gpubench::UntimedScope leaves its work out)";
}

class RouteBase : public CounterRoute {
 public:
  explicit RouteBase(RouteServices services) : services_(services) {}

 protected:
  RouteServices services_;
};

// No hardware metrics in this run.
class NoCounters final : public RouteBase {
 public:
  using RouteBase::RouteBase;
  ProfilingRole role() const override { return ProfilingRole::kNone; }
  bool SettleWithoutSession(CallResult* /*call*/) const override { return true; }
  KeyValues BusyContext(const std::string& profiler_status) const override {
    const Settings& settings = services_.settings;
    const std::string why =
        "not measured: it runs with the profiled iterations, and there are none (" +
        (settings.profile_iterations > 0 ? profiler_status : std::string("profile_iterations=0")) +
        ")";
    return {{context_key::kGpuBusy, why}, {context_key::kHostCalls, "not measured"}};
  }
};

// profile_process=same: each call profiles right after its own timed iterations.
class InProcess final : public RouteBase {
 public:
  using RouteBase::RouteBase;
  ProfilingRole role() const override { return ProfilingRole::kInProcess; }
  bool SettleWithoutSession(CallResult* call) const override {
    return services_.policy.CopyCountersForTrial(services_.settings, call->instance,
                                                 call->gpu_seconds, &call->profile);
  }
  bool ChargesProfilingWall() const override { return true; }
  bool ProfilesAfterTiming() const override { return true; }
  KeyValues BusyContext(const std::string& /*profiler_status*/) const override {
    return {{context_key::kGpuBusy, BusyMethod(services_.settings, /*child=*/false)},
            {context_key::kHostCalls,
             "not listed here: profile_process=same measures them after the context is written "
             "(the messages on stderr name them)"}};
  }
};

// The profiling child: calls profile once per instance, hand the session on and are skipped.
class Child final : public RouteBase {
 public:
  using RouteBase::RouteBase;
  ProfilingRole role() const override { return ProfilingRole::kChild; }
  bool TimesCalls() const override { return false; }
  bool AlreadyProfiled(const std::string& instance) const override {
    return services_.pass.Find(instance) != nullptr ||
           services_.pass.ReusedInChild(instance) != nullptr;
  }
  Status EndReusedCall(const CallResult& call, double wall_seconds) const override {
    if (call.reuse.signature) {
      GPUBENCH_RETURN_IF_ERROR(
          services_.pass.StoreReused(call.instance, {*call.reuse.signature, wall_seconds}));
    }
    return Status::Error(kProfilingPassSkip);
  }
  bool SettleWithoutSession(CallResult* /*call*/) const override { return false; }
  bool ChargesProfilingWall() const override { return true; }
  Status EndCall(SharingMonitor& monitor, const CallResult& call) const override {
    GPUBENCH_RETURN_IF_ERROR(
        KeepForTimedPass(monitor, call, services_.profile_log, services_.pass));
    return Status::Error(kProfilingPassSkip);
  }
  KeyValues BusyContext(const std::string& /*profiler_status*/) const override {
    // The child's own context is not the run's (its output goes nowhere).
    return {{context_key::kGpuBusy, BusyMethod(services_.settings, /*child=*/false)},
            {context_key::kHostCalls,
             "not listed here: profile_process=same measures them after the context is written "
             "(the messages on stderr name them)"}};
  }
};

// The parent of the profiling child: calls are timed and take the child's counters.
class Parent final : public RouteBase {
 public:
  using RouteBase::RouteBase;
  ProfilingRole role() const override { return ProfilingRole::kParent; }
  bool SettleWithoutSession(CallResult* call) const override {
    services_.pass.TakeCounters(call->instance, call);
    return true;
  }
  bool LogsFailedSessions() const override { return false; }
  const ChildSignature* ReusedInChild(const std::string& instance) const override {
    return services_.pass.ReusedInChild(instance);
  }
  std::optional<uint64_t> SignedInChild(const std::string& instance) const override {
    const ProfilingPass::Entry* entry = services_.pass.Find(instance);
    return entry != nullptr ? entry->signature : std::nullopt;
  }
  KeyValues BusyContext(const std::string& /*profiler_status*/) const override {
    std::string calls;
    for (const auto& [instance, entry] : services_.pass.entries()) {
      if (entry.busy.iterations == 0 || entry.busy.calls.empty()) continue;
      calls += (calls.empty() ? "" : ";") + instance + "=" + HostCallsText(entry.busy);
    }
    return {{context_key::kGpuBusy, BusyMethod(services_.settings, /*child=*/true)},
            {context_key::kHostCalls, calls.empty() ? "none" : calls}};
  }
};

}  // namespace

std::unique_ptr<CounterRoute> MakeCounterRoute(ProfilingRole role, RouteServices services) {
  switch (role) {
    case ProfilingRole::kNone:
      return std::make_unique<NoCounters>(services);
    case ProfilingRole::kInProcess:
      return std::make_unique<InProcess>(services);
    case ProfilingRole::kChild:
      return std::make_unique<Child>(services);
    case ProfilingRole::kParent:
      return std::make_unique<Parent>(services);
  }
  return std::make_unique<NoCounters>(services);
}

}  // namespace gpubench::detail
