// Whether CUPTI stays attached to the process. Once any CUPTI call has attached it, held short
// kernels run slower for the rest of the process, even after every subscriber and profiler has
// gone: on an H200 a 1-warp kernel measured 3.17-3.23 us in a process that never attached
// CUPTI and 3.39-3.43 us after a callback subscriber had come and gone (docs/accuracy.md
// "Metrics on and off"). So gpubench detaches CUPTI (cuptiFinalize) whenever none of its users
// needs it, and the timed iterations run without it. That works for the stream watch's
// callbacks; the range profiler and the activity timer (timer=cupti) cannot attach again to a
// context after a detach, so once either is used CUPTI stays attached.
#pragma once

namespace gpubench::detail {

class CuptiAttachment {
 public:
  /// A user starts needing CUPTI (a callback subscription).
  static void Acquire();
  /// It no longer does. CUPTI stays attached until DetachIfUnused.
  static void Release();
  /// Detaches CUPTI when no user needs it. Call only where the GPU work of every earlier CUPTI
  /// use has finished (after a synchronization), as cuptiFinalize requires.
  static void DetachIfUnused();
  /// CUPTI stays attached to the exit: for the range profiler and timer=cupti, and when another
  /// CUPTI client is in the process (ncu, nsys; the run plan's CUDA tool, from
  /// CUDA_INJECTION64_PATH), which a detach would detach too.
  static void KeepAttached();
};

}  // namespace gpubench::detail
