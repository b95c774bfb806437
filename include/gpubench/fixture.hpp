// A benchmark::Fixture for GPU benchmarks. Derive from gpubench::Fixture and register with the
// GPUBENCH_* form of GB's fixture macro (same arguments, same registered name):
//
//   class Copy : public gpubench::Fixture { void SetUp(benchmark::State&) override; ... };
//   GPUBENCH_F(Copy, Bandwidth)(benchmark::State& state) {
//     for (auto _ : Iterations(state)) copy<<<grid, block, 0, stream()>>>(...);
//   }
//   GPUBENCH_REGISTER_F(Copy, Bandwidth)->Arg(1 << 28);   // only with GPUBENCH_DEFINE_F
//
//   template <class T> class Sum : public gpubench::Fixture { ... };
//   GPUBENCH_TEMPLATE_DEFINE_F(Sum, Int, int)(benchmark::State& state) { ... }  // "Sum<int>/Int"
//   GPUBENCH_REGISTER_F(Sum, Int)->Arg(1 << 20);
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <type_traits>

#include "gpubench/loop.hpp"
#include "gpubench/registration.hpp"

namespace gpubench {

class Fixture : public benchmark::Fixture {
 public:
  /// Sets UseManualTime(): GB reports the GPU time measured by Iterations().
  Fixture();
  ~Fixture() override;

  /// Runs SetUp, the benchmark case and TearDown with the instance name known to gpubench.
  void Run(benchmark::State& state) override;

  /// Set by the GPUBENCH_* fixture macros; the family name GB shows ("Class/Method",
  /// "Class<T>/Method").
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
BenchmarkHandle* RegisterFixture() {
  static_assert(std::is_base_of_v<Fixture, Derived>,
                "the GPUBENCH_* fixture macros need a class derived from gpubench::Fixture");
  return RegisterFixtureInstance(new Derived());  // GB owns registered benchmarks
}
}  // namespace detail

}  // namespace gpubench

#define GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method) BaseClass##_##Method##_GpuBenchmark

// The generated class: its constructor gives the name to GB and to gpubench.
#define GPUBENCH_PRIVATE_FIXTURE_MEMBERS(ClassName, name) \
 public:                                                  \
  ClassName() {                                           \
    this->SetName(name);                                  \
    this->SetFamilyName(name);                            \
  }                                                       \
                                                          \
 protected:                                               \
  void BenchmarkCase(::benchmark::State&) override;

#define GPUBENCH_PRIVATE_DECLARE_F(BaseClass, Method)                                   \
  class GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method) : public BaseClass {          \
    GPUBENCH_PRIVATE_FIXTURE_MEMBERS(GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method), \
                                     #BaseClass "/" #Method)                            \
  };

#define GPUBENCH_PRIVATE_TEMPLATE_DECLARE_F(BaseClass, Method, ...)                         \
  class GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method) : public BaseClass<__VA_ARGS__> { \
    GPUBENCH_PRIVATE_FIXTURE_MEMBERS(GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method),     \
                                     #BaseClass "<" #__VA_ARGS__ ">/" #Method)              \
  };

#define GPUBENCH_PRIVATE_TEMPLATE1_DECLARE_F(BaseClass, Method, a)                      \
  class GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method) : public BaseClass<a> {       \
    GPUBENCH_PRIVATE_FIXTURE_MEMBERS(GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method), \
                                     #BaseClass "<" #a ">/" #Method)                    \
  };

#define GPUBENCH_PRIVATE_TEMPLATE2_DECLARE_F(BaseClass, Method, a, b)                   \
  class GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method) : public BaseClass<a, b> {    \
    GPUBENCH_PRIVATE_FIXTURE_MEMBERS(GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method), \
                                     #BaseClass "<" #a "," #b ">/" #Method)             \
  };

#define GPUBENCH_PRIVATE_CASE(BaseClass, Method) \
  void GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method)::BenchmarkCase

/// Defines a fixture benchmark's body, like BENCHMARK_DEFINE_F; register it with
/// GPUBENCH_REGISTER_F.
#define GPUBENCH_DEFINE_F(BaseClass, Method)    \
  GPUBENCH_PRIVATE_DECLARE_F(BaseClass, Method) \
  GPUBENCH_PRIVATE_CASE(BaseClass, Method)

/// Like BENCHMARK_TEMPLATE_DEFINE_F(BaseClass, Method, T...): the body for BaseClass<T...>,
/// named "BaseClass<T...>/Method"; register it with GPUBENCH_REGISTER_F(BaseClass, Method).
#define GPUBENCH_TEMPLATE_DEFINE_F(BaseClass, Method, ...)            \
  GPUBENCH_PRIVATE_TEMPLATE_DECLARE_F(BaseClass, Method, __VA_ARGS__) \
  GPUBENCH_PRIVATE_CASE(BaseClass, Method)

/// Like BENCHMARK_TEMPLATE1_DEFINE_F(BaseClass, Method, a): named "BaseClass<a>/Method".
#define GPUBENCH_TEMPLATE1_DEFINE_F(BaseClass, Method, a)    \
  GPUBENCH_PRIVATE_TEMPLATE1_DECLARE_F(BaseClass, Method, a) \
  GPUBENCH_PRIVATE_CASE(BaseClass, Method)

