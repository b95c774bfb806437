// The one place where CUPTI result codes become gpubench Status values with advice.
#pragma once

#include <cupti_result.h>

#include <string>

#include "common/status.hpp"

namespace gpubench::detail {

/// Why hardware metrics cannot be collected, grouped by what the user can do about it.
enum class CuptiFailure { kNone, kPrivileges, kUnsupportedDevice, kOtherProfiler, kOther };

CuptiFailure ClassifyCuptiResult(CUptiResult result);

/// "what: CUPTI_ERROR_NAME: advice" (advice for privileges, unsupported devices and other
/// profilers); Ok for CUPTI_SUCCESS.
Status CuptiStatus(CUptiResult result, const char* what);

}  // namespace gpubench::detail
