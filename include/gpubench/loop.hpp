// The GPU-timed benchmark loop: `for (auto _ : gpubench::Loop(state)) { launch(...); }`.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

namespace gpubench {
namespace detail {
class IterationController;
}  // namespace detail

/// Range over the iterations of one benchmark run. It runs one untimed warm-up iteration, then
/// GB's iterations timed on the GPU (manual time), each inside an NVTX range named after the
/// benchmark instance, with the cache policy applied outside the timed region; then, when
/// hardware metrics are on, the profiled iterations. The loop body must enqueue its GPU work on
/// `stream` (default: the legacy default stream, which orders with every blocking stream).
///
/// The benchmark must be registered through gpubench (GPUBENCH_BENCHMARK or the GPUBENCH_* form
/// of any other BENCHMARK_* macro, gpubench::RegisterBenchmark, a gpubench::Fixture), so that GB
/// reports GPU time and the ranges carry GB's name; GB >= 1.8 also lets a gpubench::Fixture keep
/// GB's fixture macros, and GB >= 1.9.5 a function GB's macro with ->UseManualTime()
/// (docs/user_guide.md). Errors (no device, CUDA errors in the body, ->Threads(n) with n > 1) end
/// the loop early and are reported through State::SkipWithError; code after the loop still runs.
class Loop {
 public:
  explicit Loop(benchmark::State& state, cudaStream_t stream = nullptr);
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  class Iterator {
   public:
    struct
#if defined(__GNUC__) || defined(__clang__)
        __attribute__((unused))
#endif
        Value {
    };
    Value operator*() const { return Value(); }
    Iterator& operator++() { return *this; }
    /// Advances the loop's state machine; false once the body must not run again.
    bool operator!=(const Iterator& end) const;

   private:
    friend class Loop;
    explicit Iterator(detail::IterationController* controller) : controller_(controller) {}
    detail::IterationController* controller_;
  };

  Iterator begin();
  Iterator end();

  /// The stream the body must use (the one given to the constructor).
  cudaStream_t stream() const { return stream_; }

 private:
  cudaStream_t stream_;
  std::unique_ptr<detail::IterationController> controller_;
};

/// Keeps GPU work of the loop body out of the GPU time, as state.PauseTiming() would for CPU
/// time (GB ignores PauseTiming under manual time, and inside gpubench::Loop its check aborts on
/// it in the untimed bodies; gpubench explains that abort):
///
///   for (auto _ : gpubench::Loop(state)) {
///     {
///       gpubench::UntimedScope untimed(state);
///       cudaMemcpyAsync(data, pristine, bytes, cudaMemcpyDeviceToDevice);  // restore the input
///     }
///     Sort<<<grid, block>>>(data, n);
///   }
///
/// The work enclosed must be on the loop's stream (or the legacy default stream): the scope
/// stops the GPU timer on that stream where it begins and restarts it where it ends, so the GPU
/// time is the span minus the scope's span. The busy measurement (gpu_busy_time) and the
/// hardware metrics (bytes, gpu_duration) leave the enclosed work out too: the profiled range
/// closes at the scope and opens again after its work, and an iteration's counters are the sums
/// of its ranges; a metric that cannot be summed (a share such as l2_hit_rate) is then left out
/// and the row says so (docs/user_guide.md "Benchmarks that synchronise"). In the warm-up body
/// the scope does nothing but count: a profiled body may not enter more scopes than it.
class UntimedScope {
 public:
  explicit UntimedScope(benchmark::State& state);
  ~UntimedScope();
  UntimedScope(const UntimedScope&) = delete;
  UntimedScope& operator=(const UntimedScope&) = delete;

 private:
  benchmark::State& state_;
  bool active_ = false;
};

/// Declares the floating-point operations of all the call's iterations together, as GB's
/// SetBytesProcessed declares bytes: GB shows them as counter flops_per_second (FLOP per second
/// of GPU time), and gpubench adds declared_flop (per iteration) and, with the metric group
/// +flops, flop_count_ratio = measured flop_count / declared_flop. Call it after the loop.
inline void SetFlopsProcessed(benchmark::State& state, int64_t flops) {
  state.counters["flops_per_second"] =
      benchmark::Counter(static_cast<double>(flops), benchmark::Counter::kIsRate);
}

}  // namespace gpubench
