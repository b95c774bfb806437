#include "gpubench/loop.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gpu_sharing.hpp"
#include "instance.hpp"
#include "metrics.hpp"
#include "profile_log.hpp"
#include "runtime.hpp"

namespace gpubench {
namespace detail {

// The loop's state machine. Next() is called before every body execution and once after the
// last; it returns whether the body runs (again). Phases: warm-up (untimed), timed (GB's
// iterations), profiled (CUPTI ranges, after GB's timer has stopped), done.
class IterationController {
 public:
  IterationController(benchmark::State& state, cudaStream_t stream)
      : state_(state), stream_(stream), runtime_(Runtime::Get()) {}

  ~IterationController() {
    // Only reachable with an open range if the body left the loop early (break/return/throw).
    if (range_open_) runtime_.ops().PopRange();
    if (profiling_) runtime_.profiler()->AbortSession();
  }

  bool Next() {
    switch (phase_) {
      case Phase::kStart:
        return Start();
      case Phase::kWarmup:
        return AfterWarmup();
      case Phase::kTimed:
        return AfterTimedBody();
      case Phase::kProfiled:
        return AfterProfiledBody();
      case Phase::kDone:
        return false;
    }
    return false;
  }

 private:
  enum class Phase { kStart, kWarmup, kTimed, kProfiled, kDone };
  // Contended H200 runs were 2.4-2.8x slower; a launch-bound kernel's repetitions vary by ~1.15x.
  static constexpr double kSharedSlowdown = 1.5;
  // Far above any real pass count (11 metrics take 9 passes on GH100): a guard against a
  // profiler that never reports completion.
  static constexpr int kMaxPasses = 1000;

  const Settings& settings() const { return runtime_.settings(); }
  bool flushing() const { return settings().cache == CachePolicy::kFlush; }

  bool Fail(const Status& status) {
    if (status.code() == Status::Code::kContextLost) {
      runtime_.MarkContextLost(name_.empty() ? status.message() : name_ + ": " + status.message());
    }
    if (range_open_) {
      runtime_.ops().PopRange();
      range_open_ = false;
    }
    if (profiling_) {
      runtime_.profiler()->AbortSession();
      profiling_ = false;
    }
    std::string message = "gpubench: " + status.message();
    state_.SkipWithError(message.c_str());
    phase_ = Phase::kDone;
    return false;
  }

  // Checks that make the whole run impossible, in the order a user would fix them.
  Status Admit() {
    if (!runtime_.configured()) {
      return Status::Error(
          "gpubench is not initialized: use GPUBENCH_MAIN() instead of BENCHMARK_MAIN(), or call "
          "gpubench::Initialize(&argc, argv) before benchmark::Initialize, so that the settings "
          "are recorded in the context block");
    }
    // name_ is GB's name for the instance (State::name() from GB 1.8, so a later ->Name() is
    // seen) with its arguments: the NVTX ranges, the profile records and the trial detector all
    // key on it.
    const CurrentInstance& instance = GetCurrentInstance();
    if (instance.family != nullptr) {
      name_ = InstanceName(instance, state_);
    } else if (Status status = NameOfUnregisteredInstance(state_, &name_); !status.ok()) {
      return status;
    }
    std::cerr << runtime_.trials().BeginCall(name_, state_.max_iterations,
                                             instance.own_min_time_seconds);
    if (state_.threads() > 1) {
      return Status::Error(
          "->Threads(" + std::to_string(state_.threads()) +
          ") is not supported: GPU time of one stream cannot be split between host threads; "
          "register GPU benchmarks with one thread (launch more work per iteration instead)");
    }
    const DeviceFacts& facts = runtime_.facts();
    if (!facts.available)
      return Status::Error("no usable CUDA device: " + facts.unavailable_reason);
    if (!runtime_.context_lost_reason().empty()) {
      return Status::Error("skipped: the CUDA context was lost earlier (" +
                           runtime_.context_lost_reason() +
                           "); no GPU work can run in this process any more, fix that benchmark "
                           "or exclude it with --benchmark_filter");
    }
    return Status::Ok();
  }

  bool Start() {
    if (Status status = Admit(); !status.ok()) return Fail(status);
    if (Status status = runtime_.ops().Prepare(stream_, settings().cache); !status.ok()) {
      return Fail(status);
    }
    // After Prepare: this process holds its context, so NVML lists it beside any other.
    if (Status status = LookForOtherWork(/*before_run=*/true); !status.ok()) return Fail(status);
    runtime_.timer().BeginRun();
    phase_ = Phase::kWarmup;
    return BeginUntimed();
  }

