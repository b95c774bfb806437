#include <benchmark/benchmark.h>

#include "frontend/hooks/gpubench_counts.hpp"
#include "gb/gb_internals.hpp"
#include "gpu/plan/range_names.hpp"
#include "gpubench/fixture.hpp"
#include "gpubench/loop.hpp"
#include "gpubench/registration.hpp"
#include "measure/call/abort_note.hpp"
#include "measure/call/instance.hpp"
#include "measure/process/process_access.hpp"
#include "measure/publish/declared_work.hpp"
#include "measure/sampling/stopping_rule.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <set>
#include <typeinfo>
#include <vector>

namespace gpubench {
namespace detail {
namespace {

thread_local CurrentInstance current_instance;

// The families registered through gpubench, and those whose count gpubench set. GB owns the
// families: a function family is watched through its RegisteredFamily (which GB's copy of the
// lambda keeps alive), a fixture removes itself when GB destroys it.
struct Families {
  std::vector<std::weak_ptr<RegisteredFamily>> functions;
  std::vector<Fixture*> fixtures;
  std::set<const BenchmarkHandle*> counted;
  std::set<std::string> counted_names;
};

Families& GpubenchFamilies() {
  static Families* families = new Families;  // never destroyed: GB may outlive main's end
  return *families;
}

// The name part GB gives the families whose count gpubench set: "iterations:2".
const std::string& GpubenchCountPart() {
  static const std::string part = CountNamePart(kGpubenchIterations);
  return part;
}

}  // namespace

namespace {

// Each gpubench family, as `take` is given it.
template <class Take>
int ForEachFamily(Take take) {
  Families& families = GpubenchFamilies();
  int taken = 0;
  for (const auto& weak : families.functions) {
    if (auto family = weak.lock(); family && family->benchmark != nullptr) {
      taken += take(family->benchmark);
    }
  }
  for (Fixture* fixture : families.fixtures) taken += take(fixture);
  return taken;
}

// Whether an instance name of GB's list is a gpubench family's, or names a count or min_time of
// its own ("/iterations:7", "/min_time:0.100"): a global count would not change it.
bool GlobalCountLeavesAlone(const std::string& instance, const std::set<std::string>& families) {
  if (instance.find("/iterations:") != std::string::npos ||
      instance.find("/min_time:") != std::string::npos) {
    return true;
  }
  for (const std::string& family : families) {
    if (instance.compare(0, family.size(), family) == 0 &&
        (instance.size() == family.size() || instance[family.size()] == '/')) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string InstanceOutsideGpubench(const std::vector<std::string>& instances) {
  std::set<std::string> names;
  ForEachFamily([&](BenchmarkHandle* family) {
    names.insert(FamilyName(*family));
    return 0;
  });
  for (const std::string& instance : instances) {
    if (!GlobalCountLeavesAlone(instance, names)) return instance;
  }
  return "";
}

bool TakeOverCount(BenchmarkHandle* family, bool by_flag) {
  if (OwnIterations(*family) != 0 || OwnMinTimeSeconds(*family) != 0) return false;
  if (!by_flag) family->Iterations(kGpubenchIterations);
  Families& families = GpubenchFamilies();
  families.counted.insert(family);
  families.counted_names.insert(FamilyName(*family));
  return true;
}

int TakeOverCounts(bool by_flag) {
  const int taken =
      ForEachFamily([&](BenchmarkHandle* family) { return TakeOverCount(family, by_flag); });
  if (by_flag) SetGlobalCount(kGpubenchIterations);
  return taken;
}

bool CountSetByGpubench(const std::string& function_name) {
  return GpubenchFamilies().counted_names.count(function_name) != 0;
}

void RestoreRunNames(std::vector<benchmark::BenchmarkReporter::Run>* runs) {
  if (GpubenchFamilies().counted_names.empty()) return;
  RestoreCountedNames(runs, GpubenchCountPart(), CountSetByGpubench);
}

std::string WidenFilterForGpubenchNames(const std::string& filter, bool counts_taken) {
  return WidenFilter(filter, counts_taken ? GpubenchCountPart() : std::string());
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
    CurrentInstance instance;
    instance.family = &*family;
    instance.args_count = *args;
    *name = InstanceName(instance, state);
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

namespace {

// What an abort writes while the function of `benchmark`'s instance runs: GB's error row, named
// as GB names the instance and as gpubench's reporters give it to GB's (no gpubench count, the
// device tag), and in the profiling child the line that names it to the parent.
AbortRow MakeAbortRow(const BenchmarkHandle& benchmark, const benchmark::State& state,
                      const std::string& instance) {
  std::vector<GbRun> runs{InstanceRun(benchmark, state)};
  RestoreRunNames(&runs);
  if (const std::optional<int> device = TaggedDevice()) TagRunArgs(&runs[0], DeviceTag(*device));
  AbortRow row;
  row.name = runs[0].benchmark_name();
  SetRunError(runs[0], "gpubench: the process aborted (SIGABRT) in the benchmark " + row.name +
                           " (std::terminate, abort() or a failed assert: the suite's own "
                           "message is on its stdout or stderr); this row stands for it, the "
                           "rows before it are kept and the benchmarks after it did not run");
  row.json = GbJsonRows(runs);
  if (ProcessProfilingPass().files().writes_sessions) {
    row.child_line = ProfilingPass::AbortedLine(instance);
  }
  return row;
}

}  // namespace

InstanceScope::InstanceScope(const std::string* registered, const BenchmarkHandle& benchmark,
                             benchmark::State& state)
    : state_(state), loops_at_start_(LoopsStarted()) {
  // Without a device the suite's set-up fails (a check that calls std::terminate() would end
  // the run with a JSON file cut after its context): no part of the benchmark runs.
  if (const std::optional<std::string> reason = UnusableDeviceReason()) {
    runs_ = false;
    state.SkipWithError(("gpubench: no usable CUDA device (" + *reason +
                         "): the benchmark's set-up and body were not run")
                            .c_str());
    return;
  }
  std::optional<std::string> gb_name = StateName(state);
  if (!gb_name && registered == nullptr) return;
  family_ = gb_name ? *gb_name : *registered;
  current_instance.family = &family_;
  current_instance.args_count = ArgsCount(benchmark);
  current_instance.own_min_time_seconds = OwnMinTimeSeconds(benchmark);
  current_instance.gpubench_stops = GpubenchFamilies().counted.count(&benchmark) != 0;
  current_instance.own_iterations =
      !current_instance.gpubench_stops && OwnIterations(benchmark) != 0;
  current_instance.call_start = std::chrono::steady_clock::now();
  std::string instance = InstanceName(current_instance, state);
  if (const std::optional<int> device = TaggedDevice()) {
    instance = TagInstanceName(instance, *device);
  }
  if (ProcessProfilingPass().aborted_in_child().count(instance) != 0) {
    runs_ = false;
    state.SkipWithError(
        "gpubench: the profiling child, which runs every benchmark before this process times "
        "them (--gpubench_profile_process=child), aborted (SIGABRT) in this benchmark: it is not "
        "run again here, so that the others are timed; --gpubench_profile_process=same or "
        "--gpubench_profile_iterations=0 (no metrics) runs it in this process, where the abort "
        "and the suite's own message show");
    return;
  }
  if (std::optional<CallReuse> reused = ReuseFromChildFor(instance)) {
    // The profiling child signed this call's work and found it equal to the source row's: the
    // row is the source's, and neither the set-up nor the body runs again here. The loop takes
    // the decision from the current instance and runs no body.
    current_instance.reuse_from_child = std::move(reused);
    runs_ = false;
    reused_from_child_ = true;
    for (auto _ : Loop(state)) (void)_;
    return;
  }
  if (state.thread_index() == 0) {
    ArmAbortRow(MakeAbortRow(benchmark, state, instance));
    armed_ = true;
    // The set-up that follows is part of the instance's work signature.
    BeginCallWork();
  }
}

InstanceScope::~InstanceScope() {
  if (armed_) DisarmAbortRow();
  EndCallWork();  // a call whose loop never ran (or failed before its body) leaves it on
  if (!runs_) {
    if (reused_from_child_) PublishFunctionCost(state_);
    current_instance = CurrentInstance();
    return;
  }
  // Under the form's manual time a GB loop (`for (auto _ : state)`) reports 0 s: refuse it.
  if (LoopsStarted() == loops_at_start_ && !StateSkipped(state_)) {
    state_.SkipWithError(
        "gpubench: this benchmark is registered with a gpubench form, whose time is the GPU time "
        "gpubench::Loop measures, but its function never ran gpubench::Loop, so GB would report "
        "0 s: loop with `for (auto _ : gpubench::Loop(state))` (Iterations(state) in a "
        "gpubench::Fixture), or register a CPU benchmark with GB's own BENCHMARK");
  }
  // Benchmarks declare their bytes after the loop, so the loop's own Publish cannot see them;
  // the function's wall time is known only now (it reads the call's start from the marker).
  PublishDeclared(state_);
  current_instance = CurrentInstance();
}

BenchmarkHandle* FinishRegistration(const std::shared_ptr<RegisteredFamily>& family,
                                    BenchmarkHandle* benchmark) {
  family->benchmark = benchmark;
  benchmark->UseManualTime();
  GpubenchFamilies().functions.push_back(family);
  return benchmark;
}

namespace {

std::string Demangled(const char* name) {
  int status = 0;
  char* readable = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string text = status == 0 && readable ? readable : name;
  std::free(readable);
  return text;
}

// What the exception being handled is: its type and what(), for the row's message.
std::string DescribeCurrentException() {
  try {
    throw;
  } catch (const std::exception& error) {
    return Demangled(typeid(error).name()) + " (\"" + error.what() + "\")";
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

}  // namespace

__attribute__((noinline)) void ClearStackBelowCaller() noexcept {
  unsigned char area[64 * 1024];
  std::memset(area, 0, sizeof(area));
  // The stores are the point: nothing reads them, so the compiler must not drop them.
  asm volatile("" : : "r"(area) : "memory");
}

void SkipForException(benchmark::State& state) noexcept {
  try {
    std::string message = "gpubench: the benchmark function threw " + DescribeCurrentException() +
                          ", which would have ended the whole run; this row is an error instead "
                          "and the other benchmarks run";
    // Without a usable device the function is not called (InstanceScope::runs).
    if (ProcessDeviceFacts().available) {
      // A suite's check throws after a failed CUDA call, whose error CUDA keeps as the last
      // one: read (and so clear) it here, or the next benchmark's first launch check fails.
      const Status pending = TakeLastCudaError();
      if (!pending.ok()) {
        message +=
            " (CUDA's last error, read and cleared so that the next benchmark does not "
            "fail with it: " +
            pending.message() + ")";
        if (pending.code() == Status::Code::kContextLost) {
          MarkContextLost("a benchmark threw after " + pending.message());
        }
      }
    }
    state.SkipWithError(message.c_str());
  } catch (...) {
    state.SkipWithError("gpubench: the benchmark function threw an exception");
  }
}

BenchmarkHandle* RegisterFixtureInstance(Fixture* fixture) {
  BenchmarkHandle* registered = RegisterOwned(fixture);
  registered->UseManualTime();
  return registered;
}

}  // namespace detail

Fixture::Fixture() {
  UseManualTime();
  detail::GpubenchFamilies().fixtures.push_back(this);
}

Fixture::~Fixture() {
  auto& families = detail::GpubenchFamilies();
  families.fixtures.erase(std::remove(families.fixtures.begin(), families.fixtures.end(), this),
                          families.fixtures.end());
  families.counted.erase(this);
}

void Fixture::Run(benchmark::State& state) {
  // Registered with GB's own fixture macros, family_name_ is empty: GB >= 1.8 still tells the
  // name (State::name()), and this object knows its arguments; before 1.8 the loop explains
  // which macro to use.
  detail::InstanceScope scope(family_name_.empty() ? nullptr : &family_name_, *this, state);
  if (!scope.runs()) return;
  // GB's Fixture::Run is SetUp, BenchmarkCase, TearDown; here an exception from one of them
  // ends the row instead of the process, and TearDown still runs after a case that threw.
  try {
    detail::ClearStackBelowCaller();  // the set-up's locals start on zeroed stack
    this->SetUp(state);
  } catch (...) {
    detail::SkipForException(state);
    return;
  }
  try {
    detail::ClearStackBelowCaller();
    this->BenchmarkCase(state);
  } catch (...) {
    detail::SkipForException(state);
  }
  try {
    this->TearDown(state);
  } catch (...) {
    detail::SkipForException(state);
  }
}

}  // namespace gpubench
