// The harness: settings, device facts and the backends the loop measures with, created on first
// use unless tests installed fakes.
#include "measure/process/harness.hpp"

#include "gpu/cupti/cupti_attach.hpp"

namespace gpubench::detail {
namespace {

// Tests that install fake backends watch no streams unless they install a watch too.
class NoStreamWatch final : public StreamWatch {
 public:
  std::string UnavailableReason() const override { return "not watched (test backends)"; }
  void BeginBody() override {}
  std::vector<StreamUse> EndBody() override { return {}; }
};

// Busy time not measured, and why: test backends without a tracer, or another CUDA tool.
class UnavailableBusyTracer final : public BusyTracer {
 public:
  explicit UnavailableBusyTracer(std::string why) : why_(std::move(why)) {}
  std::string UnavailableReason() const override { return why_; }
  Status Start() override { return Status::Ok(); }
  Status BeginIteration() override { return Status::Ok(); }
  Status EndIteration() override { return Status::Ok(); }
  Status Pause() override { return Status::Ok(); }
  Status Resume() override { return Status::Ok(); }
  Status Finish(BusyMeasure* measure) override {
    *measure = BusyMeasure();
    return Status::Ok();
  }

 private:
  std::string why_;
};

// A tool that injects itself into CUDA (ncu, nsys) sets CUDA_INJECTION64_PATH; only one CUPTI
// profiling client can run in a process, so gpubench steps aside and leaves its NVTX ranges to
// that tool.
std::string AttachedToolReason(const std::string& injection) {
  return "another CUDA tool is attached (CUDA_INJECTION64_PATH=" + injection +
         ", e.g. ncu or nsys): gpubench steps aside from CUPTI so that tool can profile; the "
         "NVTX ranges stay";
}

// Nor do they read NVML's temperatures unless they install a monitor.
class NoThermalMonitor final : public ThermalMonitor {
 public:
  ThermalSample Sample() override {
    ThermalSample sample;
    sample.unknown_reason = "not read (test backends)";
    return sample;
  }
};

}  // namespace

void Harness::Configure(const RunPlan& plan, const DeviceFacts& facts) {
  plan_ = plan;
  facts_ = facts;
  cache_ = MakeCacheStrategy(plan_.settings);
  configured_ = true;
  // Detaching CUPTI would detach the other tool's client too.
  if (!plan_.cuda_tool.empty()) CuptiAttachment::KeepAttached();
}

void Harness::Configure(const Settings& settings, const DeviceFacts& facts) {
  RunPlan plan;
  plan.settings = settings;
  Configure(plan, facts);
}

const CacheStrategy& Harness::cache() {
  if (!cache_) cache_ = MakeCacheStrategy(plan_.settings);
  return *cache_;
}

GpuOps& Harness::ops() {
  if (!ops_) ops_ = MakeCudaOps(facts_);
  return *ops_;
}

IterationTimer& Harness::timer() {
  if (!timer_) timer_ = settings().timer == Timer::kCupti ? MakeCuptiTimer() : MakeEventTimer();
  return *timer_;
}

std::string Harness::StartProfiler() {
  const Settings& settings = plan_.settings;
  std::string status;
  std::unique_ptr<Profiler> profiler;
  if (settings.profile_iterations == 0) {
    status = "off: --gpubench_profile_iterations=0";
  } else if (!facts_.available) {
    status = "unavailable: no usable CUDA device";
  } else if (!plan_.cuda_tool.empty()) {
    status = "unavailable: " + AttachedToolReason(plan_.cuda_tool);
  } else {
    profiler = MakeCuptiProfiler(settings, facts_, &status);
  }
  const bool failed = !profiler && settings.profile_iterations != 0 && facts_.available;
  SetProfiler(std::move(profiler), status);
  return failed ? status : "";
}

void Harness::SetProfiler(std::unique_ptr<Profiler> profiler, std::string status) {
  profiler_ = std::move(profiler);
  profiler_status_ = std::move(status);
  metric_units_ = profiler_ ? profiler_->MetricUnits() : std::map<std::string, std::string>{};
}

void Harness::SetProfilerFromChild(std::string status,
                                   std::map<std::string, std::string> metric_units) {
  profiler_.reset();
  profiler_status_ = std::move(status);
  metric_units_ = std::move(metric_units);
}

SharingMonitor& Harness::sharing() {
  if (!sharing_) sharing_ = MakeNvmlMonitor(facts_.pci_bus_id);
  return *sharing_;
}

ThermalMonitor& Harness::thermal() {
  if (!thermal_) thermal_ = MakeNvmlThermalMonitor(facts_.pci_bus_id);
  return *thermal_;
}

StreamWatch& Harness::streams() {
  if (!streams_) streams_ = MakeCuptiStreamWatch();
  return *streams_;
}

namespace {

// No recorder: under another CUDA tool, and in tests that install no recorder of their own.
class NoWorkRecorder final : public WorkRecorder {
 public:
  explicit NoWorkRecorder(std::string why) : why_(std::move(why)) {}
  std::string UnavailableReason() const override { return why_; }
  void Begin() override {}
  bool recording() const override { return false; }
  WorkRecord End() override { return {}; }
  void WatchModules(bool) override {}
  void Hold(bool) override {}

 private:
  std::string why_;
};

}  // namespace

WorkRecorder& Harness::work() {
  if (!work_) {
    work_ = plan_.cuda_tool.empty()
                ? MakeCuptiWorkRecorder()
                : std::make_unique<NoWorkRecorder>(
                      "another CUDA tool holds CUPTI (CUDA_INJECTION64_PATH is set)");
  }
  return *work_;
}

BusyTracer& Harness::busy() {
  if (!busy_) {
    busy_ = plan_.cuda_tool.empty()
                ? MakeCuptiBusyTracer()
                : std::make_unique<UnavailableBusyTracer>(
                      "another CUDA tool traces this process (CUDA_INJECTION64_PATH is set)");
  }
  return *busy_;
}

void Harness::SetBackendsForTesting(std::unique_ptr<GpuOps> ops,
                                    std::unique_ptr<IterationTimer> timer,
                                    std::unique_ptr<Profiler> profiler) {
  ops_ = std::move(ops);
  timer_ = std::move(timer);
  profiler_ = std::move(profiler);
  profiler_status_ = profiler_ ? "on: test profiler" : "off: test";
  streams_ = std::make_unique<NoStreamWatch>();
  work_ = std::make_unique<NoWorkRecorder>("not recorded (test backends)");
  busy_ = std::make_unique<UnavailableBusyTracer>("not measured (test backends)");
  thermal_ = std::make_unique<NoThermalMonitor>();
}

Status Harness::PrepareBeforeBenchmarks() {
  GPUBENCH_RETURN_IF_ERROR(cache().Prepare(ops(), nullptr));
  GPUBENCH_RETURN_IF_ERROR(timer().Reserve());
  // One empty body under the watch: CUPTI attaches (and detaches again) for the first time now.
  StreamWatch& watch = streams();
  if (watch.UnavailableReason().empty()) {
    watch.BeginBody();
    (void)watch.EndBody();
    watch.AfterBodyFinished();
  }
  return Status::Ok();
}

void Harness::ReleaseBackends() {
  busy_.reset();
  work_.reset();
  sharing_.reset();
  thermal_.reset();
  streams_.reset();
  profiler_.reset();
  timer_.reset();
  ops_.reset();
}

}  // namespace gpubench::detail
