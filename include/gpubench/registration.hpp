// Registering GPU benchmarks: one GPUBENCH_* macro for each of GB's BENCHMARK_* function forms,
// with the same arguments and the same registered name, plus UseManualTime() so that GB reports
// the GPU time, and the name gpubench gives the NVTX ranges. Fixture forms: fixture.hpp.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace gpubench {

/// GB's benchmark class (benchmark::internal::Benchmark before GB 1.9, benchmark::Benchmark
/// after), named without naming either.
using BenchmarkHandle = std::remove_pointer_t<decltype(benchmark::RegisterBenchmark(
    "", static_cast<void (*)(benchmark::State&)>(nullptr)))>;

namespace detail {

/// Makes the running instance's family name known to gpubench::Loop: GB's own (State::name(),
/// GB >= 1.8, which sees a later ->Name()) where GB has it, else `registered`; nothing when
/// neither is known (registered == nullptr before GB 1.8), and the loop then says why. While the
/// function runs, an abort of the process leaves an error row for the instance in the JSON
/// (measure/call/abort_note.hpp). When the benchmark function has returned, it adds the counters
/// of what the function declared after its loop (SetBytesProcessed, SetFlopsProcessed):
/// declared_bytes, dram_traffic_ratio, ...
class InstanceScope {
 public:
  InstanceScope(const std::string* registered, const BenchmarkHandle& benchmark,
                benchmark::State& state);
  ~InstanceScope();
  InstanceScope(const InstanceScope&) = delete;
  InstanceScope& operator=(const InstanceScope&) = delete;

  /// Whether the benchmark function (a fixture's SetUp, case and TearDown) is to be called: not
  /// where gpubench::Initialize found no usable CUDA device (its set-up would fail, or abort the
  /// process in a suite's error check), nor for an instance the profiling child aborted in (the
  /// row is then already an error that says why), nor with --gpubench_reuse for one the profiling
  /// child signed and found unchanged (the row is then already the reused one).
  bool runs() const { return runs_; }

 private:
  std::string family_;
  benchmark::State& state_;
  int64_t loops_at_start_ = 0;  ///< gpubench::Loop objects made before the call
  bool runs_ = true;
  bool armed_ = false;  ///< an abort writes this instance's row
  bool reused_from_child_ = false;
};

/// Zeroes the 64 KiB of stack below its caller's frame. Called right before a benchmark function
/// runs: bytes that the function never writes (the padding of a struct or lambda it passes to a
/// kernel by value) are then zero in every process, not what gpubench or GB left there, and do not
/// change the work signature (--gpubench_reuse) from run to run.
void ClearStackBelowCaller() noexcept;

/// Calls fn(state) in a frame of its own, which begins where ClearStackBelowCaller's began when
/// both are called from the same frame: the function's locals start on zeroed stack.
template <class Function>
__attribute__((noinline)) void CallInOwnFrame(Function& fn, benchmark::State& state) {
  fn(state);
}

struct RegisteredFamily {
  std::string name;
  BenchmarkHandle* benchmark = nullptr;
};

BenchmarkHandle* FinishRegistration(const std::shared_ptr<RegisteredFamily>& family,
                                    BenchmarkHandle* benchmark);

/// Called in a catch block: the benchmark function threw (a suite's own error check, e.g. a
/// CUDA_SAFE_CALL that throws). Ends the row with state.SkipWithError naming the exception, so
/// that the other benchmarks run and the JSON stays whole.
void SkipForException(benchmark::State& state) noexcept;

}  // namespace detail

/// Registers `fn` (callable as fn(benchmark::State&)) under `name` with manual (GPU) time, like
/// benchmark::RegisterBenchmark(name, fn); lambdas may capture. Returns GB's benchmark object
/// for ->Arg(), ->Range() and friends.
template <class Function>
BenchmarkHandle* RegisterBenchmark(const std::string& name, Function&& fn) {
  auto family = std::make_shared<detail::RegisteredFamily>();
  family->name = name;
  BenchmarkHandle* benchmark = benchmark::RegisterBenchmark(
      name.c_str(), [family, fn = std::forward<Function>(fn)](benchmark::State& state) mutable {
        detail::InstanceScope scope(&family->name, *family->benchmark, state);
        if (!scope.runs()) return;
        try {
          detail::ClearStackBelowCaller();
          detail::CallInOwnFrame(fn, state);
        } catch (...) {
          detail::SkipForException(state);
        }
      });
  return detail::FinishRegistration(family, benchmark);
}

