#include "measure/publish.hpp"

#include <iostream>

#include "gpu/launch_hold.hpp"
#include "measure/metrics.hpp"

namespace gpubench::detail {
namespace {

void PublishSharing(const CallResult& call, benchmark::State& state, ProfilingPolicy& policy) {
  if (!call.sharing.known) return;  // without NVML nothing is claimed either way
  state.counters["gpu_shared"] = call.sharing.shared ? 1.0 : 0.0;
  if (call.sharing.shared && policy.FirstTime("shared:")) {
    std::cerr << "gpubench: the GPU is shared: " << call.sharing.who << " (seen around "
              << call.instance
              << "); times and device-wide counters of such runs may be inflated, so they are "
                 "marked gpu_shared=1 and gpubench-compare does not judge them\n";
  }
}

void PublishProfile(const CallResult& call, benchmark::State& state, ProcessState& process) {
  const ProfileOutcome& profile = call.profile;
  for (const auto& [name, value] : profile.counters) state.counters[name] = value;
  switch (profile.kind) {
    case ProfileOutcome::Kind::kNone:
      return;
    case ProfileOutcome::Kind::kProfiled:
      process.policy.RememberProfiledCall({call.instance, call.iterations, profile.counters});
      process.profile_log.Append(call.instance, call.iterations, profile.passes, profile.seconds,
                                 profile.ranges, "");
      return;
    case ProfileOutcome::Kind::kCopied:
      process.policy.trials().NoteCopiedCounters(call.gpu_seconds, profile.copied_from_iterations);
      return;
    case ProfileOutcome::Kind::kFailed:
      if (process.policy.FirstTime("metrics:" + call.instance + "\n" + profile.error)) {
        std::cerr << "gpubench: " << call.instance
                  << ": hardware metrics not collected: " << profile.error << "\n";
      }
      process.policy.ForgetProfiledCall();
      process.profile_log.Append(call.instance, call.iterations, profile.passes, profile.seconds,
                                 {}, profile.error);
      return;
  }
}

// cache=flush: 1 when every timed body ran behind a hold, 0 when the body waits for the GPU
// (then the host's launch pace is inside the timed region, as in a plain event pair).
void PublishLaunchHold(const CallResult& call, benchmark::State& state, ProfilingPolicy& policy) {
  if (call.launch_hold == LaunchHold::kNotApplicable) return;
  const bool held = call.launch_hold == LaunchHold::kHeld;
  state.counters["launch_held"] = held ? 1.0 : 0.0;
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
    std::cerr << "gpubench: " << call.instance
              << ": the loop body waits for the GPU (a stream hold timed out after "
              << kHoldTimeoutMs
              << " ms), so its launches are timed without holds (launch_held=0): the host's "
                 "launch time may enter the GPU time of short kernels. Remove the "
                 "synchronization from the loop body to get launch_held=1\n";
  }
}

// Work on streams besides the timed one: counted, and said once per set of streams.
void PublishStreams(const CallResult& call, benchmark::State& state, ProfilingPolicy& policy) {
  if (!call.streams.known) return;  // no stream watch: nothing is claimed
  const size_t joined = call.streams.joined.size();
  state.counters["streams_joined"] = static_cast<double>(joined);
  if (joined > 0 && policy.FirstTime("streams:" + call.streams.note)) {
    std::cerr << "gpubench: " << call.instance << ": the body also puts GPU work on "
              << call.streams.note << "; each timed span waits for it (streams_joined=" << joined
              << "), so the GPU time runs from the span's start to the end of the last "
                 "stream's work. Launching on the stream given to gpubench::Loop(state, "
                 "stream) saves the join's events\n";
  }
}

}  // namespace

void Publish(const CallResult& call, benchmark::State& state, ProcessState& process) {
  PublishSharing(call, state, process.policy);
  PublishLaunchHold(call, state, process.policy);
  PublishStreams(call, state, process.policy);
  for (const auto& [name, value] : ClockCounters(call.sm_clock_mhz, process.harness.facts())) {
    state.counters[name] = value;
  }
  for (const auto& [kernel, seconds] : call.kernel_seconds) {
    state.counters["kernel_time/" + kernel] = seconds / static_cast<double>(call.iterations);
  }
  PublishProfile(call, state, process);
}

}  // namespace gpubench::detail
