// This binary run again as a child process: once per device (--gpubench_devices, devices.cpp)
// and once to profile (profile_process=child, profiling_run.cpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpubench::detail {

/// What the child gets besides its arguments.
struct ChildSetup {
  std::string role;               ///< for the message when it cannot start: "for one device"
  bool discard_stdout = false;    ///< its console output goes to /dev/null
  bool dies_with_parent = false;  ///< SIGTERM when the parent dies (a CI timeout)
  std::vector<std::pair<std::string, std::string>> set_env;
  std::vector<std::string> unset_env;
};

/// Runs /proc/self/exe with `args` and waits: its exit code, 128 + the signal that ended it, or
/// -1 when it could not be started.
int RunSelfAndWait(const std::vector<std::string>& args, const ChildSetup& setup);

}  // namespace gpubench::detail
