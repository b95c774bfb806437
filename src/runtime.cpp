#include "runtime.hpp"

#include "gpubench/counters.hpp"
#include "gpubench/settings.hpp"
#include "settings_parse.hpp"

namespace gpubench {

const std::vector<std::string>& DefaultMetrics() {
  // The CUPTI metrics behind the vocabulary's counters (include/gpubench/counters.hpp).
  static const std::vector<std::string> metrics = [] {
    std::vector<std::string> names;
    for (const CounterInfo& counter : kCounters) {
      if (!counter.source_metric.empty()) names.emplace_back(counter.source_metric);
    }
    return names;
  }();
  return metrics;
}

const char* ToString(Timer timer) { return timer == Timer::kCupti ? "cupti" : "events"; }

const char* ToString(CachePolicy cache) { return cache == CachePolicy::kKeep ? "keep" : "flush"; }

const char* ToString(ProfileRuns runs) { return runs == ProfileRuns::kAll ? "all" : "reported"; }

const char* ToString(Exclusive exclusive) {
  return exclusive == Exclusive::kWait ? "wait" : exclusive == Exclusive::kFail ? "fail" : "warn";
}

const Settings& CurrentSettings() {
  auto& runtime = detail::Runtime::Get();
  if (!runtime.configured()) {
    static const Settings from_environment = [] {
      auto parsed = detail::ParseCommandLine({"gpubench"}, detail::ProcessEnvironment());
      if (parsed.ok) return parsed.command_line.settings;
      Settings defaults;
      defaults.metrics = DefaultMetrics();
      return defaults;
    }();
    return from_environment;
  }
  return runtime.settings();
}

namespace detail {

Runtime& Runtime::Get() {
  static Runtime* runtime = new Runtime();  // never destroyed: benchmarks may outlive main's end
  return *runtime;
}

void Runtime::Configure(const Settings& settings, const DeviceFacts& facts) {
  settings_ = settings;
  facts_ = facts;
  configured_ = true;
}

GpuOps& Runtime::ops() {
  if (!ops_) ops_ = MakeCudaOps(facts_);
  return *ops_;
}

IterationTimer& Runtime::timer() {
  if (!timer_) timer_ = settings_.timer == Timer::kCupti ? MakeCuptiTimer() : MakeEventTimer();
  return *timer_;
}

Profiler* Runtime::profiler() { return profiler_.get(); }

void Runtime::SetProfiler(std::unique_ptr<Profiler> profiler, std::string status) {
  profiler_ = std::move(profiler);
  profiler_status_ = std::move(status);
  metric_units_ = profiler_ ? profiler_->MetricUnits() : std::map<std::string, std::string>{};
}

void Runtime::SetBackendsForTesting(std::unique_ptr<GpuOps> ops,
                                    std::unique_ptr<IterationTimer> timer,
                                    std::unique_ptr<Profiler> profiler) {
  ops_ = std::move(ops);
  timer_ = std::move(timer);
  profiler_ = std::move(profiler);
  profiler_status_ = profiler_ ? "on: test profiler" : "off: test";
}

SharingMonitor& Runtime::sharing() {
  if (!sharing_) sharing_ = MakeNvmlMonitor(facts_.pci_bus_id);
  return *sharing_;
}

void Runtime::ResetForTesting() {
  ops_.reset();
  timer_.reset();
  profiler_.reset();
  sharing_.reset();
  shared_warned_ = false;
  fastest_calls_.clear();
  context_lost_reason_.clear();
  configured_ = false;
  trials_ = TrialRunDetector();
  latest_profiled_.reset();
}

void Runtime::Shutdown() {
  sharing_.reset();
  profiler_.reset();
  timer_.reset();
  ops_.reset();
}

}  // namespace detail
}  // namespace gpubench
