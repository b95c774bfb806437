// This binary run again as a child process: once per device (--gpubench_devices, devices.cpp)
// and once to profile (profile_process=child, profiling_run.cpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpubench::detail {

/// What the child gets besides its arguments. Its files are opened in the parent before the fork,
/// never through a link and only when they are regular files of this user's
/// (common/file_calls.hpp): a file that cannot be used is named on stderr and that stream stays the
/// parent's.
struct ChildSetup {
  std::string role;               ///< for the message when it cannot start: "for one device"
  bool discard_stdout = false;    ///< its console output goes to /dev/null
  std::string stdout_file;        ///< else, when set: its console output goes to this file
  std::string stderr_file;        ///< when set: its error stream goes to this file
  bool dies_with_parent = false;  ///< SIGTERM when the parent dies (a CI timeout)
  std::vector<std::pair<std::string, std::string>> set_env;
  std::vector<std::string> unset_env;
};

/// Runs /proc/self/exe with `args` and waits: its exit code, 128 + the signal that ended it, or
/// -1 when it could not be started.
int RunSelfAndWait(const std::vector<std::string>& args, const ChildSetup& setup);

/// Starts /proc/self/exe with `args` without waiting: the child's pid, or -1 (fork failed).
int StartSelf(const std::vector<std::string>& args, const ChildSetup& setup);

/// A new empty file for a child to write, $TMPDIR/<stem>-XXXXXX (else under /tmp; mkstemp, mode
/// 0600): its path, or "" when none can be made. Whoever opens it again opens it with
/// OpenRegularFile (common/file_calls.hpp).
std::string TemporaryFile(const std::string& stem);

/// Waits for a child of StartSelf: as RunSelfAndWait's result (-1 for pid -1).
int WaitForChild(int pid);

}  // namespace gpubench::detail
