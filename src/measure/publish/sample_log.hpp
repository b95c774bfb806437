// Every timed sample of every repetition, kept in a side file (--gpubench_samples_out), so that
// what a repetition's stated precision rests on can be checked afterwards on the samples
// themselves (docs/accuracy.md "The precision of a repetition").
#pragma once

#include <fstream>
#include <string>

#include "common/status.hpp"

namespace gpubench::detail {

class SampleSeries;

class SampleLog {
 public:
  /// Opens (appends to) `path`, closing an earlier log; an empty path turns the log off.
  Status Open(const std::string& path);
  void Close();

  /// One JSON line: {"benchmark", "stop_reason", "gpu_seconds": [...], "host_seconds": [...]}
  /// (host_seconds: when each sample was collected, from the call's start). Nothing when the log
  /// is off or the call took no per-sample times.
  void Append(const std::string& benchmark, const std::string& stop_reason,
              const SampleSeries& samples);

 private:
  std::ofstream stream_;
};

}  // namespace gpubench::detail
