// The one place where CUDA runtime error codes become gpubench Status values.
#pragma once

#include <cuda_runtime_api.h>

#include "common/status.hpp"

namespace gpubench::detail {

/// True for errors that corrupt the CUDA context: every later CUDA call in the process fails.
bool IsStickyCudaError(cudaError_t error);

/// "what: cudaErrorName (description)" as an error (or context-lost) Status; Ok for success.
Status CudaStatus(cudaError_t error, const char* what);

}  // namespace gpubench::detail
