#include "measure/checks/thermal_watch.hpp"

#include <algorithm>

namespace gpubench::detail {

void ThermalWatch::Read() {
  const auto before = std::chrono::steady_clock::now();
  ThermalSample sample = monitor_.Sample();
  const auto after = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  readings_.push_back({std::move(sample), after});
  read_seconds_ += std::chrono::duration<double>(after - before).count();
}

void ThermalWatch::Start() {
  readings_.clear();
  read_seconds_ = 0;
  stopping_ = false;
  // The first reading is the thread's too: an NVML reading takes milliseconds (2.4 ms on an
  // H200), which the loop's thread need not wait for. The second comes soon, so that a short
  // span (a GB trial of a few iterations) is read while its work runs, not only at its ends.
  thread_ = std::thread([this] {
    Read();
    std::unique_lock<std::mutex> lock(mutex_);
    if (!readings_.front().sample.known) return;  // without NVML there is nothing to follow
    auto wait = std::min(period_, std::chrono::milliseconds(10));
    while (!wake_.wait_for(lock, wait, [this] { return stopping_; })) {
      lock.unlock();
      Read();
      lock.lock();
      wait = period_;
    }
  });
}

void ThermalWatch::StopThread() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

ThermalSummary ThermalWatch::Stop() {
  StopThread();
  if (readings_.empty()) return {};
  if (readings_.front().sample.known) Read();  // after the last iteration, on this thread
  std::vector<ThermalSample> samples;
  for (const Reading& reading : readings_) samples.push_back(reading.sample);
  const double span =
      std::chrono::duration<double>(readings_.back().at - readings_.front().at).count();
  ThermalSummary summary = SummarizeThermal(samples, span);
  summary.read_seconds = read_seconds_;
  return summary;
}

ThermalSummary SummarizeThermal(const std::vector<ThermalSample>& samples, double span_seconds) {
  ThermalSummary summary;
  std::vector<const ThermalSample*> known;
  for (const ThermalSample& sample : samples) {
    if (sample.known) known.push_back(&sample);
  }
  if (known.empty()) {
    summary.unknown_reason = samples.empty() ? "not read" : samples.front().unknown_reason;
    return summary;
  }
  summary.known = true;
  summary.samples = static_cast<int>(known.size());
  summary.temperature_start_c = known.front()->temperature_c;
  summary.temperature_end_c = known.back()->temperature_c;
  double power_sum = 0;
  int powers = 0;
  for (const ThermalSample* sample : known) {
    summary.temperature_max_c = std::max(summary.temperature_max_c, sample->temperature_c);
    if (sample->reasons_known) {
      summary.reasons_known = true;
      summary.clock_event_reasons |= sample->clock_event_reasons;
    }
    if (sample->power_w >= 0) {
      power_sum += sample->power_w;
      ++powers;
    }
  }
  // gpu_idle is the state between iterations and before the first: not why a clock dropped.
  summary.clock_event_reasons &= ~kClockEventGpuIdle;
  const double first_energy = known.front()->energy_j, last_energy = known.back()->energy_j;
  constexpr double kShortestEnergySpan = 0.05;
  if (first_energy >= 0 && last_energy > first_energy && span_seconds >= kShortestEnergySpan) {
    summary.power_w = (last_energy - first_energy) / span_seconds;
  } else if (powers > 0) {
    summary.power_w = power_sum / powers;
  }
  return summary;
}

ThermalWait WaitForCoolGpu(ThermalMonitor& monitor, int margin_c, double* reference_c,
                           std::chrono::duration<double> timeout,
                           std::chrono::duration<double> poll,
                           void (*sleep)(std::chrono::duration<double>)) {
  ThermalWait wait;
  ThermalSample sample = monitor.Sample();
  if (!sample.known) {
    wait.unknown_reason = sample.unknown_reason;
    return wait;
  }
  wait.known = true;
  if (*reference_c < 0 || sample.temperature_c < *reference_c) *reference_c = sample.temperature_c;
  wait.target_c = *reference_c + margin_c;
  auto cool = [&](const ThermalSample& s) {
    return s.temperature_c <= wait.target_c &&
           (s.clock_event_reasons & kClockEventsOfHeatOrPower) == 0;
  };
  std::chrono::duration<double> waited(0);
  while (!cool(sample) && waited < timeout) {
    sleep(poll);
    waited += poll;
    ThermalSample next = monitor.Sample();
    if (!next.known) break;  // NVML stopped answering: stop waiting, with the last reading
    sample = next;
  }
  wait.waited_seconds = waited.count();
  wait.timed_out = !cool(sample);
  wait.temperature_c = sample.temperature_c;
  wait.clock_event_reasons = sample.clock_event_reasons;
  if (!wait.timed_out) *reference_c = std::min(*reference_c, sample.temperature_c);
  return wait;
}

}  // namespace gpubench::detail
