// Fakes behind the loop's GPU interfaces: they record what the loop asked for in one shared log
// (the test's body writes to it too) and return programmed results.
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gpu/backend.hpp"
#include "measure/process/process_state.hpp"

namespace gpubench::testing {

using detail::Status;

struct Log {
  std::vector<std::string> events;
  void Add(const std::string& event) { events.push_back(event); }
  int Count(const std::string& event) const {
    int n = 0;
    for (const auto& e : events) n += e == event;
    return n;
  }
};

class FakeOps : public detail::GpuOps {
 public:
  explicit FakeOps(Log* log) : log_(log) {}
  Status Prepare(cudaStream_t) override {
    log_->Add("prepare");
    return prepare_result;
  }
  // Counted, not logged: the log shows one "prepare" per call, whatever the cache policy.
  Status PrepareFlush(cudaStream_t) override {
    ++flush_prepares;
    return Status::Ok();
  }
  Status FlushCache(cudaStream_t) override {
    log_->Add("flush");
    return Status::Ok();
  }
  Status TakeLastError() override {
    Status error = pending_error;
    pending_error = Status::Ok();
    return error;
  }
  Status CheckLaunch() override {
    ++checks;
    if (!pending_error.ok()) {  // CUDA's last error: read once, then cleared
      Status error = pending_error;
      pending_error = Status::Ok();
      return error;
    }
    if (fail_check_at > 0 && checks == fail_check_at) return check_failure;
    return Status::Ok();
  }
  Status Synchronize(cudaStream_t) override {
    log_->Add("sync");
    if (sync_seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(sync_seconds));
    return Status::Ok();
  }
  Status BeginClockProbe(cudaStream_t) override {
    log_->Add("probe_begin");
    return Status::Ok();
  }
  Status EndClockProbe(cudaStream_t, double* mhz) override {
    log_->Add("probe_end");
    *mhz = clock_mhz;
    return Status::Ok();
  }
  void PushRange(const std::string& name) override { log_->Add("push " + name); }
  void PopRange() override { log_->Add("pop"); }
  Status HoldStream(cudaStream_t) override {
    log_->Add("hold");
    held = true;
    ++holds;
    if (time_out_after_holds > 0 && holds > time_out_after_holds) timed_out_ = true;
    return Status::Ok();
  }
  void ReleaseStream() override {
    if (!held) return;
    log_->Add("release");
    held = false;
  }
  Status ForkStreams(cudaStream_t, const std::vector<detail::StreamHandle>& others) override {
    if (!others.empty()) log_->Add("fork " + std::to_string(others.size()));
    return Status::Ok();
  }
  Status JoinStreams(cudaStream_t, const std::vector<detail::StreamHandle>& others) override {
    if (!others.empty()) log_->Add("join " + std::to_string(others.size()));
    return Status::Ok();
  }
  bool TakeHoldTimedOut() override {
    const bool timed_out = hold_times_out || timed_out_;
    timed_out_ = false;
    if (timed_out) log_->Add("hold_timed_out");
    return timed_out;
  }

  bool held = false;
  /// Every hold ends by its timeout (a body that waits for the GPU).
  bool hold_times_out = false;
  /// Holds after the first N time out (a body that waits for the GPU only later).
  int time_out_after_holds = 0;
  int holds = 0;
  int flush_prepares = 0;
  Status prepare_result;
  int checks = 0;
  int fail_check_at = 0;  // 1-based CheckLaunch call that fails
  Status pending_error;   // a failed CUDA call's error, kept until CheckLaunch reads it
  Status check_failure;
  double clock_mhz = 1900.0;
  /// Every Synchronize takes this long (a GPU that another context keeps busy).
  double sync_seconds = 0;

 private:
  bool timed_out_ = false;
  Log* log_;
};

// The body's streams, scripted: every watched body reports `uses` (the shared log is left
// alone; fork and join show there when streams are joined).
// The work signature's recorder: each recording ends with `record` (watched, its items).
class FakeWorkRecorder : public detail::WorkRecorder {
 public:
  explicit FakeWorkRecorder(Log* log) : log_(log) {}
  detail::WorkRecord record{true, {"kernel fake_kernel grid 1,1,1 block 32,1,1"}, ""};
  std::string UnavailableReason() const override { return ""; }
  void Begin() override {
    recording_ = true;
    log_->Add("work_begin");
  }
  bool recording() const override { return recording_; }
  detail::WorkRecord End() override {
    recording_ = false;
    log_->Add("work_end");
    return record;
  }
  void WatchModules(bool /*on*/) override {}
  void Hold(bool /*on*/) override {}

