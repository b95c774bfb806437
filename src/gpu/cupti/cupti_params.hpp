// CUPTI's profiler API takes versioned parameter structs: each must start zeroed with its
// structSize set, or CUPTI rejects it. One macro for that, shared by the profiler's files.
#pragma once

#include <cstring>

/// Declares `name` of CUPTI parameter struct `type`, zeroed, with its structSize set.
#define GPUBENCH_CUPTI_PARAMS(type, name) \
  type name;                              \
  std::memset(&name, 0, sizeof(name));    \
  name.structSize = type##_STRUCT_SIZE
