#include "gpu/cupti/cupti_status.hpp"

#include <cupti.h>

namespace gpubench::detail {

CuptiFailure ClassifyCuptiResult(CUptiResult result) {
  switch (result) {
    case CUPTI_SUCCESS:
      return CuptiFailure::kNone;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return CuptiFailure::kPrivileges;
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return CuptiFailure::kUnsupportedDevice;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
      return CuptiFailure::kOtherProfiler;
    default:
      return CuptiFailure::kOther;
  }
}

Status CuptiStatus(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return Status::Ok();
  const char* name = nullptr;
  if (cuptiGetResultString(result, &name) != CUPTI_SUCCESS || name == nullptr) {
    name = "CUPTI_ERROR_UNKNOWN";
  }
  std::string message = std::string(what) + ": " + name;
  switch (ClassifyCuptiResult(result)) {
    case CuptiFailure::kPrivileges:
      message +=
          ": GPU performance counters are restricted to administrators (ERR_NVGPUCTRPERM). Run "
          "as root, or allow all users with 'options nvidia NVreg_RestrictProfilingToAdminUsers=0'"
          " in a file under /etc/modprobe.d and reload the nvidia module (see "
          "https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
      break;
    case CuptiFailure::kUnsupportedDevice:
      message +=
          ": this device or configuration does not support the CUPTI profiler (MIG instances, "
          "vGPU without profiling, SLI, WSL, confidential computing and GPUs older than compute "
          "capability 7.0 do not)";
      break;
    case CuptiFailure::kOtherProfiler:
      message +=
          ": another profiler (ncu, nsys or a CUPTI tool) is attached to this process; only one "
          "CUPTI profiling client can run at a time";
      break;
    case CuptiFailure::kNone:
    case CuptiFailure::kOther:
      if (result == CUPTI_ERROR_HARDWARE_BUSY) {
        message +=
            ": another process is profiling this GPU (its performance counters are in use); "
            "hardware metrics are off for this run and its runs are marked gpu_shared=1, since "
            "that process's work also shares the GPU";
      }
      break;
  }
  return Status::Error(message);
}

}  // namespace gpubench::detail
