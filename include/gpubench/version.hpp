// gpubench's version; the build checks it against project(VERSION) in CMakeLists.txt.
#pragma once

#define GPUBENCH_VERSION_MAJOR 0
#define GPUBENCH_VERSION_MINOR 1
#define GPUBENCH_VERSION_PATCH 0

namespace gpubench {
inline constexpr const char kVersion[] = "0.1.0";
}  // namespace gpubench
