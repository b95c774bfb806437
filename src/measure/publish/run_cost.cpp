#include "measure/publish/run_cost.hpp"

#include <algorithm>
#include <cstdio>

namespace gpubench::detail {

std::optional<RunCost::Row> RunCost::LoopDone(const CallResult& call, bool trial, bool wrapped,
                                              bool profiled_here) {
  const double loop_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - call.loop_start).count();
  if (trial) {
    trial_calls_ += call.wall_warmup_seconds + call.wall_timed_seconds;
  } else {
    warmup_ += call.wall_warmup_seconds;
    timed_ += call.wall_timed_seconds;
  }
  if (profiled_here) profiling_ += call.wall_profiling_seconds;
  const LastCall last{call.instance, trial, loop_seconds, call.wall_profiling_seconds,
                      call.iterations};
  if (!wrapped) return CallDone(last, loop_seconds);
  last_ = last;
  return std::nullopt;
}

std::optional<RunCost::Row> RunCost::FunctionDone(double function_seconds) {
  if (!last_) return std::nullopt;
  const LastCall call = *last_;
  last_.reset();
  return CallDone(call, function_seconds);
}

std::optional<RunCost::Row> RunCost::CallDone(const LastCall& call, double function_seconds) {
  // What the function spent outside its loop (its set-up and tear-down).
  setup_ += std::max(0.0, function_seconds - call.loop_seconds);
  Pending& pending = trials_[call.instance];
  if (call.trial) {
    pending.seconds += function_seconds;
    pending.samples += call.iterations;
    return std::nullopt;
  }
  const Row row{function_seconds + call.profiling_seconds + pending.seconds,
                call.iterations + pending.samples};
  trials_.erase(call.instance);
  return row;
}

std::string RunCost::Summary() const {
  if (!start_) return "";
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - *start_).count();
  const double rest = total - profiling_ - warmup_ - timed_ - trial_calls_ - setup_;
  char line[512];
  std::snprintf(line, sizeof(line),
                "gpubench: the run took %.1f s of wall time: profiling %.1f s, warm-up %.1f s, "
                "timed samples %.1f s, GB's trial calls %.1f s, the benchmarks' own set-up and "
                "tear-down %.1f s, the rest %.1f s (process start, CUDA, GB, output)\n",
                total, profiling_, warmup_, timed_, trial_calls_, setup_, std::max(rest, 0.0));
  return line;
}

}  // namespace gpubench::detail
