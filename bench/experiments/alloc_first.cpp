// An LD_PRELOAD library that makes one GPU allocation before the program's own: at load time it
// allocates ALLOC_FIRST_MIB MiB in the device's primary context (the one the CUDA runtime uses)
// and keeps it. It shows what an allocation made before a plain-GB suite's data, as gpubench makes
// its L2 flush buffer, does to the suite's numbers (docs/accuracy.md "A number and what ran before
// it"). Plain CUDA driver API, no gpubench inside.
// ALLOC_FIRST_TOUCH=1 also writes the allocation (cuMemsetD8). Preloaded into /bin/true it is a
// process that takes that much GPU memory and exits, which the driver then scrubs.
//   LD_PRELOAD=libgpubench_alloc_first.so ALLOC_FIRST_MIB=100 ./plain_suite
#include <cuda.h>

#include <cstdio>
#include <cstdlib>

namespace {

bool Ok(CUresult result, const char* call) {
  if (result == CUDA_SUCCESS) return true;
  const char* text = nullptr;
  cuGetErrorString(result, &text);
  std::fprintf(stderr, "alloc_first: %s failed: %s\n", call, text != nullptr ? text : "?");
  return false;
}

__attribute__((constructor)) void AllocateFirst() {
  const char* mib_text = std::getenv("ALLOC_FIRST_MIB");
  const long mib = mib_text != nullptr ? std::atol(mib_text) : 0;
  if (mib <= 0) return;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUdeviceptr pointer = 0;
  if (!Ok(cuInit(0), "cuInit") || !Ok(cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !Ok(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain") ||
      !Ok(cuCtxPushCurrent(context), "cuCtxPushCurrent")) {
    return;
  }
  const size_t bytes = static_cast<size_t>(mib) << 20;
  const char* touch = std::getenv("ALLOC_FIRST_TOUCH");
  if (Ok(cuMemAlloc(&pointer, bytes), "cuMemAlloc")) {
    if (touch != nullptr && touch[0] == '1') {
      Ok(cuMemsetD8(pointer, 0x5a, bytes), "cuMemsetD8");
      Ok(cuCtxSynchronize(), "cuCtxSynchronize");
    }
    std::fprintf(stderr, "alloc_first: %ld MiB at 0x%llx\n", mib,
                 static_cast<unsigned long long>(pointer));
  }
  cuCtxPopCurrent(&context);
}

}  // namespace
