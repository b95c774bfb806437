// Work on large inputs split in two halves, the second on a helper thread: the tools run on
// 2-core CI machines, where loading uses both cores and the steps after it would use one.
#pragma once

#include <cstddef>
#include <exception>
#include <thread>

namespace gpubench::compare {

/// Below this many items one thread does all the work.
inline constexpr std::size_t kItemsWorthAThread = 2000;

/// Calls work(half, begin, end) for [0, middle) and [middle, count), concurrently when count is
/// at least `worth_a_thread` (else the second half is empty). Returns when both are done.
/// What the helper thread throws (std::bad_alloc) is rethrown here once both halves are done.
template <typename Work>
void OnTwoHalves(std::size_t count, Work work, std::size_t worth_a_thread = kItemsWorthAThread) {
  const std::size_t middle = count >= worth_a_thread ? count / 2 : count;
  std::exception_ptr helper_error;
  std::thread helper;
  if (middle < count) {
    helper = std::thread([&] {
      try {
        work(1, middle, count);
      } catch (...) {
        helper_error = std::current_exception();
      }
    });
  }
  struct Join {  // also when the first half throws
    std::thread& thread;
    ~Join() {
      if (thread.joinable()) thread.join();
    }
  } join{helper};
  work(0, 0, middle);
  if (helper.joinable()) helper.join();
  if (helper_error) std::rethrow_exception(helper_error);
  if (middle == count) work(1, count, count);
}

}  // namespace gpubench::compare
