// One benchmark source for CUDA and for other backends (HIP, OpenMP, CPU): include this header
// instead of <gpubench/gpubench.hpp> and write the bodies with gpubench's names:
//
//   #include <gpubench/portable.hpp>
//   static void BM_Copy(benchmark::State& state) {
//     for (auto _ : gpubench::Loop(state)) copy(dst, src, n);
//   }
//   GPUBENCH_BENCHMARK(BM_Copy)->Arg(1 << 28);
//   GPUBENCH_MAIN();
//
// Where GPUBENCH_AVAILABLE is defined (linking gpubench::gpubench, or pkg-config's Cflags, sets
// it) this is <gpubench/gpubench.hpp>. Elsewhere the same names are plain Google Benchmark: the
// loop is GB's `for (auto _ : state)`, the macros are GB's BENCHMARK_* forms with the same names,
// and gpubench::Main is what BENCHMARK_MAIN() does. That branch needs only GB's header: copy
// this file into the suite's own tree, or add gpubench's include folder to the include path
// (docs/user_guide.md "One source for CUDA and other backends").
#pragma once

#ifdef GPUBENCH_AVAILABLE

#include <gpubench/gpubench.hpp>

#else

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace gpubench {

/// GB's benchmark class, as gpubench names it.
using BenchmarkHandle = std::remove_pointer_t<decltype(benchmark::RegisterBenchmark(
    "", static_cast<void (*)(benchmark::State&)>(nullptr)))>;

/// `for (auto _ : gpubench::Loop(state))` is `for (auto _ : state)`; a stream of any type is
/// ignored. Use it only as the range of the for loop (it is GB's state itself here).
template <class... Stream>
benchmark::State& Loop(benchmark::State& state, Stream&&...) {
  return state;
}

/// Leaves what it encloses out of GB's time: PauseTiming here, ResumeTiming at its end.
class UntimedScope {
 public:
  explicit UntimedScope(benchmark::State& state) : state_(state) { state_.PauseTiming(); }
  ~UntimedScope() { state_.ResumeTiming(); }
  UntimedScope(const UntimedScope&) = delete;
  UntimedScope& operator=(const UntimedScope&) = delete;

 private:
  benchmark::State& state_;
};

/// GB shows the FLOP of all the call's iterations as the rate flops_per_second, as gpubench does.
inline void SetFlopsProcessed(benchmark::State& state, int64_t flops) {
  state.counters["flops_per_second"] =
      benchmark::Counter(static_cast<double>(flops), benchmark::Counter::kIsRate);
}

/// The stream a Fixture was given with SetStream: any pointer (a hipStream_t, a cudaStream_t),
/// which it converts back to; nullptr (the default stream) unless set.
class FixtureStream {
 public:
  FixtureStream() = default;
  FixtureStream(std::nullptr_t) {}
  template <class T>
  FixtureStream(T* stream) : stream_(stream) {}
  template <class T>
  operator T*() const {
    return static_cast<T*>(stream_);
  }

 private:
  void* stream_ = nullptr;
};

/// gpubench::Fixture's members for the bodies: Iterations(state) is the state, stream() the
/// stream given to SetStream.
class Fixture : public benchmark::Fixture {
 protected:
  benchmark::State& Iterations(benchmark::State& state) { return state; }
  FixtureStream stream() const { return stream_; }
  void SetStream(FixtureStream stream) { stream_ = stream; }

 private:
  FixtureStream stream_;
};

/// benchmark::RegisterBenchmark, taking the name as gpubench's does.
template <class... Args>
BenchmarkHandle* RegisterBenchmark(const std::string& name, Args&&... args) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Args>(args)...);
}

/// What gpubench::Initialize decided; here always to run.
struct InitResult {
  bool run_benchmarks = true;
  int exit_code = 0;
};

/// Does nothing: there are no --gpubench_* flags without gpubench.
[[nodiscard]] inline InitResult Initialize(int*, char**) { return InitResult{true, 0}; }

/// What BENCHMARK_MAIN()'s main does; before_benchmarks (if not null) is called once after
/// benchmark::Initialize, before the benchmarks run.
inline int Main(int argc, char** argv, void (*before_benchmarks)()) {
  char arg0_default[] = "benchmark";
  char* args_default = arg0_default;
  if (argv == nullptr) {  // as GB's BENCHMARK_MAIN() does
    argc = 1;
    argv = &args_default;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (before_benchmarks != nullptr) before_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

inline int Main(int argc, char** argv) { return Main(argc, argv, nullptr); }

}  // namespace gpubench

#define GPUBENCH_MAIN BENCHMARK_MAIN
#define GPUBENCH_BENCHMARK BENCHMARK
#define GPUBENCH_CAPTURE BENCHMARK_CAPTURE
#define GPUBENCH_TEMPLATE BENCHMARK_TEMPLATE
#define GPUBENCH_TEMPLATE1 BENCHMARK_TEMPLATE1
#define GPUBENCH_TEMPLATE2 BENCHMARK_TEMPLATE2
#define GPUBENCH_F BENCHMARK_F
#define GPUBENCH_DEFINE_F BENCHMARK_DEFINE_F
#define GPUBENCH_REGISTER_F BENCHMARK_REGISTER_F
#define GPUBENCH_TEMPLATE_F BENCHMARK_TEMPLATE_F
#define GPUBENCH_TEMPLATE1_F BENCHMARK_TEMPLATE1_F
#define GPUBENCH_TEMPLATE2_F BENCHMARK_TEMPLATE2_F
#define GPUBENCH_TEMPLATE_DEFINE_F BENCHMARK_TEMPLATE_DEFINE_F
#define GPUBENCH_TEMPLATE1_DEFINE_F BENCHMARK_TEMPLATE1_DEFINE_F
#define GPUBENCH_TEMPLATE2_DEFINE_F BENCHMARK_TEMPLATE2_DEFINE_F
   // The forms GB added later exist here where this GB has them (gpubench has them on every GB).
#ifdef BENCHMARK_NAMED  // GB main
#define GPUBENCH_NAMED BENCHMARK_NAMED
#endif
#ifdef BENCHMARK_TEMPLATE1_CAPTURE  // GB >= 1.8.4
#define GPUBENCH_TEMPLATE1_CAPTURE BENCHMARK_TEMPLATE1_CAPTURE
#define GPUBENCH_TEMPLATE2_CAPTURE BENCHMARK_TEMPLATE2_CAPTURE
#endif
#ifdef BENCHMARK_TEMPLATE_METHOD_F  // GB >= 1.9.4
#define GPUBENCH_TEMPLATE_METHOD_F BENCHMARK_TEMPLATE_METHOD_F
#define GPUBENCH_TEMPLATE_INSTANTIATE_F BENCHMARK_TEMPLATE_INSTANTIATE_F
#endif

#endif  // GPUBENCH_AVAILABLE
