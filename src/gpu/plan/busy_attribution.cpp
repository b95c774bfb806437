#include "gpu/plan/busy_attribution.hpp"

#include <algorithm>
#include <map>

namespace gpubench::detail {
namespace {

// The length of the union of [start, end) intervals.
uint64_t UnionLength(std::vector<std::pair<uint64_t, uint64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  uint64_t total = 0, covered_to = 0;
  for (const auto& [start, end] : intervals) {
    if (end <= covered_to) continue;
    total += end - std::max(start, covered_to);
    covered_to = end;
  }
  return total;
}

// The iteration whose host windows hold `time`, or -1.
class WindowIndex {
 public:
  explicit WindowIndex(const std::vector<std::vector<HostWindow>>& windows) {
    for (size_t i = 0; i < windows.size(); ++i) {
      for (const HostWindow& window : windows[i]) {
        if (window.second > window.first) starts_.push_back({window, static_cast<int>(i)});
      }
    }
    std::sort(starts_.begin(), starts_.end());
  }
  int IterationAt(uint64_t time) const {
    auto after = std::upper_bound(starts_.begin(), starts_.end(), time,
                                  [](uint64_t t, const Entry& e) { return t < e.first.first; });
    if (after == starts_.begin()) return -1;
    const Entry& entry = *std::prev(after);
    return time < entry.first.second ? entry.second : -1;
  }

 private:
  using Entry = std::pair<HostWindow, int>;
  std::vector<Entry> starts_;
};

}  // namespace

BusyAttribution AttributeBusy(const ActivityRecords& records,
                              const std::unordered_map<uint32_t, uint64_t>& iteration_of,
                              const std::vector<std::vector<HostWindow>>& windows) {
  BusyAttribution result;
  const size_t iterations = windows.size();
  if (iterations == 0) return result;
  const WindowIndex index(windows);
  // -1: not the body's. The loop thread's calls carry their iteration; another thread's call is
  // the body's if it started while the body ran.
  const auto iteration_of_call = [&](uint32_t correlation, uint64_t start) -> int {
    const auto link = iteration_of.find(correlation);
    if (link != iteration_of.end()) return link->second < iterations ? int(link->second) : -1;
    return index.IterationAt(start);
  };
  std::unordered_map<uint32_t, uint64_t> unlinked_start;  // correlation -> call's host start
  for (const auto* calls : {&records.runtime, &records.driver}) {
    for (const RuntimeCall& call : *calls) {
      if (iteration_of.count(call.correlation) == 0) unlinked_start[call.correlation] = call.start;
    }
  }
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> intervals(iterations);
  size_t items = 0, other_thread = 0;
  for (const GpuActivity& work : records.gpu) {
    int iteration = -1;
    const auto link = iteration_of.find(work.correlation);
    if (link != iteration_of.end()) {
      iteration = link->second < iterations ? static_cast<int>(link->second) : -1;
    } else {
      const auto call = unlinked_start.find(work.correlation);
      iteration = index.IterationAt(call != unlinked_start.end() ? call->second : work.start);
      if (iteration >= 0) ++other_thread;
    }
    if (iteration < 0) continue;
    intervals[iteration].emplace_back(work.start, work.end);
    ++items;
  }
  uint64_t busy = 0;
  for (auto& iteration : intervals) busy += UnionLength(std::move(iteration));
  std::map<uint32_t, std::pair<size_t, uint64_t>> by_call;  // callback id -> calls, ns
  for (const RuntimeCall& call : records.runtime) {
    if (iteration_of_call(call.correlation, call.start) < 0) continue;
    auto& [count, nanoseconds] = by_call[call.callback_id];
    ++count;
    nanoseconds += call.end > call.start ? call.end - call.start : 0;
  }
  const double n = static_cast<double>(iterations);
  result.iterations = static_cast<int>(iterations);
  result.busy_seconds = static_cast<double>(busy) * 1e-9 / n;
  result.work_items = static_cast<double>(items) / n;
  result.other_thread_items = static_cast<double>(other_thread) / n;
  for (const auto& [id, totals] : by_call) {
    result.calls.push_back(
        {id, static_cast<double>(totals.first) / n, static_cast<double>(totals.second) * 1e-9 / n});
  }
  return result;
}

}  // namespace gpubench::detail
