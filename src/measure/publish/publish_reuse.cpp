// The counters of the work signature and of --gpubench_reuse (publish.hpp): a measured call's
// signature, and a reused call's row, which carries its source row's values.
#include <chrono>
#include <iostream>
#include <set>
#include <string>

#include "gpu/plan/work_signature.hpp"
#include "gpubench/counters.hpp"
#include "measure/call/instance.hpp"
#include "measure/publish/publish.hpp"
#include "schema/counter_sink.hpp"

namespace gpubench::detail {
namespace {

// What a reused row does not copy from its source: what this run spent, the reuse counters
// themselves, and what GB and the benchmark function write again after the loop.
bool WrittenByThisRun(const std::string& name) {
  static const std::set<std::string> names = {
      counter::kWallTime,       counter::kSamples,        counter::kWallWarmup,
      counter::kWallTimed,      counter::kWallProfiling,  counter::kWorkSignature,
      counter::kReuseStatus,    counter::kReusedRuns,     counter::kMeasuredAt,
      counter::kBytesPerSecond, counter::kItemsPerSecond, counter::kTimingPaused};
  return names.count(name) != 0;
}

void CountRow(const CallResult& call, bool trial, ReuseState& reuse) {
  if (!trial) ++reuse.rows_published[call.instance];
}

}  // namespace

void PublishSignature(const CallResult& call, bool trial, benchmark::State& state,
                      const PublishServices& services) {
  if (!services.reuse.signing) return;  // --gpubench_signature=off writes none of these
  CounterSink<Writer::kCallEnd> out(state.counters);
  if (!services.reuse.on) {
    // Signed for a later run's --gpubench_reuse, nothing decided. Work not signed whole carries
    // no signature: a later run then measures it ("changed"), and its own row says unsigned.
    if (call.reuse.signature && call.reuse.unsigned_why.empty()) {
      out.Set<counter::kWorkSignature>(static_cast<double>(*call.reuse.signature));
    }
    CountRow(call, trial, services.reuse);
    return;
  }
  if (call.reuse.signature) {
    out.Set<counter::kWorkSignature>(static_cast<double>(*call.reuse.signature));
  }
  out.Set<counter::kMeasuredAt>(UnixSeconds());
  if (const auto& decision = call.reuse.decision) {
    out.Set<counter::kReuseStatus>(decision->status);
    out.Set<counter::kReusedRuns>(0);
    // One line per instance and reason, on stderr, so that a CI log says why a row cost GPU
    // time; a reason of the whole run was said once by Initialize.
    const bool whole_run = decision->status == 8 || decision->status == 9;
    if (!trial && !whole_run &&
        services.policy.FirstTime("reuse: " + call.instance + ": " + decision->why)) {
      std::cerr << "gpubench: reuse: " << call.instance << " measured ("
                << ReuseStatusNameOf(decision->status) << "): " << decision->why << "\n";
    }
  }
  CountRow(call, trial, services.reuse);
}

void PublishReused(const CallResult& call, benchmark::State& state,
                   const PublishServices& services) {
  const ReuseDecision& decision = *call.reuse.decision;
  const std::optional<ChildSignature>& child = call.reuse.from_child;
  for (const auto& [name, value] : decision.row->counters) {
    // The function that declares its bytes and items after the loop did not run: GB's rates
    // come from the source too, as values (the declared totals are the source's already).
    const bool declared_rate = name == counter::kBytesPerSecond || name == counter::kItemsPerSecond;
    if (!WrittenByThisRun(name) || (child && declared_rate)) {
      state.counters[name] = benchmark::Counter(value);
    }
  }
  CounterSink<Writer::kCallEnd> out(state.counters);
  if (call.reuse.signature) {
    out.Set<counter::kWorkSignature>(static_cast<double>(*call.reuse.signature));
  }
  out.Set<counter::kReuseStatus>(decision.status);
  out.Set<counter::kReusedRuns>(decision.reused_runs);
  out.Set<counter::kMeasuredAt>(decision.measured_at);
  // The whole call was its set-up and the signature's body.
  const double spent =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - call.loop_start).count();
  out.Set<counter::kWallWarmup>(spent);
  out.Set<counter::kWallTimed>(0);
  // Reused on the child's signature: the child's call (set-up and signature body) is what this
  // run spent on the row, besides the loop here.
  CallResult charged = call;
  charged.wall_profiling_seconds = child ? child->wall_seconds : 0;
  out.Set<counter::kWallProfiling>(charged.wall_profiling_seconds);
  const CurrentInstance& current = GetCurrentInstance();
  const bool grown = !current.gpubench_stops && !current.own_iterations;
  const bool trial = grown && services.policy.trials().IsDiscarded(call.gpu_seconds);
  if (const auto row = services.cost.LoopDone(charged, trial, current.family != nullptr, false)) {
    CounterSink<Writer::kRowCost> cost(state.counters);
    cost.Set<counter::kWallTime>(row->wall_seconds);
    cost.Set<counter::kSamples>(static_cast<double>(row->samples));
  }
  services.timed_gpu.Record(call.instance, call.iterations, call.gpu_seconds);
  CountRow(call, trial, services.reuse);
}

}  // namespace gpubench::detail