  bool BeginUntimed() {
    if (flushing()) {
      if (Status status = runtime_.ops().FlushCache(stream_); !status.ok()) return Fail(status);
    }
    return true;
  }

  bool AfterWarmup() {
    GpuOps& ops = runtime_.ops();
    if (Status status = ops.CheckLaunch(); !status.ok()) return Fail(BodyError(status));
    // Waiting here surfaces the body's asynchronous errors before anything is timed.
    if (Status status = ops.Synchronize(stream_); !status.ok()) return Fail(BodyError(status));
    if (Status status = ops.BeginClockProbe(stream_); !status.ok()) return Fail(status);
    phase_ = Phase::kTimed;
    return BeginTimedIteration();
  }

  bool BeginTimedIteration() {
    if (!state_.KeepRunning()) return FinishTimed();
    GpuOps& ops = runtime_.ops();
    if (flushing()) {
      if (Status status = ops.FlushCache(stream_); !status.ok()) return Fail(status);
    }
    ops.PushRange(name_);
    range_open_ = true;
    // cache=flush: one event pair per iteration. cache=keep: one pair around the whole run.
    if (flushing() || !region_open_) {
      if (Status status = runtime_.timer().Begin(stream_); !status.ok()) return Fail(status);
      region_open_ = true;
    }
    ++iterations_in_region_;
    return true;
  }

  bool AfterTimedBody() {
    GpuOps& ops = runtime_.ops();
    IterationTimer& timer = runtime_.timer();
    Status launch = ops.CheckLaunch();
    const bool last = state_.iterations() >= state_.max_iterations;
    if (flushing() || last) {
      if (Status status = timer.End(stream_); !status.ok()) return Fail(status);
      region_open_ = false;
    }
    ops.PopRange();
    range_open_ = false;
    if (!launch.ok()) return Fail(BodyError(launch));
    times_.clear();
    if (Status status = timer.Collect(last, &times_); !status.ok()) return Fail(BodyError(status));
    for (double seconds : times_) {
      // A region covers one iteration (flush) or the whole run (keep): spread it evenly.
      const int64_t covered = flushing() ? 1 : iterations_in_region_;
      for (int64_t i = 0; i < covered; ++i) state_.SetIterationTime(seconds / covered);
      gpu_seconds_ += seconds;
    }
    return BeginTimedIteration();
  }

