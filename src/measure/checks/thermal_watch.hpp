// The GPU's heat around one call's timed iterations: NVML read from a thread of its own as they
// begin, 10 ms later and then every 100 ms while they run, and once more after they end (on the
// loop's thread), so the loop's thread never waits for NVML inside the timed span; and, for
// --gpubench_thermal=wait, the wait for a cool GPU before them.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpu/nvml/gpu_thermal.hpp"

namespace gpubench::detail {

/// What the timed span looked like to NVML.
struct ThermalSummary {
  bool known = false;          ///< false: no counters (unknown_reason says why)
  std::string unknown_reason;  ///< NVML's, when not known
  double temperature_start_c = 0;
  double temperature_end_c = 0;
  double temperature_max_c = 0;
  /// Mean board power over the span: the energy counter's difference over the span's length when
  /// the span is long enough for it (>= 50 ms), else the mean of the power readings; -1 unknown.
  double power_w = -1;
  bool reasons_known = false;
  uint64_t clock_event_reasons = 0;  ///< every reason seen in the span, gpu_idle left out
  int samples = 0;
  double read_seconds = 0;  ///< host time spent in NVML's reads (all threads)
};

/// Samples one call's timed span. Start() starts the sampling thread (which reads at once);
/// Stop() ends it, reads once more and sums up. The destructor stops it.
class ThermalWatch {
 public:
  explicit ThermalWatch(ThermalMonitor& monitor,
                        std::chrono::milliseconds period = std::chrono::milliseconds(100))
      : monitor_(monitor), period_(period) {}
  ~ThermalWatch() { StopThread(); }
  ThermalWatch(const ThermalWatch&) = delete;
  ThermalWatch& operator=(const ThermalWatch&) = delete;

  void Start();
  ThermalSummary Stop();

 private:
  struct Reading {
    ThermalSample sample;
    std::chrono::steady_clock::time_point at;
  };
  void Read();  // one reading into readings_ (under mutex_)
  void StopThread();

  ThermalMonitor& monitor_;
  std::chrono::milliseconds period_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
  std::vector<Reading> readings_;
  double read_seconds_ = 0;
};

/// Sums up readings (exposed for tests): start and end temperatures from the first and last,
/// the maximum, the reasons of all but gpu_idle, and the mean power.
ThermalSummary SummarizeThermal(const std::vector<ThermalSample>& samples, double span_seconds);

/// --gpubench_thermal=wait before one call. The reference is the coolest temperature read so far
/// at the start of the run or at the end of a wait (`*reference_c`, < 0 before the first read).
struct ThermalWait {
  bool known = false;  ///< false: NVML could not tell; nothing was waited for
  std::string unknown_reason;
  double waited_seconds = 0;
  bool timed_out = false;
  double temperature_c = 0;          ///< at the end of the wait
  double target_c = 0;               ///< the reference plus the margin
  uint64_t clock_event_reasons = 0;  ///< at the end of the wait
};
/// Waits while the GPU is above the target or a heat or power reason is active, reading every
/// `poll`, at most `timeout`. `sleep` is the wait between readings (tests pass a fake).
ThermalWait WaitForCoolGpu(ThermalMonitor& monitor, int margin_c, double* reference_c,
                           std::chrono::duration<double> timeout,
                           std::chrono::duration<double> poll,
                           void (*sleep)(std::chrono::duration<double>));

}  // namespace gpubench::detail
