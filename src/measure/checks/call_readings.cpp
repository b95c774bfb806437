#include "measure/checks/call_readings.hpp"

#include <algorithm>

namespace gpubench::detail {

void CallReadings::Record(const std::string& instance, int64_t iterations, double seconds) {
  pending_.push_back({instance, iterations, seconds});
}

const CallReadings::Repetitions& CallReadings::Claim(const std::string& instance) {
  Repetitions& claimed = claimed_[instance];
  const auto last = std::find_if(pending_.rbegin(), pending_.rend(),
                                 [&](const Reading& r) { return r.instance == instance; });
  if (last == pending_.rend()) return claimed;
  claimed.iterations = last->iterations;
  claimed.seconds.clear();
  for (const Reading& reading : pending_) {
    if (reading.instance == instance && reading.iterations == claimed.iterations) {
      claimed.seconds.push_back(reading.seconds);
    }
  }
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                [&](const Reading& r) { return r.instance == instance; }),
                 pending_.end());
  return claimed;
}

}  // namespace gpubench::detail