  // Other processes on the GPU (NVML) before and after the timed iterations, and a profiler
  // held by another process (CUPTI_ERROR_HARDWARE_BUSY at start): gpu_shared, and what to do
  // about it before the run (--gpubench_exclusive).
  Status LookForOtherWork(bool before_run) {
    if (runtime_.profiler_status().find("HARDWARE_BUSY") != std::string::npos) {
      shared_ = true;
      sharing_known_ = true;
      others_ = "another process profiles this GPU (its performance counters were busy at start)";
    }
    SharingSample sample = runtime_.sharing().Sample();
    std::vector<GpuProcess> others = OtherProcesses(sample, static_cast<unsigned>(::getpid()));
    if (before_run && sample.known && !others.empty() && settings().exclusive == Exclusive::kWait) {
      const auto start = std::chrono::steady_clock::now();
      double waited = 0, last_message = -1;
      while (sample.known && !others.empty() && waited < kExclusiveWaitSeconds) {
        if (waited - last_message >= 10 || last_message < 0) {
          std::cerr << "gpubench: " << name_ << ": waiting for the GPU, used by "
                    << DescribeProcesses(others) << " (" << static_cast<int>(waited) << " s of "
                    << static_cast<int>(kExclusiveWaitSeconds) << " s)\n";
          last_message = waited;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        sample = runtime_.sharing().Sample();
        others = OtherProcesses(sample, static_cast<unsigned>(::getpid()));
        waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    }
    sharing_known_ = sharing_known_ || sample.known;
    if (!sample.known || others.empty()) return Status::Ok();
    const std::string who = DescribeProcesses(others);
    if (before_run && settings().exclusive != Exclusive::kWarn) {
      return Status::Error("the GPU is used by another process: " + who +
                           (settings().exclusive == Exclusive::kWait
                                ? "; still after waiting " +
                                      std::to_string(static_cast<int>(kExclusiveWaitSeconds)) +
                                      " s (--gpubench_exclusive=wait)"
                                : " (--gpubench_exclusive=fail; use warn to run anyway)"));
    }
    shared_ = true;
    if (others_.find(who) == std::string::npos) others_ += (others_.empty() ? "" : "; ") + who;
    return Status::Ok();
  }

  // A repetition far slower than the fastest earlier one of the same instance (same iteration
  // count) is the measurement's own sign of other work on the GPU, also without NVML.
  void NoteSlowRepetition() {
    const int64_t iterations = state_.iterations();
    if (iterations <= 0 || gpu_seconds_ <= 0) return;
    const double per_iteration = gpu_seconds_ / static_cast<double>(iterations);
    const double fastest = runtime_.ExchangeFastestCall(name_, iterations, per_iteration);
    if (fastest <= 0 || per_iteration <= kSharedSlowdown * fastest) return;
    shared_ = true;
    sharing_known_ = true;
    char text[160];
    std::snprintf(text, sizeof(text),
                  "GPU time %.2fx the fastest earlier repetition of this instance (%.4g us vs "
                  "%.4g us per iteration)",
                  per_iteration / fastest, per_iteration * 1e6, fastest * 1e6);
    others_ += (others_.empty() ? "" : "; ") + std::string(text);
  }

  void PublishSharing() {
    if (!sharing_known_) return;  // without NVML nothing is claimed either way
    state_.counters["gpu_shared"] = shared_ ? 1.0 : 0.0;
    if (shared_ && runtime_.TakeSharedWarning()) {
      std::cerr << "gpubench: the GPU is shared: " << others_ << " (seen around " << name_
                << "); times and device-wide counters of such runs may be inflated, so they are "
                   "marked gpu_shared=1 and gpubench-compare does not judge them\n";
    }
  }

  bool FinishTimed() {
    double sm_clock_mhz = 0;
    if (Status status = runtime_.ops().EndClockProbe(stream_, &sm_clock_mhz); !status.ok()) {
      return Fail(status);
    }
    LookForOtherWork(/*before_run=*/false);
    NoteSlowRepetition();
    PublishSharing();
    for (const auto& [name, value] : ClockCounters(sm_clock_mhz, runtime_.facts())) {
      state_.counters[name] = value;
    }
    for (const auto& [kernel, seconds] : runtime_.timer().KernelSeconds()) {
      state_.counters["kernel_time/" + kernel] = seconds / static_cast<double>(state_.iterations());
    }
    return StartProfile();
  }

  bool StartProfile() {
    Profiler* profiler = runtime_.profiler();
    ranges_ = settings().profile_iterations;
    if (profiler == nullptr || ranges_ <= 0) {
      phase_ = Phase::kDone;
      return false;
    }
    if (CopyCountersIntoTrial()) {
      phase_ = Phase::kDone;
      return false;
    }
    profile_start_ = std::chrono::steady_clock::now();
    if (Status status = profiler->BeginSession(stream_, ranges_); !status.ok()) {
      return ProfileFailed(status);
    }
    profiling_ = true;
    phase_ = Phase::kProfiled;
    pass_ = 0;
    return BeginPass();
  }

  // GB discards its iteration-count trials, so a trial takes the counters of the instance's
  // latest profiled call instead of paying for a session (see trial_runs.hpp).
  bool CopyCountersIntoTrial() {
    if (settings().profile_runs != ProfileRuns::kReported) return false;
    if (!runtime_.trials().IsTrial(gpu_seconds_)) return false;
    const Runtime::ProfiledCall* latest = runtime_.LatestProfiledCall(name_);
    if (latest == nullptr) return false;
    for (const auto& [name, value] : latest->counters) state_.counters[name] = value;
    runtime_.trials().NoteCopiedCounters(gpu_seconds_, latest->iterations);
    return true;
  }

  bool BeginPass() {
    ShowProgress();
    if (Status status = runtime_.profiler()->BeginPass(); !status.ok())
      return ProfileFailed(status);
    range_ = 0;
    return BeginProfiledIteration();
  }

  bool BeginProfiledIteration() {
    if (flushing()) {
      if (Status status = runtime_.ops().FlushCache(stream_); !status.ok()) return Fail(status);
    }
    // Unique per range: CUPTI merges ranges that share a name.
    std::string range_name = name_ + "/profiled:" + std::to_string(range_);
    if (Status status = runtime_.profiler()->PushRange(range_name); !status.ok()) {
      return ProfileFailed(status);
    }
    return true;
  }

  bool AfterProfiledBody() {
    Profiler& profiler = *runtime_.profiler();
    Status launch = runtime_.ops().CheckLaunch();
    Status pop = profiler.PopRange();
    if (!launch.ok()) return Fail(BodyError(launch));
    if (!pop.ok()) return ProfileFailed(pop);
    if (++range_ < ranges_) return BeginProfiledIteration();
    bool done = false;
    if (Status status = profiler.EndPass(&done); !status.ok()) return ProfileFailed(status);
    ++pass_;
    if (!done) {
      if (pass_ >= kMaxPasses) {
        return ProfileFailed(Status::Error("CUPTI still wanted passes after " +
                                           std::to_string(pass_) + " replay passes; giving up"));
      }
      return BeginPass();
    }
    ClearProgress();
    std::vector<std::map<std::string, double>> values;
    Status status = profiler.EndSession(&values);
    profiling_ = false;
    if (!status.ok()) return ProfileFailed(status);
    Runtime::ProfiledCall profiled{name_, state_.max_iterations,
                                   DeriveMetricCounters(AverageRanges(values), runtime_.facts())};
    profiled.counters["profile_passes"] = pass_;
    for (const auto& [name, value] : profiled.counters) state_.counters[name] = value;
    runtime_.RememberProfiledCall(std::move(profiled));
    AppendProfileRecord(name_, state_.max_iterations, pass_, ProfileSeconds(), values, "");
    phase_ = Phase::kDone;
    return false;
  }

  // Hardware metrics failed for this run: timing stays valid, so the run is kept without the
  // metric counters, and the reason is printed once per benchmark instance and message.
  bool ProfileFailed(const Status& status) {
    ClearProgress();
    if (status.code() == Status::Code::kContextLost) return Fail(BodyError(status));
    if (profiling_) runtime_.profiler()->AbortSession();
    profiling_ = false;
    static std::set<std::string> reported;
    if (reported.insert(name_ + "\n" + status.message()).second) {
      std::cerr << "gpubench: " << name_ << ": hardware metrics not collected: " << status.message()
                << "\n";
    }
    // Trials of this instance profile again rather than copy counters from an older call.
    runtime_.ForgetProfiledCall();
    AppendProfileRecord(name_, state_.max_iterations, pass_, ProfileSeconds(), {},
                        status.message());
    phase_ = Phase::kDone;
    return false;
  }

  double ProfileSeconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - profile_start_).count();
  }