 private:
  Log* log_;
  bool recording_ = false;
};

class FakeStreamWatch : public detail::StreamWatch {
 public:
  std::string UnavailableReason() const override { return unavailable; }
  void BeginBody() override { ++bodies; }
  std::vector<detail::StreamUse> EndBody() override { return uses; }
  std::vector<detail::StreamWait> Waits() const override { return waits; }
  std::vector<detail::StreamUse> uses;
  std::vector<detail::StreamWait> waits;  ///< the body's waits for GPU work
  std::string unavailable;
  int bodies = 0;  ///< bodies watched
};

class FakeTimer : public detail::IterationTimer {
 public:
  explicit FakeTimer(Log* log) : log_(log) {}
  Status Reserve() override {
    ++reserves;
    return Status::Ok();
  }
  void BeginRun() override {
    open_ = 0;
    ++runs;
  }
  Status Begin(cudaStream_t) override {
    log_->Add("timer_begin");
    return Status::Ok();
  }
  Status End(cudaStream_t) override {
    log_->Add("timer_end");
    ++open_;
    return Status::Ok();
  }
  // An untimed scope takes pause_seconds out of its region.
  Status Pause(cudaStream_t) override {
    log_->Add("timer_pause");
    ++pauses_;
    return pause_status;
  }
  Status Resume(cudaStream_t) override {
    log_->Add("timer_resume");
    return Status::Ok();
  }
  void SetScopeOverhead(double seconds) override {
    log_->Add("scope_overhead");
    scope_overhead = seconds;
  }
  Status Collect(bool wait_all, std::vector<double>* seconds) override {
    // Like the event pool: results come back when waited for, or (prompt) once timed.
    if (!wait_all && !prompt) return Status::Ok();
    const bool slow = slow_from_run > 0 && runs >= slow_from_run;
    const double paused = open_ > 0 ? pauses_ * (pause_seconds + scope_overhead) / open_ : 0;
    for (; open_ > 0; --open_) {
      if (!empty_regions.empty()) {  // the scope-overhead measurement's regions
        seconds->push_back(empty_regions.front());
        empty_regions.erase(empty_regions.begin());
        continue;
      }
      const double region =
          region_cycle.empty() ? region_seconds : region_cycle[collected_++ % region_cycle.size()];
      seconds->push_back(region * (slow ? slow_factor : 1.0) - paused);
    }
    pauses_ = 0;
    return Status::Ok();
  }
  double pause_seconds = 0.4e-3;
  std::vector<double> empty_regions;  // the next regions' seconds, before region_seconds
  double scope_overhead = 0;          // SetScopeOverhead's, taken out per pause
  Status pause_status = Status::Ok();
  double region_seconds = 1e-3;
  /// When not empty, the regions' seconds in turn (in place of region_seconds).
  std::vector<double> region_cycle;
  /// Collect without wait_all returns the regions ended so far (the event timer does once the
  /// GPU has passed their stop events).
  bool prompt = false;
  int reserves = 0;       // Reserve calls (once per process, before any benchmark)
  int runs = 0;           // GB calls so far (BeginRun)
  int slow_from_run = 0;  // from this call on, regions take slow_factor times longer
  double slow_factor = 1;

 private:
  Log* log_;
  int open_ = 0;
  int pauses_ = 0;
  size_t collected_ = 0;
};

// The busy measurement, scripted: each iteration's GPU work is `busy_seconds`; the calls are
// `calls`. Pause/Resume are logged, and a paused iteration loses pause_seconds of busy time.
class FakeBusyTracer : public detail::BusyTracer {
 public:
  explicit FakeBusyTracer(Log* log) : log_(log) {}
  std::string UnavailableReason() const override { return unavailable; }
  Status Start() override {
    log_->Add("busy_start");
    iterations_ = 0;
    paused_ = 0;
    return start_status;
  }
  Status BeginIteration() override {
    log_->Add("busy_begin");
    return Status::Ok();
  }
  Status EndIteration() override {
    log_->Add("busy_end");
    ++iterations_;
    return Status::Ok();
  }
  Status Pause() override {
    log_->Add("busy_pause");
    ++paused_;
    return Status::Ok();
  }
  Status Resume() override {
    log_->Add("busy_resume");
    return Status::Ok();
  }
  Status Finish(detail::BusyMeasure* measure) override {
    log_->Add("busy_finish");
    *measure = detail::BusyMeasure();
    if (iterations_ == 0) return Status::Ok();
    measure->iterations = iterations_;
    measure->busy_seconds = busy_seconds - paused_ * pause_seconds / iterations_;
    measure->calls = calls;
    return Status::Ok();
  }
  std::string unavailable;
  Status start_status = Status::Ok();
  double busy_seconds = 0.25e-3;
  double pause_seconds = 0.1e-3;
  std::vector<detail::HostCall> calls;