/// Like BENCHMARK_TEMPLATE2_DEFINE_F(BaseClass, Method, a, b): named "BaseClass<a,b>/Method".
#define GPUBENCH_TEMPLATE2_DEFINE_F(BaseClass, Method, a, b)    \
  GPUBENCH_PRIVATE_TEMPLATE2_DECLARE_F(BaseClass, Method, a, b) \
  GPUBENCH_PRIVATE_CASE(BaseClass, Method)

/// Registers a GPUBENCH_DEFINE_F or GPUBENCH_TEMPLATE*_DEFINE_F benchmark, like
/// BENCHMARK_REGISTER_F; returns GB's object for ->Arg() and friends.
#define GPUBENCH_REGISTER_F(BaseClass, Method) \
  BENCHMARK_PRIVATE_DECLARE(gpubench_f_) =     \
      ::gpubench::detail::RegisterFixture<GPUBENCH_PRIVATE_FIXTURE_CLASS(BaseClass, Method)>()

/// Defines and registers a fixture benchmark in one go, like BENCHMARK_F.
#define GPUBENCH_F(BaseClass, Method)           \
  GPUBENCH_PRIVATE_DECLARE_F(BaseClass, Method) \
  GPUBENCH_REGISTER_F(BaseClass, Method);       \
  GPUBENCH_PRIVATE_CASE(BaseClass, Method)

/// Like BENCHMARK_TEMPLATE_F(BaseClass, Method, T...): defines and registers the benchmark of
/// BaseClass<T...>, named "BaseClass<T...>/Method".
#define GPUBENCH_TEMPLATE_F(BaseClass, Method, ...)                   \
  GPUBENCH_PRIVATE_TEMPLATE_DECLARE_F(BaseClass, Method, __VA_ARGS__) \
  GPUBENCH_REGISTER_F(BaseClass, Method);                             \
  GPUBENCH_PRIVATE_CASE(BaseClass, Method)

/// Like BENCHMARK_TEMPLATE1_F(BaseClass, Method, a).
#define GPUBENCH_TEMPLATE1_F(BaseClass, Method, a)           \
  GPUBENCH_PRIVATE_TEMPLATE1_DECLARE_F(BaseClass, Method, a) \
  GPUBENCH_REGISTER_F(BaseClass, Method);                    \
  GPUBENCH_PRIVATE_CASE(BaseClass, Method)

/// Like BENCHMARK_TEMPLATE2_F(BaseClass, Method, a, b).
#define GPUBENCH_TEMPLATE2_F(BaseClass, Method, a, b)           \
  GPUBENCH_PRIVATE_TEMPLATE2_DECLARE_F(BaseClass, Method, a, b) \
  GPUBENCH_REGISTER_F(BaseClass, Method);                       \
  GPUBENCH_PRIVATE_CASE(BaseClass, Method)

#define GPUBENCH_PRIVATE_TEMPLATE_METHOD_CLASS(BaseClass, Method) \
  BaseClass##_##Method##_GpuBenchmarkTemplate

/// Like BENCHMARK_TEMPLATE_METHOD_F(BaseClass, Method) (GB >= 1.9.4): one body for every
/// BaseClass<T...>; inside it the fixture's members need `this->` (or `Base::`, the fixture
/// class). Register instances with GPUBENCH_TEMPLATE_INSTANTIATE_F.
#define GPUBENCH_TEMPLATE_METHOD_F(BaseClass, Method)                                           \
  template <class... Args>                                                                      \
  class GPUBENCH_PRIVATE_TEMPLATE_METHOD_CLASS(BaseClass, Method) : public BaseClass<Args...> { \
   protected:                                                                                   \
    using Base = BaseClass<Args...>;                                                            \
    void BenchmarkCase(::benchmark::State&) override;                                           \
  };                                                                                            \
  template <class... Args>                                                                      \
  void GPUBENCH_PRIVATE_TEMPLATE_METHOD_CLASS(BaseClass, Method)<Args...>::BenchmarkCase

#define GPUBENCH_PRIVATE_TEMPLATE_INSTANTIATE_F(BaseClass, Method, UniqueName, ...)     \
  class UniqueName                                                                      \
      : public GPUBENCH_PRIVATE_TEMPLATE_METHOD_CLASS(BaseClass, Method)<__VA_ARGS__> { \
   public:                                                                              \
    UniqueName() {                                                                      \
      this->SetName(#BaseClass "<" #__VA_ARGS__ ">/" #Method);                          \
      this->SetFamilyName(#BaseClass "<" #__VA_ARGS__ ">/" #Method);                    \
    }                                                                                   \
  };                                                                                    \
  BENCHMARK_PRIVATE_DECLARE(gpubench_f_) = ::gpubench::detail::RegisterFixture<UniqueName>()

/// Like BENCHMARK_TEMPLATE_INSTANTIATE_F(BaseClass, Method, T...) (GB >= 1.9.4): registers the
/// GPUBENCH_TEMPLATE_METHOD_F body for BaseClass<T...>, named "BaseClass<T...>/Method".
#define GPUBENCH_TEMPLATE_INSTANTIATE_F(BaseClass, Method, ...) \
  GPUBENCH_PRIVATE_TEMPLATE_INSTANTIATE_F(                      \
      BaseClass, Method, BENCHMARK_PRIVATE_NAME(BaseClass##Method##_gpubench_), __VA_ARGS__)
