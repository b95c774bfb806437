// Whether CUPTI stays attached to the process. Once any CUPTI call has attached it, held short
// kernels run slower for the rest of the process, even after every subscriber and profiler has
// gone: on an H200 a 1-warp kernel measured 3.17-3.23 us in a process that never attached
// CUPTI and 3.39-3.43 us after a callback subscriber had come and gone (docs/accuracy.md
// "Metrics on and off"). So gpubench detaches CUPTI (cuptiFinalize) whenever none of its users
// needs it, and the timed iterations run without it.
#pragma once

namespace gpubench::detail {

class CuptiAttachment {
 public:
  /// A user starts needing CUPTI (a callback subscription, a profiling session, timer=cupti).
  static void Acquire();
  /// It no longer does. CUPTI stays attached until DetachIfUnused.
  static void Release();
  /// Detaches CUPTI when no user needs it. Call only where the GPU work of every earlier CUPTI
  /// use has finished (after a synchronization), as cuptiFinalize requires.
  static void DetachIfUnused();
  /// Another CUPTI client is in the process (ncu, nsys): never detach, it would detach that
  /// tool too. Also assumed when CUDA_INJECTION64_PATH is set.
  static void KeepForOtherClient();
};

}  // namespace gpubench::detail
