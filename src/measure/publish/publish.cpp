#include "measure/publish/publish.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "common/format.hpp"
#include "gpu/plan/launch_hold.hpp"
#include "measure/call/instance.hpp"
#include "measure/checks/admission.hpp"
#include "measure/checks/sharing_check.hpp"
#include "measure/profiling/busy_phase.hpp"
#include "measure/profiling/metrics.hpp"
#include "schema/counter_sink.hpp"

namespace gpubench::detail {
namespace {

// The row's counters this file writes: the call's own (kCallEnd), and the row's cost (kRowCost).
CounterSink<Writer::kCallEnd> CallEnd(benchmark::State& state) {
  return CounterSink<Writer::kCallEnd>(state.counters);
}
CounterSink<Writer::kRowCost> RowCost(benchmark::State& state) {
  return CounterSink<Writer::kRowCost>(state.counters);
}

void PublishSharing(const CallResult& call, benchmark::State& state, ProfilingPolicy& policy) {
  if (!call.sharing.known) return;  // without NVML nothing is claimed either way
  CallEnd(state).Set<counter::kGpuShared>(call.sharing.shared ? 1.0 : 0.0);
  if (call.sharing.shared && policy.FirstTime("shared:")) {
    std::cerr << "gpubench: the GPU is shared: " << call.sharing.who << " (seen around "
              << call.instance
              << "); times and device-wide counters of such runs may be inflated, so they are "
                 "marked gpu_shared=1 and gpubench-compare does not judge them\n";
  }
}

// Metrics taken after the timed iterations in this process (profile_process=same): the profiler
// was set up here, which slows held short kernels.
void PublishInlineProfiling(const CallResult& call, benchmark::State& state,
                            const PublishServices& services) {
  const auto kind = call.profile.kind;
  if (!services.route.ProfilesAfterTiming()) return;
  if (kind != ProfileOutcome::Kind::kProfiled && kind != ProfileOutcome::Kind::kCopied) return;
  CallEnd(state).Set<counter::kProfiledInline>(1);
  if (services.policy.FirstTime("profiled_inline")) {
    std::cerr << "gpubench: hardware metrics are profiled in this process after each timed run "
                 "(--gpubench_profile_process=same): CUPTI's profiler is set up here, and held "
                 "short kernels time 5-10% slower than with metrics off; rows are marked "
                 "profiled_inline=1. The default, profile_process=child, profiles in a child "
                 "process before timing\n";
  }
}

// Metrics left out of the counters (they cannot be put together from the parts of an iteration
// that gpubench::UntimedScope split), said once per benchmark.
void PublishProfileNote(const CallResult& call, ProfilingPolicy& policy) {
  const std::string& note = call.profile.note;
  if (!note.empty() && policy.FirstTime("profile_note:" + call.instance + "\n" + note)) {
    std::cerr << "gpubench: " << call.instance << ": " << note << "\n";
  }
}

void PublishProfile(const CallResult& call, benchmark::State& state,
                    const PublishServices& services) {
  const ProfileOutcome& profile = call.profile;
  for (const auto& [name, value] : profile.counters) state.counters[name] = value;
  PublishInlineProfiling(call, state, services);
  switch (profile.kind) {
    case ProfileOutcome::Kind::kNone:
      return;
    case ProfileOutcome::Kind::kProfiled:
      PublishProfileNote(call, services.policy);
      services.policy.RememberProfiledCall({call.instance, call.iterations, profile.counters});
      services.profile_log.Append(call.instance, call.iterations, profile.passes, profile.seconds,
                                  profile.ranges, "", profile.note);
      return;
    case ProfileOutcome::Kind::kCopied:
      services.policy.trials().NoteCopiedCounters(call.gpu_seconds, profile.copied_from_iterations);
      return;
    case ProfileOutcome::Kind::kFromPass:
      PublishProfileNote(call, services.policy);
      return;  // the profiling pass wrote the log
    case ProfileOutcome::Kind::kFailed:
      if (services.policy.FirstTime("metrics:" + call.instance + "\n" + profile.error)) {
        std::cerr << "gpubench: " << call.instance
                  << ": hardware metrics not collected: " << profile.error << "\n";
      }
      if (!services.route.LogsFailedSessions()) return;
      services.policy.ForgetProfiledCall();
      services.profile_log.Append(call.instance, call.iterations, profile.passes, profile.seconds,
                                  {}, profile.error);
      return;
  }
}

// cache=flush: 1 when every timed body ran behind a hold, 0 when the body waits for the GPU
// (then the host's launch pace is inside the timed region, as in a plain event pair).
void PublishLaunchHold(const CallResult& call, benchmark::State& state, ProfilingPolicy& policy) {
  if (call.launch_hold == LaunchHold::kNotApplicable) return;
  const bool held = call.launch_hold == LaunchHold::kHeld;
  CallEnd(state).Set<counter::kLaunchHeld>(held ? 1.0 : 0.0);
  if (call.launch_hold == LaunchHold::kShared) {
    if (policy.FirstTime("launch_held:shared")) {
      std::cerr << "gpubench: " << call.instance
                << ": another process uses the GPU, so the timed iterations run without stream "
                   "holds (launch_held=0) while it is there: a held iteration waits for the GPU "
                   "twice, and each wait would last until the other process's time slice ends. "
                   "Such rows are marked gpu_shared=1; --gpubench_exclusive=wait waits for a "
                   "free GPU instead\n";
    }
    return;
  }
  if (!held && policy.FirstTime("launch_held:" + call.instance)) {
    std::cerr << "gpubench: " << call.instance << ": the loop body waits for the GPU ("
              << (call.streams.waits_for_gpu.empty()
                      ? "a stream hold timed out after " + std::to_string(kHoldTimeoutMs) + " ms"
                      : "its warm-up called " + call.streams.waits_for_gpu)
              << "), so its launches are timed without holds (launch_held=0): the host's "
                 "launch time may enter the GPU time of short kernels. Remove the "
                 "synchronization from the loop body to get launch_held=1\n";
  }
}

// Work on streams besides the timed one: counted, and said once per set of streams.
void PublishStreams(const CallResult& call, benchmark::State& state, ProfilingPolicy& policy) {
  if (!call.streams.known) return;  // no stream watch: nothing is claimed
  const size_t joined = call.streams.joined.size();
  CallEnd(state).Set<counter::kStreamsJoined>(static_cast<double>(joined));
  if (joined > 0 && policy.FirstTime("streams:" + call.streams.note)) {
    std::cerr << "gpubench: " << call.instance << ": the body also puts GPU work on "
              << call.streams.note << "; each timed span waits for it (streams_joined=" << joined
              << "), so the GPU time runs from the span's start to the end of the last "
                 "stream's work. Launching on the stream given to gpubench::Loop(state, "
                 "stream) saves the join's events\n";
  }
}

// The busy measurement: how much of the GPU time the GPU's own work fills, and, when far from
// all of it, which host calls inside the loop it waited for.
void PublishBusy(const CallResult& call, benchmark::State& state, ProfilingPolicy& policy) {
  if (call.busy.iterations == 0 || call.iterations == 0 || call.gpu_seconds <= 0) return;
  const double per_iteration = call.gpu_seconds / static_cast<double>(call.iterations);
  CallEnd(state).Set<counter::kGpuBusyTime>(call.busy.busy_seconds);
  // CUPTI's tracing slows memory-bound kernels (H200: +2-9%), so the traced iterations' busy
  // time can exceed the untraced GPU time; the GPU was then busy for all of it.
  CallEnd(state).Set<counter::kGpuBusyPct>(
      std::min(100.0, 100 * call.busy.busy_seconds / per_iteration));
  CallEnd(state).Set<counter::kGpuWorkItems>(call.busy.work_items);
  // Shared runs are slow for another reason, which their own message names.
  if (call.sharing.shared) return;
  const std::string message =
      BusyMessage(call.instance, per_iteration, call.busy, call.launch_hold == LaunchHold::kHeld);
  if (!message.empty() && policy.FirstTime("busy:" + call.instance)) {
    std::cerr << "gpubench: " << message << "\n";
  }
}

// A row held against its profiled duration (no busy time) passed a coarser missed-work check
// than the busy time allows: it says what that check cannot see, once per reason.
void PublishUndercountReach(const CallResult& call, ProfilingPolicy& policy) {
  const std::string blind_spot = UndercountReferenceOf(call).blind_spot;
  if (!blind_spot.empty() && policy.FirstTime("undercount:" + blind_spot)) {
    std::cerr << "gpubench: " << call.instance << ": " << blind_spot << "\n";
  }
}

// NVML's view of the timed iterations, and why a throttled clock (sm_clock_throttled) was low.
void PublishThermal(const CallResult& call, bool throttled, benchmark::State& state,
                    const PublishServices& services) {
  ProfilingPolicy& policy = services.policy;
  if (call.thermal_wait) {
    const ThermalWait& wait = *call.thermal_wait;
    if (!wait.known) {
      if (policy.FirstTime("thermal_wait:unknown")) {
        std::cerr << "gpubench: --gpubench_thermal=wait cannot read the GPU's temperature ("
                  << wait.unknown_reason << "): the benchmarks run without waiting\n";
      }
    } else {
      CallEnd(state).Set<counter::kThermalWaitTime>(wait.waited_seconds);
      if (wait.timed_out && policy.FirstTime("thermal_wait:" + call.instance)) {
        std::cerr << "gpubench: " << call.instance << ": --gpubench_thermal=wait: after "
                  << FormatSeconds(wait.waited_seconds) << " the GPU is at "
                  << FormatValue(wait.temperature_c, CounterUnit::kCelsius) << " (target "
                  << FormatValue(wait.target_c, CounterUnit::kCelsius) << "), clock-event reasons: "
                  << DescribeClockEventReasons(wait.clock_event_reasons)
                  << "; timed anyway (thermal_wait_time)\n";
      }
    }
  }
  const ThermalSummary& thermal = call.thermal;
  const DeviceFacts& facts = services.facts;
  if (throttled && policy.FirstTime("throttled:" + call.instance)) {
    std::cerr << "gpubench: " << call.instance << ": the SM clock averaged "
              << FormatValue(call.sm_clock_mhz, CounterUnit::kMegahertz) << ", below "
              << static_cast<int>(100 * kThrottleFraction) << "% of the rated "
              << FormatValue(facts.sm_clock_rated_mhz, CounterUnit::kMegahertz)
              << " (sm_clock_throttled=1); ";
    if (!thermal.known) {
      std::cerr << "NVML could not say why (" << thermal.unknown_reason << ")\n";
    } else if (!thermal.reasons_known) {
      std::cerr << "this driver's NVML reports no clock-event reasons\n";
    } else {
      std::cerr << "NVML's clock-event reasons during the timed iterations: "
                << DescribeClockEventReasons(thermal.clock_event_reasons) << " (GPU "
                << FormatValue(thermal.temperature_start_c, CounterUnit::kCelsius) << " to "
                << FormatValue(thermal.temperature_end_c, CounterUnit::kCelsius)
                << "; clock_event_reasons)\n";
    }
  }
}

// How precise the repetition's mean is: its own samples, and the spread between the instance's
// repetitions so far (sample_series.hpp). A trial call of GB's rule is no repetition; the
// others of an instance share one sample count, which keeps a stray call of another count out.
void PublishPrecision(const CallResult& call, bool trial, benchmark::State& state,
                      const PublishServices& services) {
  const std::optional<MeanVariance> own = call.samples.VarianceOfMean();
  if (!own) return;
  const RepetitionMean current{call.samples.count(), call.samples.mean(), *own};
  std::vector<RepetitionMean> so_far;
  if (!trial) {
    std::vector<RepetitionMean>& history = services.repetition_means[call.instance];
    history.push_back(current);
    for (const RepetitionMean& rep : history) {
      if (rep.samples == current.samples) so_far.push_back(rep);
    }
  } else {
    so_far.push_back(current);
  }
  if (const auto half_width = RelativeHalfWidthBetweenCalls(current, so_far)) {
    CallEnd(state).Set<counter::kPrecisionPct>(100 * *half_width);
  }
  if (so_far.size() >= 2) {
    CallEnd(state).Set<counter::kCallSpreadPct>(100 * RelativeSpreadBetweenCalls(so_far));
  }
}

// How the timed samples ended, how precise their mean is, and what the call cost.
void PublishSampling(const CallResult& call, benchmark::State& state,
                     const PublishServices& services) {
  if (call.stop_reason) {
    CallEnd(state).Set<counter::kStopReason>(static_cast<double>(*call.stop_reason));
  }
  const CurrentInstance& current = GetCurrentInstance();
  // GB grows the count only under its own rule without an explicit count.
  const bool grown = !current.gpubench_stops && !current.own_iterations;
  const bool trial = grown && services.policy.trials().IsDiscarded(call.gpu_seconds);
  PublishPrecision(call, trial, state, services);
  PublishSignature(call, trial, state, services);
  CallEnd(state).Set<counter::kWallWarmup>(call.wall_warmup_seconds);
  CallEnd(state).Set<counter::kWallTimed>(call.wall_timed_seconds);
  CallEnd(state).Set<counter::kWallProfiling>(call.wall_profiling_seconds);
  const bool here = services.route.ProfilesAfterTiming();
  if (const auto row = services.cost.LoopDone(call, trial, current.family != nullptr, here)) {
    RowCost(state).Set<counter::kWallTime>(row->wall_seconds);
    RowCost(state).Set<counter::kSamples>(static_cast<double>(row->samples));
  }
}

}  // namespace

void Publish(const CallResult& call, benchmark::State& state, const PublishServices& services) {
  // What the stages measured: each name was written through CounterSink<Writer::kCallEnd>, whose
  // static_asserts checked it against the table.
  for (const auto& [name, value] : call.measured) CallEnd(state).SetFromTable(name, value);
  PublishSharing(call, state, services.policy);
  PublishLaunchHold(call, state, services.policy);
  PublishStreams(call, state, services.policy);
  PublishBusy(call, state, services.policy);
  PublishUndercountReach(call, services.policy);
  const auto clock = ClockCounters(call.sm_clock_mhz, services.facts);
  PublishThermal(call, clock.at(counter::kSmClockThrottled) != 0, state, services);
  for (const auto& [name, value] : clock) state.counters[name] = value;
  for (const auto& [kernel, seconds] : call.kernel_seconds) {
    CallEnd(state).SetUnder<counter::kKernelTimePrefix>(
        kernel, seconds / static_cast<double>(call.iterations));
  }
  PublishProfile(call, state, services);
  PublishSampling(call, state, services);
  if (call.timed_cpu_seconds >= 0) {
    services.timed_cpu.Record(call.instance, call.iterations, call.timed_cpu_seconds);
  }
  services.timed_gpu.Record(call.instance, call.iterations, call.gpu_seconds);
}

Status KeepForTimedPass(SharingMonitor& monitor, const CallResult& call, ProfileLog& profile_log,
                        ProfilingPass& pass) {
  ProfilingPass::Entry entry{
      call.profile,
      call.sharing,
      call.busy,
      call.busy_error,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - call.loop_start).count(),
      std::nullopt};
  NoteOtherProcesses(monitor, &entry.sharing);
  // The parent compares it with its own: work that differs between two processes of one run
  // cannot be told apart from a change in the next (call_reuse.hpp, SignCall).
  if (call.reuse.unsigned_why.empty()) entry.signature = call.reuse.signature;
  entry.profile.ranges.clear();  // the log keeps them; the timed calls need the counters
  // Iterations 0: the session belongs to no GB call but to every timed call of the instance.
  profile_log.Append(call.instance, 0, call.profile.passes, call.profile.seconds,
                     call.profile.ranges, call.profile.error, call.profile.note);
  return pass.Store(call.instance, std::move(entry));
}

}  // namespace gpubench::detail
