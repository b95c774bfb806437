// Work on large inputs split in two halves, the second on a helper thread: the tools run on
// 2-core CI machines, where loading uses both cores and the steps after it would use one.
#pragma once

#include <cstddef>
#include <exception>
#include <thread>

namespace gpubench::tools {

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

/// Calls work(half, i) for every i in [0, count), in rounds of `per_round`: each round's items in
/// two halves (OnTwoHalves; on two threads when count is at least kItemsWorthAThread), then
/// after_round() before the next, so that a round's output can be sent in order and its buffers
/// reused.
template <typename Work, typename AfterRound>
void InRoundsOnTwoHalves(std::size_t count, std::size_t per_round, Work work,
                         AfterRound after_round) {
  const std::size_t worth_a_thread = count >= kItemsWorthAThread ? 2 : kItemsWorthAThread;
  for (std::size_t first = 0; first < count; first += per_round) {
    const std::size_t round = count - first < per_round ? count - first : per_round;
    OnTwoHalves(
        round,
        [&](int half, std::size_t begin, std::size_t end) {
          for (std::size_t i = first + begin; i < first + end; ++i) work(half, i);
        },
        worth_a_thread);
    after_round();
  }
}

}  // namespace gpubench::tools
