// Registering GPU benchmarks. Like BENCHMARK(fn), plus UseManualTime() so that GB reports the
// GPU time, and the instance name that gpubench gives its NVTX ranges.
#pragma once

#include <benchmark/benchmark.h>

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

/// Makes the registered family name known to gpubench::Loop while one instance runs.
class InstanceScope {
 public:
  InstanceScope(const std::string& family, const BenchmarkHandle& benchmark);
  ~InstanceScope();
  InstanceScope(const InstanceScope&) = delete;
  InstanceScope& operator=(const InstanceScope&) = delete;
};

struct RegisteredFamily {
  std::string name;
  BenchmarkHandle* benchmark = nullptr;
};

BenchmarkHandle* FinishRegistration(const std::shared_ptr<RegisteredFamily>& family,
                                    BenchmarkHandle* benchmark);

}  // namespace detail

/// Registers `fn` (callable as fn(benchmark::State&)) under `name` with manual (GPU) time.
/// Returns GB's benchmark object for ->Arg(), ->Range() and friends.
template <class Function>
BenchmarkHandle* RegisterBenchmark(const std::string& name, Function&& fn) {
  auto family = std::make_shared<detail::RegisteredFamily>();
  family->name = name;
  BenchmarkHandle* benchmark = benchmark::RegisterBenchmark(
      name.c_str(), [family, fn = std::forward<Function>(fn)](benchmark::State& state) mutable {
        detail::InstanceScope scope(family->name, *family->benchmark);
        fn(state);
      });
  return detail::FinishRegistration(family, benchmark);
}

}  // namespace gpubench

/// GPUBENCH_BENCHMARK(BM_Copy)->Arg(1 << 20); registers a function like BENCHMARK(BM_Copy),
/// with GPU time as the benchmark time.
#define GPUBENCH_BENCHMARK(fn) \
  BENCHMARK_PRIVATE_DECLARE(gpubench_) = ::gpubench::RegisterBenchmark(#fn, fn)
