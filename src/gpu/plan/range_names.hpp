// The names of gpubench's NVTX and CUPTI ranges, which users' ncu and nsys filters select on.
#pragma once

#include <string>
#include <vector>

namespace gpubench::detail {

/// "BM_Copy/1048576" -> {"BM_Copy", "1048576"}: ncu and nsys read '/' in a push/pop filter as
/// nesting, so each part is its own nested NVTX range. Empty parts are dropped.
std::vector<std::string> NvtxRangePath(const std::string& name);

/// The CUPTI range of the `index`th profiled iteration of `instance` ("BM_X/profiled:2"), or of
/// its `part`th part after a gpubench::UntimedScope ("BM_X/profiled:2.1"): unique per range,
/// since CUPTI merges ranges that share a name.
std::string ProfiledRangeName(const std::string& instance, int index, int part = 0);

/// "gpu:1": the part a device adds to every name.
std::string DeviceTag(int device);

/// `name` with the device's tag as its last path part ("BM_Copy/1024" -> "BM_Copy/1024/gpu:1").
std::string TagInstanceName(const std::string& name, int device);

}  // namespace gpubench::detail
