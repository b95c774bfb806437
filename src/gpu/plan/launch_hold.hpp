// The stream hold of cache=flush (GpuOps::HoldStream): how long a hold waits for the host.
#pragma once

namespace gpubench::detail {

/// A hold that the host has not released after this long lets the stream go on by itself; in
/// the hold check after the warm-up that marks a body that waits for the GPU (launch_held=0).
inline constexpr unsigned kHoldTimeoutMs = 100;

}  // namespace gpubench::detail