 private:
  Log* log_;
  int iterations_ = 0;
  int paused_ = 0;
};

class FakeProfiler : public detail::Profiler {
 public:
  explicit FakeProfiler(Log* log) : log_(log) {}
  Status BeginSession(cudaStream_t, int ranges) override {
    log_->Add("session " + std::to_string(ranges));
    ++sessions;
    ranges_ = ranges;
    pass_ = 0;
    pushed.clear();
    return begin_result;
  }
  Status BeginPass() override {
    log_->Add("pass");
    return Status::Ok();
  }
  Status PushRange(const std::string& name) override {
    log_->Add("range " + name);
    if (pass_ == 0) pushed.push_back(name);
    return push_result;
  }
  Status PopRange() override {
    log_->Add("range_end");
    return Status::Ok();
  }
  Status EndPass(bool* done) override {
    ++pass_;
    if (fail_pass > 0 && pass_ == fail_pass) return Status::Error("passes differ");
    *done = pass_ >= passes;
    return Status::Ok();
  }
  // One range per range pushed in the first pass, in order, with its name (names_known) and the
  // values of `values` (else the default values below), less those named in `dropped`.
  Status EndSession(std::vector<detail::ProfiledRange>* ranges) override {
    log_->Add("session_end");
    if (ranges_ < static_cast<int>(pushed.size())) return Status::Error("ranges dropped");
    for (size_t r = 0; r < pushed.size(); ++r) {
      if (dropped.count(pushed[r]) > 0) continue;
      detail::ProfiledRange range;
      range.name = names_known ? pushed[r] : "";
      if (values) {
        range.values = values(pushed[r]);
      } else {
        range.values = {{"dram__bytes_read.sum", 100.0 * (r + 1)},
                        // Tells the sessions apart: 50 bytes in the first, 100 in the second.
                        {"dram__bytes_write.sum", 50.0 * sessions},
                        {"gpu__time_duration.sum", 1000.0},
                        {"sm__cycles_elapsed.avg.per_second", 1.9e9}};
        // The session's number times each extra value, so repetitions differ.
        for (const auto& [name, value] : extra) range.values[name] = value * sessions;
      }
      ranges->push_back(std::move(range));
    }
    return Status::Ok();
  }
  void AbortSession() override { log_->Add("abort"); }
  int PassCount() const override { return passes; }

  int passes = 2;
  int fail_pass = 0;
  std::map<std::string, double> extra;  ///< more metrics per range, times the session number
  /// Each range's values by its name, in place of the default ones.
  std::function<std::map<std::string, double>(const std::string& name)> values;
  std::set<std::string> dropped;    ///< ranges the profiler leaves out (say, with no work in them)
  bool names_known = true;          ///< false: the ranges come back unnamed, in order
  std::vector<std::string> pushed;  ///< the names pushed in the session's first pass
  int sessions = 0;
  Status begin_result;
  Status push_result;

 private:
  Log* log_;
  int ranges_ = 0;
  int pass_ = 0;
};

// One NVML reading of the GPU (energy_j -1: NVML did not say).
inline detail::ThermalSample ThermalReading(double celsius, double watts, double energy_j,
                                            uint64_t reasons) {
  detail::ThermalSample sample;
  sample.known = true;
  sample.temperature_c = celsius;
  sample.power_w = watts;
  sample.energy_j = energy_j;
  sample.reasons_known = true;
  sample.clock_event_reasons = reasons;
  return sample;
}

// NVML's temperatures, scripted like FakeSharingMonitor; thread-safe (the watch reads on a
// thread of its own). Readings on the thread that made the fake are logged as "thermal" (the
// log is not thread-safe; the watch thread's readings are only counted).
class FakeThermalMonitor : public detail::ThermalMonitor {
 public:
  FakeThermalMonitor(Log* log, std::vector<detail::ThermalSample> samples)
      : log_(log), samples_(std::move(samples)), owner_(std::this_thread::get_id()) {}
  detail::ThermalSample Sample() override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++calls;
    if (std::this_thread::get_id() == owner_) log_->Add("thermal");
    if (samples_.empty()) return {};
    detail::ThermalSample sample = samples_.front();
    if (samples_.size() > 1) samples_.erase(samples_.begin());
    return sample;
  }

 private:
  Log* log_;
  std::mutex mutex_;
  std::vector<detail::ThermalSample> samples_;
  std::thread::id owner_;

 public:
  std::atomic<int> calls{0};
};

// NVML's view, scripted: each Sample() returns the next of `samples` (the last one repeats).
class FakeSharingMonitor : public detail::SharingMonitor {
 public:
  explicit FakeSharingMonitor(std::vector<detail::SharingSample> samples)
      : samples_(std::move(samples)) {}
  detail::SharingSample Sample() override {
    ++calls;
    if (samples_.empty()) return {};
    detail::SharingSample sample = samples_.front();
    if (samples_.size() > 1) samples_.erase(samples_.begin());
    return sample;
  }
  int calls = 0;

 private:
  std::vector<detail::SharingSample> samples_;
};

// Collects what GB reports.
class CaptureReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) this->runs.push_back(run);
  }
  std::vector<Run> runs;
};

}  // namespace gpubench::testing
