// A CUDA driver function through the runtime, which has loaded the driver already: gpubench
// links no libcuda of its own, so that a binary starts (and skips its GPU work with a reason)
// on a machine without the driver.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace gpubench::detail {

/// `name` as the CUDA version gpubench was compiled against declares it (its parameter structs
/// are that version's), or null where the driver lacks it.
template <class Function>
Function DriverFunction(const char* name) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &function, CUDA_VERSION, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<Function>(function);
}

}  // namespace gpubench::detail
