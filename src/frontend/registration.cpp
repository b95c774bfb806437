#include <benchmark/benchmark.h>

#include "frontend/gb_compat.hpp"
#include "gpubench/fixture.hpp"
#include "gpubench/registration.hpp"
#include "measure/declared_work.hpp"
#include "measure/instance.hpp"

#include <algorithm>
#include <optional>

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

// GB applies a benchmark's own ->MinTime() in place of --benchmark_min_time, and keeps it in a
// private member (double min_time_, 0 when unset) in every version from 1.7 to main, with no
// getter. C++ does not check access for names in an explicit instantiation, so the
// instantiation below hands out a pointer to that member; a GB that renamed the member would
// fail to compile here rather than be misread.
struct MinTimeMember {
  using type = double BenchmarkHandle::*;
  friend type Pointer(MinTimeMember);
};
template <class Tag, typename Tag::type kMember>
struct ExposeMember {
  friend typename Tag::type Pointer(Tag) { return kMember; }
};
template struct ExposeMember<MinTimeMember, &BenchmarkHandle::min_time_>;

}  // namespace

double OwnMinTimeSeconds(const BenchmarkHandle& benchmark) {
  return benchmark.*Pointer(MinTimeMember());
}

const CurrentInstance& GetCurrentInstance() { return current_instance; }

std::string InstanceName(const CurrentInstance& instance, const benchmark::State& state) {
  std::string name = instance.family != nullptr ? *instance.family : std::string("unregistered");
  for (int i = 0; i < instance.args_count; ++i) name += "/" + std::to_string(state.range(i));
  return name;
}

Status NameOfUnregisteredInstance(const benchmark::State& state, std::string* name,
                                  std::string* note) {
  const std::optional<std::string> family = StateName(state);
  const std::optional<int> args = StateRangeCount(state);
  if (family && args) {
    // GB >= 1.9.5 tells the name and the arguments, but not whether the benchmark asked for
    // manual time: the note says what GB's time means.
    *note = "gpubench: " + *family +
            " is registered through GB (BENCHMARK_* or benchmark::RegisterBenchmark), not "
            "gpubench: GB reports its GPU time only if it was registered with "
            "->UseManualTime(), which gpubench cannot check (the GPUBENCH_* forms set it)\n";
    *name = InstanceName(CurrentInstance{&*family, *args}, state);
    return Status::Ok();
  }
  std::string why;
  if (!family) {
    why =
        "this GB version does not tell gpubench the benchmark's name (State::name() came "
        "with GB 1.8)";
  } else {
    why =
        "this GB version tells gpubench the name but not the instance's arguments "
        "(State::range_size() came with GB 1.9.5); a gpubench::Fixture works with GB's fixture "
        "macros from GB 1.8";
  }
  return Status::Error(
      "this benchmark was not registered through gpubench: use GPUBENCH_BENCHMARK(fn) instead "
      "of BENCHMARK(fn), and the GPUBENCH_* form of every other BENCHMARK_* macro (same "
      "arguments, same name: GPUBENCH_TEMPLATE, GPUBENCH_CAPTURE, GPUBENCH_F, "
      "GPUBENCH_TEMPLATE_F, GPUBENCH_TEMPLATE_DEFINE_F + GPUBENCH_REGISTER_F, ...), "
      "gpubench::RegisterBenchmark instead of benchmark::RegisterBenchmark, and a "
      "gpubench::Fixture for fixtures, so that GB reports GPU time (UseManualTime) and the NVTX "
      "ranges carry the benchmark's name; " +
      why);
}

InstanceScope::InstanceScope(const std::string* registered, const BenchmarkHandle& benchmark,
                             benchmark::State& state)
    : state_(state) {
  std::optional<std::string> gb_name = StateName(state);
  if (!gb_name && registered == nullptr) return;
  family_ = gb_name ? *gb_name : *registered;
  current_instance.family = &family_;
  current_instance.args_count = ArgsCountReader::Read(benchmark);
  current_instance.own_min_time_seconds = OwnMinTimeSeconds(benchmark);
}

InstanceScope::~InstanceScope() {
  current_instance = CurrentInstance();
  // Benchmarks declare their bytes after the loop, so the loop's own Publish cannot see them.
  PublishDeclared(state_);
}

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
  // Registered with GB's own fixture macros, family_name_ is empty: GB >= 1.8 still tells the
  // name (State::name()), and this object knows its arguments; before 1.8 the loop explains
  // which macro to use.
  detail::InstanceScope scope(family_name_.empty() ? nullptr : &family_name_, *this, state);
  benchmark::Fixture::Run(state);
}

}  // namespace gpubench
