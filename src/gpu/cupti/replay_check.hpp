// Replay is only sound if every pass runs the same work: the kernels each replay pass launched,
// per profiled range, compared with the first pass's. LaunchRecord is the bookkeeping (CPU
// only, tested with made-up launches); ReplayLaunchCheck feeds it from CUPTI's launch callbacks
// during profiling sessions only, so timed iterations pay nothing for it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/status.hpp"

namespace gpubench::detail {

class LaunchRecord {
 public:
  void BeginSession();
  void BeginPass(int pass);
  void BeginRange();
  /// A launch inside the current range (ignored outside one).
  void Add(std::string kernel);
  void EndRange();
  bool in_range() const { return in_range_; }
  /// An error naming the first profiled iteration where pass `pass` launched other kernels
  /// than pass 0 did; Ok for pass 0.
  Status CheckPass(int pass) const;

 private:
  std::vector<std::vector<std::vector<std::string>>> launches_;  // [pass][range][launch]
  int pass_ = 0;
  bool in_range_ = false;
};

class DriverCallbacks;

class ReplayLaunchCheck {
 public:
  /// Listens on the process's CUPTI subscriber when CUPTI gives one (available()).
  ReplayLaunchCheck();
  ~ReplayLaunchCheck();
  ReplayLaunchCheck(const ReplayLaunchCheck&) = delete;
  ReplayLaunchCheck& operator=(const ReplayLaunchCheck&) = delete;

  bool available() const { return callbacks_ != nullptr; }
  /// Launch callbacks on for a session, and off after it.
  void BeginSession();
  void EndSession();
  void BeginPass(int pass) { record_.BeginPass(pass); }
  void BeginRange() { record_.BeginRange(); }
  void EndRange() { record_.EndRange(); }
  Status CheckPass(int pass) const { return available() ? record_.CheckPass(pass) : Status::Ok(); }
  /// From the launch callback, while a session's callbacks are on.
  void RecordLaunch(std::string kernel) {
    if (on_) record_.Add(std::move(kernel));
  }

 private:
  DriverCallbacks* callbacks_ = nullptr;
  bool on_ = false;
  LaunchRecord record_;
};

}  // namespace gpubench::detail