/// Like benchmark::RegisterBenchmark(name, fn, args...): runs fn(state, args...), with copies
/// of `args` taken now.
template <class Function, class... Args>
BenchmarkHandle* RegisterBenchmark(const std::string& name, Function&& fn, Args&&... args) {
  return RegisterBenchmark(name, [=](benchmark::State& state) { fn(state, args...); });
}

}  // namespace gpubench

/// GPUBENCH_BENCHMARK(BM_Copy)->Arg(1 << 20); registers a function like BENCHMARK(BM_Copy),
/// with GPU time as the benchmark time. A template instance works too:
/// GPUBENCH_BENCHMARK(BM_T<float, int>) is named "BM_T<float, int>", as with BENCHMARK.
#define GPUBENCH_BENCHMARK(...) \
  BENCHMARK_PRIVATE_DECLARE(gpubench_) = ::gpubench::RegisterBenchmark(#__VA_ARGS__, __VA_ARGS__)

/// Like BENCHMARK_CAPTURE(func, case, args...): runs func(state, args...), named "func/case".
#define GPUBENCH_CAPTURE(func, test_case_name, ...)                     \
  BENCHMARK_PRIVATE_DECLARE(gpubench_) = ::gpubench::RegisterBenchmark( \
      #func "/" #test_case_name, [](::benchmark::State& st) { func(st, __VA_ARGS__); })

/// Like BENCHMARK_NAMED(func, case) (GB main): func under the name "func/case".
#define GPUBENCH_NAMED(func, test_case_name) \
  BENCHMARK_PRIVATE_DECLARE(gpubench_) =     \
      ::gpubench::RegisterBenchmark(#func "/" #test_case_name, func)

/// Like BENCHMARK_TEMPLATE(func, T...): func<T...>, named "func<T...>".
#define GPUBENCH_TEMPLATE(n, ...)                                       \
  BENCHMARK_PRIVATE_DECLARE(gpubench_) = ::gpubench::RegisterBenchmark( \
      #n "<" #__VA_ARGS__ ">", static_cast<void (*)(::benchmark::State&)>(n<__VA_ARGS__>))

/// Like BENCHMARK_TEMPLATE1(func, a): func<a>, named "func<a>".
#define GPUBENCH_TEMPLATE1(n, a)                                        \
  BENCHMARK_PRIVATE_DECLARE(gpubench_) = ::gpubench::RegisterBenchmark( \
      #n "<" #a ">", static_cast<void (*)(::benchmark::State&)>(n<a>))

/// Like BENCHMARK_TEMPLATE2(func, a, b): func<a, b>, named "func<a,b>" (no space, as GB spells
/// it).
#define GPUBENCH_TEMPLATE2(n, a, b)                                     \
  BENCHMARK_PRIVATE_DECLARE(gpubench_) = ::gpubench::RegisterBenchmark( \
      #n "<" #a "," #b ">", static_cast<void (*)(::benchmark::State&)>(n<a, b>))

/// Like BENCHMARK_TEMPLATE1_CAPTURE(func, a, case, args...) (GB >= 1.8.4): func<a>(state,
/// args...), named "func<a>/case".
#define GPUBENCH_TEMPLATE1_CAPTURE(func, a, test_case_name, ...) \
  GPUBENCH_CAPTURE(func<a>, test_case_name, __VA_ARGS__)

/// Like BENCHMARK_TEMPLATE2_CAPTURE(func, a, b, case, args...) (GB >= 1.8.4): func<a, b>(state,
/// args...), named "func<a,b>/case".
#define GPUBENCH_TEMPLATE2_CAPTURE(func, a, b, test_case_name, ...) \
  BENCHMARK_PRIVATE_DECLARE(gpubench_) =                            \
      ::gpubench::RegisterBenchmark(#func "<" #a "," #b             \
                                          ">"                       \
                                          "/" #test_case_name,      \
                                    [](::benchmark::State& st) { func<a, b>(st, __VA_ARGS__); })
