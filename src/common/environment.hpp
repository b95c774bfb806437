// The process environment, read in this one place (issue #48): every variable gpubench or its
// tools look at has a reader here, so what the environment can change is listed in one file.
// Each reader asks when called, as the code before it did: tests that set a variable see it.
#pragma once

#include <cstdlib>
#include <map>
#include <string>

#include <unistd.h>  // environ (g++ defines _GNU_SOURCE)

namespace gpubench::detail {

/// The value of `name`, or nullptr where it is not set (std::getenv).
inline const char* EnvironmentValue(const char* name) { return std::getenv(name); }

/// Every variable of the process, name to value (for the GPUBENCH_* settings).
inline std::map<std::string, std::string> EnvironmentVariables() {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string text(*entry);
    auto equals = text.find('=');
    if (equals != std::string::npos) variables[text.substr(0, equals)] = text.substr(equals + 1);
  }
  return variables;
}

/// CUDA_VISIBLE_DEVICES, or nullptr where it is not set (every device is visible).
inline const char* VisibleCudaDevicesVariable() { return std::getenv("CUDA_VISIBLE_DEVICES"); }

/// The library a CUDA tool (ncu, nsys) injects into the process, or "" when none is: only one
/// CUPTI client can trace a process, so gpubench steps aside from CUPTI under such a tool.
inline std::string InjectedCudaTool() {
  const char* path = EnvironmentValue("CUDA_INJECTION64_PATH");
  return path == nullptr ? "" : path;
}

/// Set in the profiling child's environment to the file it writes its sessions to
/// (frontend/setup/profiling_run.cpp).
inline constexpr const char* kProfilingChildVariable = "_GPUBENCH_PROFILING_CHILD";

/// The file this process writes as the profiling child, or "" when it is not one.
inline std::string ProfilingChildFile() {
  const char* file = EnvironmentValue(kProfilingChildVariable);
  return file != nullptr ? file : "";
}

/// Set in the environment of each device's child of an all_at_once --gpubench_devices run
/// (frontend/setup/devices.cpp): the other devices ran beside it.
inline constexpr const char* kDevicesAtOnceVariable = "_GPUBENCH_DEVICES_AT_ONCE";

/// Whether this process is such a child.
inline bool DevicesAtOnce() { return EnvironmentValue(kDevicesAtOnceVariable) != nullptr; }

/// TMPDIR, or nullptr.
inline const char* TemporaryDirectoryVariable() { return EnvironmentValue("TMPDIR"); }

/// XDG_RUNTIME_DIR (the user's own runtime folder), or nullptr.
inline const char* RuntimeDirectoryVariable() { return EnvironmentValue("XDG_RUNTIME_DIR"); }

/// TERM, or nullptr.
inline const char* TerminalVariable() { return EnvironmentValue("TERM"); }

/// Whether NO_COLOR is set (no-color.org: set at all, whatever its value, means no colour).
inline bool NoColorAsked() { return EnvironmentValue("NO_COLOR") != nullptr; }

}  // namespace gpubench::detail
