// The size of the L2 flush (cache=flush): the backend allocates it, the context block states it.
#pragma once

#include <algorithm>
#include <cstdint>

namespace gpubench::detail {

/// Bytes read by the flush kernel: twice the L2 size (so no line of the previous iteration can
/// survive it), at least 8 MiB.
inline int64_t FlushBytes(int64_t l2_bytes) {
  return std::max<int64_t>(2 * l2_bytes, int64_t{8} << 20);
}

}  // namespace gpubench::detail
