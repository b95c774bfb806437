#include "measure/checks/sharing_check.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include "common/environment.hpp"
#include "gpu/plan/flush.hpp"

namespace gpubench::detail {
namespace {

std::vector<GpuProcess> Others(const SharingSample& sample) {
  return OtherProcesses(sample, OwnGpuProcesses());
}

// A profiler held by another process (CUPTI_ERROR_HARDWARE_BUSY at start).
void NoteBusyProfiler(const std::string& profiler_status, SharingVerdict* verdict) {
  if (profiler_status.find("HARDWARE_BUSY") == std::string::npos) return;
  verdict->shared = true;
  verdict->known = true;
  verdict->Add("another process profiles this GPU (its performance counters were busy at start)");
}

// --gpubench_exclusive=wait: samples until the others leave or the wait is over.
SharingSample WaitForOthers(SharingMonitor& monitor, SharingSample sample,
                            const std::string& instance) {
  const auto start = std::chrono::steady_clock::now();
  double waited = 0, last_message = -1;
  std::vector<GpuProcess> others = Others(sample);
  while (sample.known && !others.empty() && waited < kExclusiveWaitSeconds) {
    if (waited - last_message >= 10 || last_message < 0) {
      std::cerr << "gpubench: " << instance << ": waiting for the GPU, used by "
                << DescribeProcesses(others) << " (" << static_cast<int>(waited) << " s of "
                << static_cast<int>(kExclusiveWaitSeconds) << " s)\n";
      last_message = waited;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    sample = monitor.Sample();
    others = Others(sample);
    waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return sample;
}

}  // namespace

std::vector<unsigned> OwnGpuProcesses() {
  std::vector<unsigned> own = {static_cast<unsigned>(::getpid())};
  // The profiling child's parent waits for the child; it holds a context then only where the
  // program touched CUDA before gpubench::Initialize. Either way it is gpubench's own.
  if (!ProfilingChildFile().empty()) own.push_back(static_cast<unsigned>(::getppid()));
  return own;
}

double SharingHistory::ExchangeFastestCall(const std::string& instance, int64_t iterations,
                                           double seconds) {
  auto& [count, fastest] = fastest_calls_[instance];
  const double earlier = count == iterations ? fastest : 0;
  if (count != iterations || seconds < fastest) {
    count = iterations;
    fastest = seconds;
  }
  return earlier;
}

Status CheckBeforeRun(SharingMonitor& monitor, const Settings& settings,
                      const std::string& profiler_status, const std::string& instance,
                      SharingVerdict* verdict) {
  NoteBusyProfiler(profiler_status, verdict);
  SharingSample sample = monitor.Sample();
  if (sample.known && !Others(sample).empty() && settings.exclusive == Exclusive::kWait) {
    sample = WaitForOthers(monitor, sample, instance);
  }
  verdict->known = verdict->known || sample.known;
  const std::vector<GpuProcess> others = Others(sample);
  if (!sample.known || others.empty()) return Status::Ok();
  const std::string who = DescribeProcesses(others);
  if (settings.exclusive == Exclusive::kFail) {
    return Status::Error("the GPU is used by another process: " + who +
                         " (--gpubench_exclusive=fail; use warn to run anyway)");
  }
  if (settings.exclusive == Exclusive::kWait) {
    return Status::Error("the GPU is used by another process: " + who + "; still after waiting " +
                         std::to_string(static_cast<int>(kExclusiveWaitSeconds)) +
                         " s (--gpubench_exclusive=wait)");
  }
  verdict->shared = true;
  verdict->Add(who);
  return Status::Ok();
}

bool NoteOtherProcesses(SharingMonitor& monitor, SharingVerdict* verdict) {
  const SharingSample sample = monitor.Sample();
  verdict->known = verdict->known || sample.known;
  const std::vector<GpuProcess> others = Others(sample);
  if (!sample.known || others.empty()) return false;
  verdict->shared = true;
  verdict->Add(DescribeProcesses(others));
  return true;
}

void CheckAfterRun(SharingMonitor& monitor, SharingHistory& history, const CallResult& call,
                   SharingVerdict* verdict) {
  NoteOtherProcesses(monitor, verdict);
  // The measurement's own sign of other work, also without NVML.
  if (call.iterations <= 0 || call.gpu_seconds <= 0) return;
  const double per_iteration = call.gpu_seconds / static_cast<double>(call.iterations);
  const double fastest = history.ExchangeFastestCall(call.instance, call.iterations, per_iteration);
  if (fastest <= 0 || per_iteration <= kSharedSlowdown * fastest) return;
  verdict->shared = true;
  verdict->known = true;
  char text[160];
  std::snprintf(text, sizeof(text),
                "GPU time %.2fx the fastest earlier repetition of this instance (%.4g us vs "
                "%.4g us per iteration)",
                per_iteration / fastest, per_iteration * 1e6, fastest * 1e6);
  verdict->who += (verdict->who.empty() ? "" : "; ") + std::string(text);
}

HeldIterationWatch::HeldIterationWatch(SharingMonitor& monitor, double expected_flush_seconds,
                                       double now_seconds)
    : monitor_(monitor),
      slow_flush_seconds_(4 * expected_flush_seconds + 0.5e-3),
      next_poll_seconds_(now_seconds + kSharingPollSeconds) {}

std::string HeldIterationWatch::AfterHeldIteration(double flush_wait_seconds, double now_seconds) {
  waits_.push_back(flush_wait_seconds);
  slow_in_window_ += flush_wait_seconds > slow_flush_seconds_;
  if (static_cast<int>(waits_.size()) > kFlushWaitWindow) {
    slow_in_window_ -= waits_.front() > slow_flush_seconds_;
    waits_.pop_front();
  }
  if (now_seconds >= next_poll_seconds_) {
    next_poll_seconds_ = now_seconds + kSharingPollSeconds;
    const SharingSample sample = monitor_.Sample();
    if (const std::vector<GpuProcess> others = Others(sample); sample.known && !others.empty()) {
      return DescribeProcesses(others);
    }
  }
  if (slow_in_window_ < kSlowFlushWaitsInWindow) return "";
  std::vector<double> sorted(waits_.begin(), waits_.end());
  std::sort(sorted.begin(), sorted.end());
  char text[220];
  std::snprintf(text, sizeof(text),
                "%d of the last %d L2 flushes took over %.2g ms to finish (median %.3g ms; the "
                "flush needs about %.2g ms): another context is using the GPU",
                slow_in_window_, static_cast<int>(waits_.size()), slow_flush_seconds_ * 1e3,
                sorted[sorted.size() / 2] * 1e3, (slow_flush_seconds_ - 0.5e-3) / 4 * 1e3);
  return text;
}

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

HeldIterationWatch WatchHeldIterations(SharingMonitor& monitor, const DeviceFacts& facts) {
  const double bandwidth = facts.DramBandwidthBytesPerSecond();
  const double expected_flush =
      bandwidth > 0 ? static_cast<double>(FlushBytes(facts.l2_bytes)) / bandwidth : 0;
  return HeldIterationWatch(monitor, expected_flush, SteadySeconds());
}

bool NeighbourAfterHeldIteration(HeldIterationWatch& watch, double flush_wait_seconds,
                                 CallResult* call) {
  const std::string other = watch.AfterHeldIteration(flush_wait_seconds, SteadySeconds());
  if (other.empty()) return false;
  call->sharing.shared = true;
  call->sharing.known = true;
  call->sharing.Add(other);
  return true;
}

}  // namespace gpubench::detail
