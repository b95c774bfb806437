// A benchmark::Fixture for GPU benchmarks. Derive from gpubench::Fixture and register with
// GPUBENCH_F (or GPUBENCH_DEFINE_F + GPUBENCH_REGISTER_F) instead of BENCHMARK_F:
//
//   class Copy : public gpubench::Fixture { void SetUp(benchmark::State&) override; ... };
//   GPUBENCH_F(Copy, Bandwidth)(benchmark::State& state) {
//     for (auto _ : Iterations(state)) copy<<<grid, block, 0, stream()>>>(...);
//   }
//   GPUBENCH_REGISTER_F(Copy, Bandwidth)->Arg(1 << 28);   // only with GPUBENCH_DEFINE_F
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "gpubench/loop.hpp"
#include "gpubench/registration.hpp"

namespace gpubench {

class Fixture : public benchmark::Fixture {
 public:
  /// Sets UseManualTime(): GB reports the GPU time measured by Iterations().
  Fixture();

  /// Runs SetUp, the benchmark case and TearDown with the instance name known to gpubench.
  void Run(benchmark::State& state) override;

  /// Set by the GPUBENCH_* fixture macros; the family name GB shows ("Class/Method").
  void SetFamilyName(const std::string& name) { family_name_ = name; }

 protected:
  /// The GPU-timed loop over this run's iterations, on stream().
  Loop Iterations(benchmark::State& state) { return Loop(state, stream_); }
  /// The stream the benchmark case launches on; nullptr (the default stream) unless set.
  cudaStream_t stream() const { return stream_; }
  /// Use `stream` for the timed work (for example one created in SetUp).
  void SetStream(cudaStream_t stream) { stream_ = stream; }

 private:
  std::string family_name_;
  cudaStream_t stream_ = nullptr;
};

namespace detail {
/// Hands `fixture` to GB's registry (GB owns it from then on).
BenchmarkHandle* RegisterFixtureInstance(Fixture* fixture);

template <class Derived>
BenchmarkHandle* RegisterFixture(const char* family_name) {
  auto* fixture = new Derived();  // GB owns registered benchmarks
  fixture->SetFamilyName(family_name);
  return RegisterFixtureInstance(fixture);
}
}  // namespace detail

}  // namespace gpubench

#define GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method) BaseClass##_##Method##_GpuBenchmark

#define GPUBENCH_PRIVATE_DECLARE_F(BaseClass, Method)                                              \
  class GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method) : public BaseClass {                     \
   public:                                                                                         \
    GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method)() { this->SetName(#BaseClass "/" #Method); } \
                                                                                                   \
   protected:                                                                                      \
    void BenchmarkCase(::benchmark::State&) override;                                              \
  };

/// Defines a fixture benchmark's body; register it with GPUBENCH_REGISTER_F.
#define GPUBENCH_DEFINE_F(BaseClass, Method)    \
  GPUBENCH_PRIVATE_DECLARE_F(BaseClass, Method) \
  void GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method)::BenchmarkCase

/// Registers a GPUBENCH_DEFINE_F benchmark; returns GB's object for ->Arg() and friends.
#define GPUBENCH_REGISTER_F(BaseClass, Method)                                                \
  BENCHMARK_PRIVATE_DECLARE(gpubench_f_) =                                                    \
      ::gpubench::detail::RegisterFixture<GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method)>( \
          #BaseClass "/" #Method)

/// Defines and registers a fixture benchmark in one go, like BENCHMARK_F.
#define GPUBENCH_F(BaseClass, Method)           \
  GPUBENCH_PRIVATE_DECLARE_F(BaseClass, Method) \
  GPUBENCH_REGISTER_F(BaseClass, Method);       \
  void GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method)::BenchmarkCase
