// The harness: settings, device facts and the backends the loop measures with, created on first
// use unless tests installed fakes.
#include "measure/process/harness.hpp"

namespace gpubench::detail {
namespace {

// Tests that install fake backends watch no streams unless they install a watch too.
class NoStreamWatch final : public StreamWatch {
 public:
  std::string UnavailableReason() const override { return "not watched (test backends)"; }
  void BeginBody() override {}
  std::vector<StreamUse> EndBody() override { return {}; }
};

// Nor do they measure busy time unless they install a tracer.
class NoBusyTracer final : public BusyTracer {
 public:
  std::string UnavailableReason() const override { return "not measured (test backends)"; }
  Status Start() override { return Status::Ok(); }
  Status BeginIteration() override { return Status::Ok(); }
  Status EndIteration() override { return Status::Ok(); }
  Status Pause() override { return Status::Ok(); }
  Status Resume() override { return Status::Ok(); }
  Status Finish(BusyMeasure* measure) override {
    *measure = BusyMeasure();
    return Status::Ok();
  }
};

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

void Harness::Configure(const Settings& settings, const DeviceFacts& facts) {
  settings_ = settings;
  facts_ = facts;
  cache_ = MakeCacheStrategy(settings_);
  configured_ = true;
}

const CacheStrategy& Harness::cache() {
  if (!cache_) cache_ = MakeCacheStrategy(settings_);
  return *cache_;
}

GpuOps& Harness::ops() {
  if (!ops_) ops_ = MakeCudaOps(facts_);
  return *ops_;
}

IterationTimer& Harness::timer() {
  if (!timer_) timer_ = settings_.timer == Timer::kCupti ? MakeCuptiTimer() : MakeEventTimer();
  return *timer_;
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

BusyTracer& Harness::busy() {
  if (!busy_) busy_ = MakeCuptiBusyTracer();
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
  busy_ = std::make_unique<NoBusyTracer>();
  thermal_ = std::make_unique<NoThermalMonitor>();
}

void Harness::ReleaseBackends() {
  busy_.reset();
  sharing_.reset();
  thermal_.reset();
  streams_.reset();
  profiler_.reset();
  timer_.reset();
  ops_.reset();
}

}  // namespace gpubench::detail