  Status BodyError(const Status& status) const {
    std::string message = "CUDA error in the benchmark body of " + name_ + ": " + status.message();
    return status.code() == Status::Code::kContextLost ? Status::ContextLost(message)
                                                       : Status::Error(message);
  }

  void ShowProgress() {
    static const bool terminal = isatty(STDERR_FILENO) != 0;
    if (!terminal) return;
    const int total = runtime_.profiler()->PassCount();
    std::fprintf(stderr, "\r\033[K[gpubench] %s: profiling pass %d/%d", name_.c_str(), pass_ + 1,
                 total > 0 ? total : pass_ + 1);
    std::fflush(stderr);
    progress_shown_ = true;
  }

  void ClearProgress() {
    if (!progress_shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    progress_shown_ = false;
  }

  benchmark::State& state_;
  cudaStream_t stream_;
  Runtime& runtime_;
  Phase phase_ = Phase::kStart;
  std::string name_;
  bool range_open_ = false;
  bool region_open_ = false;
  int64_t iterations_in_region_ = 0;
  std::vector<double> times_;
  double gpu_seconds_ = 0;  // what GB compares with min_time (manual time)
  bool profiling_ = false;
  bool progress_shown_ = false;
  bool shared_ = false;         // another process used the GPU around this run
  bool sharing_known_ = false;  // NVML (or the profiler) could tell
  std::string others_;          // who, for the warning
  int ranges_ = 0;
  int range_ = 0;
  int pass_ = 0;
  std::chrono::steady_clock::time_point profile_start_;
};

}  // namespace detail

Loop::Loop(benchmark::State& state, cudaStream_t stream)
    : stream_(stream), controller_(new detail::IterationController(state, stream)) {}

Loop::~Loop() = default;

Loop::Iterator Loop::begin() { return Iterator(controller_.get()); }

Loop::Iterator Loop::end() { return Iterator(nullptr); }

bool Loop::Iterator::operator!=(const Iterator&) const { return controller_->Next(); }

}  // namespace gpubench
