// Work on large inputs split in two halves, the second on a helper thread: the tools run on
// 2-core CI machines, where loading uses both cores and the steps after it would use one.
#pragma once

#include <cstddef>
#include <thread>

namespace gpubench::compare {

/// Below this many items one thread does all the work.
inline constexpr std::size_t kItemsWorthAThread = 2000;

/// Calls work(half, begin, end) for [0, middle) and [middle, count), concurrently when count is
/// at least kItemsWorthAThread (else the second half is empty). Returns when both are done.
template <typename Work>
void OnTwoHalves(std::size_t count, Work work) {
  const std::size_t middle = count >= kItemsWorthAThread ? count / 2 : count;
  std::thread helper;
  if (middle < count) helper = std::thread([&] { work(1, middle, count); });
  work(0, 0, middle);
  if (helper.joinable()) helper.join();
  if (middle == count) work(1, count, count);
}

}  // namespace gpubench::compare
