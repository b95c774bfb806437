#include <benchmark/benchmark.h>

#include "backend.hpp"
#include "gpubench/fixture.hpp"
#include "gpubench/registration.hpp"
#include "instance.hpp"

#include <algorithm>

namespace gpubench {
namespace detail {
namespace {

thread_local CurrentInstance current_instance;

// ArgsCnt() is protected before GB 1.9 and public after; a pointer to member formed inside a
// derived class reads it on any benchmark object in both.
struct ArgsCountReader : BenchmarkHandle {
  static int Read(const BenchmarkHandle& benchmark) {
    return (benchmark.*(&ArgsCountReader::ArgsCnt))();
  }
};

// GB 1.9 takes ownership through std::unique_ptr, earlier versions through a raw pointer.
template <class B>
auto RegisterOwned(B* benchmark, int)
    -> decltype(benchmark::internal::RegisterBenchmarkInternal(std::unique_ptr<B>(benchmark))) {
  return benchmark::internal::RegisterBenchmarkInternal(std::unique_ptr<B>(benchmark));
}
template <class B>
auto RegisterOwned(B* benchmark, long)
    -> decltype(benchmark::internal::RegisterBenchmarkInternal(benchmark)) {
  return benchmark::internal::RegisterBenchmarkInternal(benchmark);
}

}  // namespace

const CurrentInstance& GetCurrentInstance() { return current_instance; }

std::string InstanceName(const CurrentInstance& instance, const benchmark::State& state) {
  std::string name = instance.family != nullptr ? *instance.family : std::string("unregistered");
  for (int i = 0; i < instance.args_count; ++i) name += "/" + std::to_string(state.range(i));
  return name;
}

std::vector<std::string> NvtxRangePath(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= name.size()) {
    const size_t slash = std::min(name.find('/', start), name.size());
    if (slash > start) parts.push_back(name.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

InstanceScope::InstanceScope(const std::string& family, const BenchmarkHandle& benchmark) {
  current_instance.family = &family;
  current_instance.args_count = ArgsCountReader::Read(benchmark);
}

InstanceScope::~InstanceScope() { current_instance = CurrentInstance(); }

BenchmarkHandle* FinishRegistration(const std::shared_ptr<RegisteredFamily>& family,
                                    BenchmarkHandle* benchmark) {
  family->benchmark = benchmark;
  benchmark->UseManualTime();
  return benchmark;
}

BenchmarkHandle* RegisterFixtureInstance(Fixture* fixture) {
  BenchmarkHandle* registered = RegisterOwned(fixture, 0);
  registered->UseManualTime();
  return registered;
}

}  // namespace detail

Fixture::Fixture() { UseManualTime(); }

void Fixture::Run(benchmark::State& state) {
  if (family_name_.empty()) {
    // Registered with BENCHMARK_F/BENCHMARK_REGISTER_F: the loop will explain what to use.
    benchmark::Fixture::Run(state);
    return;
  }
  detail::InstanceScope scope(family_name_, *this);
  benchmark::Fixture::Run(state);
}

}  // namespace gpubench
