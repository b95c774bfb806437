#include "measure/checks/admission.hpp"

#include <iostream>

#include "gpu/plan/range_names.hpp"
#include "gpu/plan/stream_plan.hpp"
#include "measure/call/instance.hpp"
#include "schema/counter_table.hpp"

namespace gpubench::detail {

Status AdmitCall(benchmark::State& state, const AdmissionServices& services, bool count_call,
                 std::string* name) {
  if (!services.harness.configured()) {
    return Status::Error(
        "gpubench is not initialized: use GPUBENCH_MAIN() instead of BENCHMARK_MAIN(), or call "
        "gpubench::Initialize(&argc, argv) before benchmark::Initialize, so that the settings "
        "are recorded in the context block");
  }
  // Before anything shared is written: GB's threads of such a call all arrive here at once.
  if (state.threads() > 1) {
    return Status::Error(
        "->Threads(" + std::to_string(state.threads()) +
        ") is not supported: GPU time of one stream cannot be split between host threads; "
        "register GPU benchmarks with one thread (launch more work per iteration instead)");
  }
  // GB's name for the instance (State::name() from GB 1.8, so a later ->Name() is seen) with
  // its arguments: the NVTX ranges, the profile records and the trial detector all key on it.
  const CurrentInstance& current = GetCurrentInstance();
  if (current.family != nullptr) {
    *name = InstanceName(current, state);
  } else {
    std::string note;
    GPUBENCH_RETURN_IF_ERROR(NameOfUnregisteredInstance(state, name, &note));
    if (services.policy.FirstTime(note)) std::cerr << note;
  }
  if (services.tagged_device) *name = TagInstanceName(*name, *services.tagged_device);
  if (count_call) {
    std::cerr << services.policy.trials().BeginCall(*name, state.max_iterations,
                                                    current.own_min_time_seconds);
  }
  const DeviceFacts& facts = services.harness.facts();
  if (!facts.available) return Status::Error("no usable CUDA device: " + facts.unavailable_reason);
  if (!services.context_lost_reason.empty()) {
    return Status::Error("skipped: the CUDA context was lost earlier (" +
                         services.context_lost_reason +
                         "); no GPU work can run in this process any more, fix that benchmark "
                         "or exclude it with --benchmark_filter");
  }
  return Status::Ok();
}

UndercountReference UndercountReferenceOf(const CallResult& call) {
  double profiled = 0;
  if (const auto found = call.profile.counters.find(counter::kGpuDuration);
      found != call.profile.counters.end()) {
    profiled = found->second;
  }
  // The profiled ranges leave a scope's work out where they paused for it, as the GPU time does.
  const bool scope_work_only_profiled = call.untimed_scopes > 0 && !call.profile.ranges_paused;
  return ChooseUndercountReference(call.busy.iterations > 0 ? call.busy.busy_seconds : 0, profiled,
                                   scope_work_only_profiled, call.busy_error);
}

Status CheckTimedSpan(const CallResult& call) {
  if (call.iterations <= 0) return Status::Ok();
  const double per_iteration = call.gpu_seconds / static_cast<double>(call.iterations);
  const std::string undercount =
      CheckUndercount(call.instance, per_iteration, UndercountReferenceOf(call));
  return undercount.empty() ? Status::Ok() : Status::Error(undercount);
}

}  // namespace gpubench::detail
