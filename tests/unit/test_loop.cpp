// The loop's state machine on the CPU: real Google Benchmark runs, fake GPU behind it.
#include <gtest/gtest.h>

#include <gpubench/gpubench.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>
#include "config/metric_groups.hpp"
#include "frontend/hooks/gpubench_counts.hpp"
#include "frontend/hooks/paused_rows.hpp"
#include "frontend/hooks/self_timed_rows.hpp"
#include "frontend/setup/context.hpp"
#include "frontend/setup/devices.hpp"
#include "gb/gb_internals.hpp"
#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "support/fakes.hpp"

#include "gpu/plan/work_signature.hpp"
#include "measure/call/abort_note.hpp"
#include "measure/call/instance.hpp"
#include "measure/checks/paused_timing.hpp"
#include "measure/profiling/busy_phase.hpp"
#include "measure/profiling/counter_stages.hpp"
#include "measure/publish/profile_log.hpp"
#include "measure/sampling/stopping_rule.hpp"
#include "support/gb_version.hpp"

namespace gpubench::testing {
namespace {

using detail::StopReason;
/// The stop_reason counter's value for `reason`.
double StopCode(StopReason reason) { return static_cast<double>(reason); }

Log* g_log = nullptr;
FakeOps* g_ops = nullptr;

void Body() { g_log->Add("body"); }

void LoopTest_Flush(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
  g_log->Add("after loop");
}
GPUBENCH_BENCHMARK(LoopTest_Flush)->Iterations(3);

// A body longer than the profiling bodies' aim (kProfilingBodiesSeconds): 0.3 s of host time,
// after a set-up as long (LoopTest_LongSetUp) or without one (LoopTest_Long).
void LongBodies(benchmark::State& state) {
  for (auto _ : Loop(state)) {
    Body();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
}
void LoopTest_Long(benchmark::State& state) { LongBodies(state); }
GPUBENCH_BENCHMARK(LoopTest_Long)->Iterations(1);
void LoopTest_LongSetUp(benchmark::State& state) {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  LongBodies(state);
}
GPUBENCH_BENCHMARK(LoopTest_LongSetUp)->Iterations(1);

void LoopTest_Keep(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
}
GPUBENCH_BENCHMARK(LoopTest_Keep)->Iterations(4);

void LoopTest_Args(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
  state.SetBytesProcessed(state.iterations() * 1000);
}
GPUBENCH_BENCHMARK(LoopTest_Args)->Args({7, 9})->Iterations(2);

void LoopTest_Threads(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
}
GPUBENCH_BENCHMARK(LoopTest_Threads)->Threads(2)->Iterations(1);

// No iteration count: GB searches for one (1 ms per iteration from the fake timer).
void LoopTest_Search(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
}
GPUBENCH_BENCHMARK(LoopTest_Search);

void LoopTest_Repeated(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
}
GPUBENCH_BENCHMARK(LoopTest_Repeated)->Repetitions(3);

// A min_time of its own, which GB applies in place of --benchmark_min_time.
void LoopTest_OwnMinTime(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
}
GPUBENCH_BENCHMARK(LoopTest_OwnMinTime)->MinTime(0.05);

// Three calls of five iterations each: GB's repetitions, whatever its version.
void LoopTest_ThreeRepetitions(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
}
GPUBENCH_BENCHMARK(LoopTest_ThreeRepetitions)->Iterations(5)->Repetitions(3);

// A name set after registration, and a search for the iteration count.
void LoopTest_Renamed(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
}
GPUBENCH_BENCHMARK(LoopTest_Renamed)->Name("LoopTest_RenamedLater")->Arg(3);

// Declares its bytes and FLOPs after the loop, as GB's convention has it.
void LoopTest_Declared(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
  state.SetBytesProcessed(state.iterations() * 1000);
  SetFlopsProcessed(state, state.iterations() * 500);
}
GPUBENCH_BENCHMARK(LoopTest_Declared)->Iterations(4)->Repetitions(3);

// A converted GB suite's body that still times itself (its own events, state.SetIterationTime):
// GB adds its seconds to those gpubench hands it.
void LoopTest_TimesItself(benchmark::State& state) {
  for (auto _ : Loop(state)) {
    Body();
    state.SetIterationTime(1e-3);
  }
}
GPUBENCH_BENCHMARK(LoopTest_TimesItself)->Iterations(4)->Repetitions(2);

// Enough held iterations for the watch over them to see a neighbour.
void LoopTest_Held(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
}
GPUBENCH_BENCHMARK(LoopTest_Held)->Iterations(12);

// Setup inside the loop, kept out of the GPU time.
void LoopTest_Scoped(benchmark::State& state) {
  for (auto _ : Loop(state)) {
    {
      UntimedScope untimed(state);
      g_log->Add("setup");
    }
    Body();
  }
}
GPUBENCH_BENCHMARK(LoopTest_Scoped)->Iterations(2);

// A scope only after the first body (with cache=keep: the warm-up): the profiled bodies enter
// more scopes than the warm-up did.
int g_bodies = 0;
void LoopTest_ScopedAfterWarmup(benchmark::State& state) {
  for (auto _ : Loop(state)) {
    if (++g_bodies > 1) {
      UntimedScope untimed(state);
      g_log->Add("setup");
    }
    Body();
  }
}
GPUBENCH_BENCHMARK(LoopTest_ScopedAfterWarmup)->Iterations(2);

// A GB suite's way to keep setup untimed, which GB does not allow outside its timed iterations.
void LoopTest_Paused(benchmark::State& state) {
  for (auto _ : Loop(state)) {
    state.PauseTiming();
    g_log->Add("setup");
    state.ResumeTiming();
    Body();
  }
}
GPUBENCH_BENCHMARK(LoopTest_Paused)->Iterations(2);

// Host work that takes `seconds` of this thread's CPU time.
void SpinCpu(double seconds) {
  const double start = detail::ThreadCpuSeconds();
  while (detail::ThreadCpuSeconds() - start < seconds) {
  }
}

// Paused only in GB's timed iterations (GB counts iterations from its first KeepRunning; with
// cache=keep and no metrics the warm-up is the only untimed body), as GB 1.7 allows: GB's CPU
// time then lacks the 300 us of every paused setup.
void LoopTest_PausedWhenTimed(benchmark::State& state) {
  for (auto _ : Loop(state)) {
    if (state.iterations() > 0) {
      state.PauseTiming();
      SpinCpu(300e-6);
      state.ResumeTiming();
    }
    Body();
  }
}
GPUBENCH_BENCHMARK(LoopTest_PausedWhenTimed)->Iterations(10)->Repetitions(2);

// The same setup, not paused: GB's CPU time and the thread's agree.
void LoopTest_SetupNotPaused(benchmark::State& state) {
  for (auto _ : Loop(state)) {
    SpinCpu(300e-6);
    Body();
  }
}
GPUBENCH_BENCHMARK(LoopTest_SetupNotPaused)->Iterations(10)->Repetitions(2);

// Paused in every body: GB 1.9.1 built for release does not check the untimed ones.
void LoopTest_PausedEverywhere(benchmark::State& state) {
  for (auto _ : Loop(state)) {
    state.PauseTiming();
    SpinCpu(300e-6);
    state.ResumeTiming();
    Body();
  }
}
GPUBENCH_BENCHMARK(LoopTest_PausedEverywhere)->Iterations(10);

class LoopFixture : public gpubench::Fixture {};
GPUBENCH_DEFINE_F(LoopFixture, Case)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
}
GPUBENCH_REGISTER_F(LoopFixture, Case)->Arg(5)->Iterations(2);

// A suite's own error checks that throw (kokkos/mdspan's CUDA_SAFE_CALL): in the loop, before
// it, and in a fixture's SetUp and case.
void LoopTest_ThrowsInTheLoop(benchmark::State& state) {
  int bodies = 0;
  for (auto _ : Loop(state)) {
    Body();
    if (++bodies == 2) throw std::runtime_error("CUDA_SAFE_CALL failed: out of memory");
  }
}
GPUBENCH_BENCHMARK(LoopTest_ThrowsInTheLoop)->Iterations(4);

// A failed allocation leaves CUDA's last error set, and the suite's check throws.
void LoopTest_ThrowsAfterACudaError(benchmark::State& state) {
  for (auto _ : Loop(state)) {
    Body();
    g_ops->pending_error = Status::Error("cudaErrorMemoryAllocation: out of memory");
    throw std::runtime_error("CUDA_SAFE_CALL failed");
  }
}
GPUBENCH_BENCHMARK(LoopTest_ThrowsAfterACudaError)->Iterations(4);

void LoopTest_ThrowsBeforeTheLoop(benchmark::State& state) {
  if (state.range(0) == 1) throw 42;
  for (auto _ : Loop(state)) Body();
}
GPUBENCH_BENCHMARK(LoopTest_ThrowsBeforeTheLoop)->Arg(1);

// A converted suite's CPU benchmark left under a gpubench form: GB's own loop, manual time.
void LoopTest_GbLoopUnderAGpubenchForm(benchmark::State& state) {
  int64_t sum = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sum += 1);
}
GPUBENCH_BENCHMARK(LoopTest_GbLoopUnderAGpubenchForm);

class LoopThrowingFixture : public gpubench::Fixture {
 public:
  void SetUp(benchmark::State& state) override {
    if (state.range(0) == 0) throw std::invalid_argument("no input");
    g_log->Add("setup " + std::to_string(state.range(0)));
  }
  void TearDown(benchmark::State& state) override {
    g_log->Add("teardown " + std::to_string(state.range(0)));
  }
};
GPUBENCH_DEFINE_F(LoopThrowingFixture, Case)(benchmark::State& state) {
  for (auto _ : Iterations(state)) {
    Body();
    throw std::runtime_error("case failed");
  }
}
GPUBENCH_REGISTER_F(LoopThrowingFixture, Case)->Arg(0)->Arg(1)->Iterations(2);

// Declares its bytes in a fixture, which gpubench sees when Fixture::Run returns.
GPUBENCH_DEFINE_F(LoopFixture, Declared)(benchmark::State& state) {
  for (auto _ : Iterations(state)) Body();
  state.SetBytesProcessed(state.iterations() * 250);
}
GPUBENCH_REGISTER_F(LoopFixture, Declared)->Iterations(2);

// Declares bytes, but its loop is skipped (no device in the test): nothing measured, nothing
// declared is compared.
void LoopTest_DeclaredSkipped(benchmark::State& state) {
  for (auto _ : Loop(state)) Body();
  state.SetBytesProcessed(1000);
}
GPUBENCH_BENCHMARK(LoopTest_DeclaredSkipped)->Iterations(1);

BenchmarkHandle* const own_min_time_registration =
    gpubench::RegisterBenchmark("LoopTest_MinTimeRead", [](benchmark::State& state) {
      for (auto _ : Loop(state)) Body();
    })->MinTime(0.25);

// Counts its set-ups: a call reused on the profiling child's signature does not run them.
int g_reusable_setups = 0;
void LoopTest_Reusable(benchmark::State& state) {
  ++g_reusable_setups;
  for (auto _ : Loop(state)) Body();
  state.SetBytesProcessed(state.iterations() * 1000);
}
GPUBENCH_BENCHMARK(LoopTest_Reusable)->Iterations(2);

auto* const lambda_registration =
    gpubench::RegisterBenchmark("LoopTest_Lambda", [](benchmark::State& state) {
      for (auto _ : Loop(state)) Body();
    }) -> Iterations(1);

class LoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_log = &log_;
    settings_.metrics = DefaultMetrics();
    settings_.profile_iterations = 0;
    facts_.available = true;
    facts_.name = "Fake GPU";
    facts_.sm_count = 4;
    facts_.sm_clock_rated_mhz = 1980;
    facts_.memory_clock_rated_mhz = 1000;
    facts_.memory_bus_width_bits = 1024;
    auto ops = std::make_unique<FakeOps>(&log_);
    auto timer = std::make_unique<FakeTimer>(&log_);
    auto profiler = std::make_unique<FakeProfiler>(&log_);
    busy_owner_ = std::make_unique<FakeBusyTracer>(&log_);
    busy_ = busy_owner_.get();
    ops_ = ops.get();
    g_ops = ops_;
    timer_ = timer.get();
    profiler_ = profiler.get();
    ops_owner_ = std::move(ops);
    timer_owner_ = std::move(timer);
    profiler_owner_ = std::move(profiler);
  }

  void TearDown() override {
    detail::ProcessState::Get().ResetForTesting();
    g_log = nullptr;
    g_ops = nullptr;
  }

  // Installs the fakes and runs the benchmarks whose names match `filter`.
  std::vector<benchmark::BenchmarkReporter::Run> Run(const std::string& filter,
                                                     bool with_profiler = false) {
    auto& process = detail::ProcessState::Get();
    process.ResetForTesting();
    if (!profile_out_.empty()) EXPECT_TRUE(process.profile_log.Open(profile_out_).ok());
    process.tagged_device = tagged_device_;
    auto& harness = process.harness;
    harness.Configure(settings_, facts_);
    if (cache_owner_) harness.SetCacheStrategyForTesting(std::move(cache_owner_));
    if (sharing_owner_) {
      sharing_ = sharing_owner_.get();
      harness.SetSharingMonitorForTesting(std::move(sharing_owner_));
    }
    // The test binary leaves GB's --benchmark_min_time at its default.
    process.policy.SetTrialRunDetector(detail::TrialRunDetector(detail::kDefaultMinTimeSeconds));
    harness.SetBackendsForTesting(std::move(ops_owner_), std::move(timer_owner_),
                                  with_profiler ? std::move(profiler_owner_) : nullptr);
    if (streams_owner_) {
      streams_ = streams_owner_.get();
      harness.SetStreamWatchForTesting(std::move(streams_owner_));
    }
    if (with_busy_ && busy_owner_) harness.SetBusyTracerForTesting(std::move(busy_owner_));
    if (thermal_owner_) {
      thermal_ = thermal_owner_.get();
      harness.SetThermalMonitorForTesting(std::move(thermal_owner_));
    }
    if (thermal_reference_) process.thermal_reference_c = *thermal_reference_;
    if (work_owner_) harness.SetWorkRecorderForTesting(std::move(work_owner_));
    if (reuse_) process.reuse = *reuse_;
    if (!child_file_.empty()) {
      // This process plays the profiling child.
      EXPECT_TRUE(process.profiling_pass
                      .BeginProfiling(child_file_,
                                      {"on: fake profiler", {{"dram__bytes_read.sum", "byte"}}})
                      .ok());
    }
    if (parent_of_) {
      // This process plays the parent of a child that wrote `parent_of_`.
      detail::ProfilingPass::Header header;
      const std::string path =
          ::testing::TempDir() + "/gpubench_child_lines_" + std::to_string(::getpid()) + ".jsonl";
      std::ofstream(path) << *parent_of_;
      EXPECT_TRUE(process.profiling_pass.BeginTiming(path, &header).ok());
      child_header_ = header;
    }
    CaptureReporter reporter;
    if (through_gpubench_reporter_) {
      // gpubench's reporter for GB's file output (and any display format but the console).
      detail::ForwardingReporter forwarding(&reporter, std::nullopt);
      benchmark::RunSpecifiedBenchmarks(&forwarding, filter);
    } else {
      benchmark::RunSpecifiedBenchmarks(&reporter, filter);
    }
    return reporter.runs;
  }

  Log log_;
  Settings settings_;
  /// Installed after Configure: a strategy other than settings_.cache's.
  std::unique_ptr<detail::CacheStrategy> cache_owner_;
  detail::DeviceFacts facts_;
  FakeOps* ops_ = nullptr;
  FakeTimer* timer_ = nullptr;
  FakeProfiler* profiler_ = nullptr;
  std::unique_ptr<detail::GpuOps> ops_owner_;
  std::unique_ptr<detail::IterationTimer> timer_owner_;
  std::unique_ptr<detail::Profiler> profiler_owner_;
  std::unique_ptr<FakeSharingMonitor> sharing_owner_;
  std::unique_ptr<FakeStreamWatch> streams_owner_;  // the body's streams in the next Run()
  std::unique_ptr<FakeBusyTracer> busy_owner_;
  FakeBusyTracer* busy_ = nullptr;
  bool with_busy_ = false;                  // the next Run() measures busy time with busy_
  bool through_gpubench_reporter_ = false;  // the next Run() reports through ForwardingReporter
  std::unique_ptr<FakeThermalMonitor> thermal_owner_;  // NVML's temperatures in the next Run()
  FakeThermalMonitor* thermal_ = nullptr;
  std::optional<double> thermal_reference_;  // the coolest temperature read before it
  FakeStreamWatch* streams_ = nullptr;
  std::string profile_out_;               // --gpubench_profile_out of the next Run()
  std::optional<int> tagged_device_;      // one device of a --gpubench_devices run
  std::string child_file_;                // the next Run() is the profiling child's, writing here
  std::optional<std::string> parent_of_;  // the next Run() times after a child that wrote this
  std::unique_ptr<FakeWorkRecorder> work_owner_;  // the work signature's recorder of the next Run()
  std::optional<detail::ReuseState> reuse_;       // --gpubench_reuse's state in the next Run()
  detail::ProfilingPass::Header child_header_;
  FakeSharingMonitor* sharing_ = nullptr;
};

detail::SharingSample Processes(std::vector<detail::GpuProcess> processes) {
  detail::SharingSample sample;
  sample.known = true;
  sample.processes = std::move(processes);
  return sample;
}
const detail::GpuProcess kThisProcess = {static_cast<unsigned>(::getpid()), 1u << 30, "tests"};
const detail::GpuProcess kOtherJob = {4242, 3000000000ull, "python3"};

std::vector<std::string> Repeat(const std::vector<std::string>& block, int times) {
  std::vector<std::string> out;
  for (int i = 0; i < times; ++i) out.insert(out.end(), block.begin(), block.end());
  return out;
}

std::vector<std::string> Join(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

// --- gpubench's stopping rule (issue #35) --------------------------------------------------------

// Families whose count gpubench takes over in the tests below (as Initialize does for every
// family registered through gpubench with neither a count nor a min_time of its own).
BenchmarkHandle* const stops_registration =
    gpubench::RegisterBenchmark("LoopTest_Stops", [](benchmark::State& state) {
      for (auto _ : Loop(state)) Body();
      state.SetItemsProcessed(state.iterations());
    });
BenchmarkHandle* const stops_slow_registration =
    gpubench::RegisterBenchmark("LoopTest_StopsSlow", [](benchmark::State& state) {
      for (auto _ : Loop(state)) {
        Body();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
BenchmarkHandle* const stops_repeated_registration =
    gpubench::RegisterBenchmark("LoopTest_StopsRepeated",
                                [](benchmark::State& state) {
                                  for (auto _ : Loop(state)) Body();
                                })
        ->Arg(64)
        ->Repetitions(3);

// Regions of 1 ms +-`spread` in turn: a mean of 1 ms and a standard deviation of `spread`.
std::vector<double> Alternating(double spread) {
  return {1e-3 * (1 + spread), 1e-3 * (1 - spread)};
}

TEST_F(LoopTest, TheRuleStopsAtTheMinimumSamplesWhenTheyArePreciseAlready) {
  ASSERT_TRUE(detail::TakeOverCount(stops_registration) ||
              detail::CountSetByGpubench("LoopTest_Stops"));
  timer_->prompt = true;
  timer_->region_cycle = Alternating(0.0005);  // 0.05% noise: precise at once
  settings_.min_seconds = 0;
  through_gpubench_reporter_ = true;
  auto runs = Run("^LoopTest_Stops/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(runs[0].iterations, 10);  // --gpubench_min_samples
  EXPECT_EQ(log_.Count("timer_begin"), 10);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kStopReason).value,
                   StopCode(StopReason::kPrecision));
  EXPECT_LT(runs[0].counters.at(counter::kPrecisionPct).value, 0.1);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kSamples).value, 10);
  // GB's time and rates are over the samples taken: 1 ms per sample.
  EXPECT_NEAR(runs[0].real_accumulated_time / runs[0].iterations, 1e-3, 1e-9);
  EXPECT_NEAR(runs[0].counters.at(counter::kItemsPerSecond).value, 1000, 1e-6);
  // GB calls it "LoopTest_Stops/iterations:2/manual_time"; gpubench's reporter restores the name.
  EXPECT_EQ(runs[0].benchmark_name(), "LoopTest_Stops/manual_time");
}

TEST_F(LoopTest, NoisySamplesAreTakenUntilTheMeanIsPrecise) {
  detail::TakeOverCount(stops_registration);
  timer_->prompt = true;
  timer_->region_cycle = Alternating(0.05);  // sd 5%
  settings_.min_seconds = 0;
  settings_.precision_percent = 1;
  settings_.max_seconds = 30;
  auto runs = Run("^LoopTest_Stops/");
  ASSERT_EQ(runs.size(), 1u);
  // t x 5% / sqrt(n) <= 1% needs about (1.96 x 5)^2 = 96 samples.
  EXPECT_GT(runs[0].iterations, 80);
  EXPECT_LT(runs[0].iterations, 120);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kStopReason).value,
                   StopCode(StopReason::kPrecision));
  EXPECT_LE(runs[0].counters.at(counter::kPrecisionPct).value, 1.0);
  // Without gpubench's reporter the row keeps GB's name, count included.
  EXPECT_EQ(runs[0].benchmark_name(), "LoopTest_Stops/iterations:2/manual_time");
}

TEST_F(LoopTest, TheWallBudgetEndsARepetitionBeforeThePrecisionTarget) {
  detail::TakeOverCount(stops_slow_registration);
  timer_->prompt = true;
  timer_->region_cycle = Alternating(0.2);
  settings_.max_seconds = 0.05;
  auto runs = Run("^LoopTest_StopsSlow/");  // 2 ms of host time per body
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kStopReason).value,
                   StopCode(StopReason::kMaxSeconds));
  // Warm-up, hold check and samples of 2 ms each within 50 ms: at most 23 samples (fewer on a
  // loaded machine, where a 2 ms sleep takes longer); the precision target would need ~150000.
  EXPECT_GE(runs[0].iterations, 5);
  EXPECT_LE(runs[0].iterations, 24);
  EXPECT_GT(runs[0].counters.at(counter::kPrecisionPct).value, 0.1);
  // The call's warm-up and samples stayed within the budget (the next sample would not have,
  // judged by the samples' mean; a slow last one may overshoot by a little).
  const double spent = runs[0].counters.at(counter::kWallWarmup).value +
                       runs[0].counters.at(counter::kWallTimed).value;
  EXPECT_LE(spent, 0.05 + 0.01);
  EXPECT_GE(runs[0].counters.at(counter::kWallTime).value, spent);
}

// GB's statistics (mean, median, stddev rows) check that every repetition has the same count
// (Debian's GB aborts otherwise): the first repetition decides it, the later ones repeat it.
TEST_F(LoopTest, LaterRepetitionsTakeTheFirstOnesCount) {
  detail::TakeOverCount(stops_repeated_registration);
  timer_->prompt = true;
  timer_->region_cycle = {1e-3, 1e-3, 1e-3, 1.3e-3, 0.7e-3, 1e-3, 1e-3};
  settings_.min_seconds = 0;
  settings_.precision_percent = 3;
  through_gpubench_reporter_ = true;
  auto runs = Run("^LoopTest_StopsRepeated/");
  std::vector<benchmark::BenchmarkReporter::Run> repetitions;
  for (const auto& run : runs) {
    if (run.run_type == benchmark::BenchmarkReporter::Run::RT_Iteration) repetitions.push_back(run);
  }
  ASSERT_EQ(repetitions.size(), 3u);
  EXPECT_DOUBLE_EQ(repetitions[0].counters.at(counter::kStopReason).value,
                   StopCode(StopReason::kPrecision));
  for (const auto& run : repetitions) {
    EXPECT_EQ(run.iterations, repetitions[0].iterations);
    EXPECT_EQ(run.benchmark_name(), "LoopTest_StopsRepeated/64/repeats:3/manual_time");
  }
  EXPECT_DOUBLE_EQ(repetitions[1].counters.at(counter::kStopReason).value,
                   StopCode(StopReason::kRepetition));
  EXPECT_DOUBLE_EQ(repetitions[2].counters.at(counter::kStopReason).value,
                   StopCode(StopReason::kRepetition));
  // GB's aggregates are there, with the restored name.
  EXPECT_EQ(runs.back().run_name.str(), "LoopTest_StopsRepeated/64/repeats:3/manual_time");
  EXPECT_EQ(runs.size(), 3u + 4u);  // mean, median, stddev, cv
}

TEST_F(LoopTest, KeepStopsAtTheMinimumsForItHasOneRegion) {
  detail::TakeOverCount(stops_registration);
  settings_.cache = CachePolicy::kKeep;
  settings_.min_seconds = 0;
  auto runs = Run("^LoopTest_Stops/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].iterations, 10);
  EXPECT_EQ(log_.Count("timer_begin"), 1);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kStopReason).value, StopCode(StopReason::kMinimum));
  EXPECT_EQ(runs[0].counters.count(counter::kPrecisionPct), 0u);
  EXPECT_NEAR(runs[0].real_accumulated_time, 1e-3, 1e-12);  // the one region, spread over 10
}

// What the user asked GB for wins: an explicit count, a min_time of the benchmark's own.
TEST_F(LoopTest, AnExplicitCountKeepsGbsRuleAndSaysSo) {
  EXPECT_FALSE(detail::TakeOverCount(lambda_registration));        // ->Iterations(1)
  EXPECT_FALSE(detail::TakeOverCount(own_min_time_registration));  // ->MinTime(0.25)
  auto counted = Run("^LoopTest_Lambda/");
  ASSERT_EQ(counted.size(), 1u);
  EXPECT_EQ(counted[0].iterations, 1);
  EXPECT_DOUBLE_EQ(counted[0].counters.at(counter::kStopReason).value,
                   StopCode(StopReason::kIterations));
  EXPECT_DOUBLE_EQ(counted[0].counters.at(counter::kSamples).value, 1);
}

TEST_F(LoopTest, GbsMinTimeRuleSaysSoAndCarriesWhatItsTrialCallsCost) {
  auto timed = Run("^LoopTest_Search/");  // GB's growth to --benchmark_min_time
  ASSERT_EQ(timed.size(), 1u);
  EXPECT_DOUBLE_EQ(timed[0].counters.at(counter::kStopReason).value,
                   StopCode(StopReason::kMinTime));
  // Its row carries what its trial calls cost: their samples, and their wall time.
  EXPECT_GT(timed[0].counters.at(counter::kSamples).value,
            static_cast<double>(timed[0].iterations));
  EXPECT_GT(timed[0].counters.at(counter::kWallTime).value,
            timed[0].counters.at(counter::kWallTimed).value +
                timed[0].counters.at(counter::kWallWarmup).value);
}

TEST(WidenFilterForGpubenchNames, MatchesTheNamesGbGivesWhereTheUserWroteTheNamesGpubenchPrints) {
  EXPECT_EQ(detail::WidenFilterForGpubenchNames("BM_Copy/1048576/manual_time", true),
            "BM_Copy/1048576/(iterations:2/)?manual_time");
  EXPECT_EQ(detail::WidenFilterForGpubenchNames("BM_Copy/8/repeats:3/manual_time$", true),
            "BM_Copy/8/(iterations:2/)?repeats:3/(iterations:2/)?manual_time"
            "(/iterations:2)?(/manual_time)?$");
  EXPECT_EQ(detail::WidenFilterForGpubenchNames("BM_Copy|BM_Fma", true), "BM_Copy|BM_Fma");
  EXPECT_EQ(detail::WidenFilterForGpubenchNames("", true), "");
  // Without gpubench's counts only the time type the forms add.
  EXPECT_EQ(detail::WidenFilterForGpubenchNames("BM_Copy/8/manual_time$", false),
            "BM_Copy/8/manual_time(/manual_time)?$");
}

TEST_F(LoopTest, AWidenedFilterSelectsAnInstanceByTheNameGpubenchPrints) {
  detail::TakeOverCount(stops_registration);
  timer_->prompt = true;
  timer_->region_cycle = Alternating(0.001);
  settings_.min_seconds = 0;
  EXPECT_TRUE(Run("^LoopTest_Stops/manual_time$").empty());  // GB's name has the count
  auto runs = Run(detail::WidenFilterForGpubenchNames("^LoopTest_Stops/manual_time$", true));
  ASSERT_EQ(runs.size(), 1u);
  // The name the benchmark had before it was converted (no time type, no count) selects it too.
  EXPECT_TRUE(Run("^LoopTest_Stops$").empty());
  EXPECT_EQ(Run(detail::WidenFilterForGpubenchNames("^LoopTest_Stops$", true)).size(), 1u);
}

TEST_F(LoopTest, FlushPolicyWarmsUpThenTimesEachIterationInsideItsRange) {
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  const auto expected = Join({
      {"prepare", "flush", "body", "sync", "flush", "sync", "hold", "body", "release", "sync",
       "probe_begin"},
      Repeat({"flush", "sync", "hold", "push LoopTest_Flush", "timer_begin", "body", "timer_end",
              "release", "pop", "sync"},
             3),
      {"probe_end", "after loop"},
  });
  EXPECT_EQ(log_.events, expected);
  EXPECT_EQ(runs[0].iterations, 3);
  // GB's time is the manual (GPU) time: 1 ms per iteration from the fake timer.
  EXPECT_DOUBLE_EQ(runs[0].real_accumulated_time, 3e-3);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kSmClockMhz).value, 1900.0);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kSmClockRatedMhz).value, 1980.0);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kSmClockThrottled).value, 0.0);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kLaunchHeld).value, 1.0);
}

// A body that waits for the GPU makes the hold check's hold time out: the timed iterations are
// then launched without holds (no wait after the flush either), and the row says so.
TEST_F(LoopTest, BodyThatWaitsForTheGpuIsTimedWithoutHolds) {
  ops_->hold_times_out = true;
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Flush/");
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  const auto expected = Join({
      {"prepare", "flush", "body", "sync", "flush", "sync", "hold", "body", "release", "sync",
       "hold_timed_out", "probe_begin"},
      Repeat({"flush", "push LoopTest_Flush", "timer_begin", "body", "timer_end", "pop"}, 3),
      {"probe_end", "after loop"},
  });
  EXPECT_EQ(log_.events, expected);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kLaunchHeld).value, 0.0);
  EXPECT_NE(messages.find("LoopTest_Flush: the loop body waits for the GPU"), std::string::npos)
      << messages;
  EXPECT_NE(messages.find("launch_held=0"), std::string::npos) << messages;
}

// A body whose warm-up waited for the timed stream (cudaDeviceSynchronize) is known to wait for
// the GPU: it has no hold check (no 100 ms time-out, no second untimed body), and the row reads
// as one whose hold timed out.
TEST_F(LoopTest, ABodySeenWaitingForTheGpuIsSparedTheHoldsTimeOut) {
  streams_owner_ = std::make_unique<FakeStreamWatch>();
  streams_owner_->waits = {{"cuCtxSynchronize", 0, true}};
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Flush/");
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  const auto expected = Join({
      {"prepare", "flush", "body", "sync", "probe_begin"},
      Repeat({"flush", "push LoopTest_Flush", "timer_begin", "body", "timer_end", "pop"}, 3),
      {"probe_end", "after loop"},
  });
  EXPECT_EQ(log_.events, expected);
  EXPECT_EQ(ops_->holds, 0);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kLaunchHeld).value, 0.0);
  EXPECT_NE(messages.find("the loop body waits for the GPU (its warm-up called cuCtxSynchronize)"),
            std::string::npos)
      << messages;
}

// A wait for a stream the hold does not hold (one the body synchronises alone, with no work of
// the span on it) says nothing: the hold check runs held, as before.
TEST_F(LoopTest, AWaitForAStreamTheHoldDoesNotHoldKeepsTheHoldCheck) {
  streams_owner_ = std::make_unique<FakeStreamWatch>();
  streams_owner_->waits = {{"cuStreamSynchronize", 0x9000, false}};
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_GE(ops_->holds, 1);
  EXPECT_EQ(log_.Count("release"), 4);  // the hold check's and 3 timed iterations'
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kLaunchHeld).value, 1.0);
}

// A hold that times out during the timed iterations (the body waited only then) is reported
// too, once the stream has been waited for.
TEST_F(LoopTest, HoldTimingOutInTheTimedIterationsClearsLaunchHeld) {
  ops_->time_out_after_holds = 2;  // the check's hold is released in time, a later one is not
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Flush/");
  ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(log_.Count("hold"), 4);  // hold check + 3 timed: the verdict comes after the run
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kLaunchHeld).value, 0.0);
}

// A cache=keep call of LoopTest_Keep's four iterations: no flush, one timer region over all.
std::vector<std::string> KeepCallLog() {
  return Join({
      {"prepare", "body", "sync", "probe_begin"},
      {"push LoopTest_Keep", "timer_begin", "body", "pop"},
      Repeat({"push LoopTest_Keep", "body", "pop"}, 2),
      {"push LoopTest_Keep", "body", "timer_end", "pop", "probe_end"},
  });
}

TEST_F(LoopTest, KeepPolicyTimesTheWholeRunWithOneRegionAndNoFlush) {
  settings_.cache = CachePolicy::kKeep;
  timer_->region_seconds = 2e-3;
  auto runs = Run("^LoopTest_Keep/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(log_.events, KeepCallLog());
  EXPECT_EQ(runs[0].iterations, 4);
  EXPECT_DOUBLE_EQ(runs[0].real_accumulated_time, 2e-3);        // the region, spread over 4
  EXPECT_EQ(runs[0].counters.count(counter::kLaunchHeld), 0u);  // no holds without a flush
}

// The flush buffer and the hold are prepared for cache=flush only, once per call.
TEST_F(LoopTest, FlushPolicyPreparesTheFlushOncePerCall) {
  ASSERT_EQ(Run("^LoopTest_Flush/").size(), 1u);
  EXPECT_EQ(ops_->flush_prepares, 1);
}

TEST_F(LoopTest, KeepPolicyPreparesNoFlush) {
  settings_.cache = CachePolicy::kKeep;
  ASSERT_EQ(Run("^LoopTest_Keep/").size(), 1u);
  EXPECT_EQ(ops_->flush_prepares, 0);
}

// The loop follows the harness's cache strategy, never the setting itself: a keep strategy
// under cache=flush settings gives keep's calls (no flush, no hold check, one region).
TEST_F(LoopTest, TheLoopFollowsTheCacheStrategyNotTheSetting) {
  Settings keep = settings_;
  keep.cache = CachePolicy::kKeep;
  cache_owner_ = detail::MakeCacheStrategy(keep);
  ASSERT_EQ(settings_.cache, CachePolicy::kFlush);
  timer_->region_seconds = 2e-3;
  auto runs = Run("^LoopTest_Keep/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(log_.events, KeepCallLog());
  EXPECT_EQ(ops_->flush_prepares, 0);
  EXPECT_DOUBLE_EQ(runs[0].real_accumulated_time, 2e-3);  // the one region, spread over 4
}

// --- the body's streams (issue #24) ------------------------------------------------------------

detail::StreamUse UseOf(detail::StreamHandle stream, const std::string& call = "cuLaunchKernel") {
  detail::StreamUse use;
  use.stream = stream;
  use.first_call = call;
  use.calls = 1;
  return use;
}

// Work on a stream that is not the loop's: the hold check and every timed span fork to it after
// the hold (or the start event) and join it before the release (or the stop event).
TEST_F(LoopTest, WorkOnAnotherStreamIsForkedToAndJoinedInEverySpan) {
  streams_owner_ = std::make_unique<FakeStreamWatch>();
  streams_owner_->uses = {UseOf(detail::kLegacyStream, "cuMemcpyDtoD_v2"), UseOf(0x5000)};
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Flush/");
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  const auto expected = Join({
      {"prepare", "flush", "body", "sync", "flush", "sync", "hold", "fork 1", "body", "join 1",
       "release", "sync", "probe_begin"},
      Repeat({"flush", "sync", "hold", "push LoopTest_Flush", "timer_begin", "fork 1", "body",
              "join 1", "timer_end", "release", "pop", "sync"},
             3),
      {"probe_end", "after loop"},
  });
  EXPECT_EQ(log_.events, expected);
  EXPECT_EQ(streams_->bodies, 1);  // the warm-up only: the timed bodies run unwatched
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kStreamsJoined).value, 1.0);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kLaunchHeld).value, 1.0);
  EXPECT_NE(messages.find("LoopTest_Flush: the body also puts GPU work on stream 0x5000 (1 "
                          "call(s), first cuLaunchKernel)"),
            std::string::npos)
      << messages;
}

// cache=keep: one span around the run, so one fork after its start and one join before its end.
TEST_F(LoopTest, KeepPolicyForksOnceAndJoinsOnceAroundTheRun) {
  settings_.cache = CachePolicy::kKeep;
  streams_owner_ = std::make_unique<FakeStreamWatch>();
  streams_owner_->uses = {UseOf(0x5000), UseOf(0x6000)};
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Keep/");
  ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  const auto expected = Join({
      {"prepare", "body", "sync", "probe_begin"},
      {"push LoopTest_Keep", "timer_begin", "fork 2", "body", "pop"},
      Repeat({"push LoopTest_Keep", "body", "pop"}, 2),
      {"push LoopTest_Keep", "body", "join 2", "timer_end", "pop", "probe_end"},
  });
  EXPECT_EQ(log_.events, expected);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kStreamsJoined).value, 2.0);
}

// Work only on the loop's own stream: nothing to fork or join, and the row says so.
TEST_F(LoopTest, WorkOnTheTimedStreamAloneJoinsNothing) {
  streams_owner_ = std::make_unique<FakeStreamWatch>();
  streams_owner_->uses = {UseOf(0), UseOf(detail::kLegacyStream, "cuMemsetD32_v2")};
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(log_.Count("fork 1"), 0);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kStreamsJoined).value, 0.0);
}

// A stream created and destroyed in every iteration cannot be waited for: the call ends before
// anything is timed, with the stream and the fix named.
TEST_F(LoopTest, AStreamTheBodyCreatesAndDestroysEndsTheCallWithTheFix) {
  streams_owner_ = std::make_unique<FakeStreamWatch>();
  detail::StreamUse use = UseOf(0x7000);
  use.created_in_body = true;
  use.non_blocking = true;
  use.destroyed_in_body = true;
  streams_owner_->uses = {use};
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  const std::string error = detail::RunErrorMessage(runs[0]);
  EXPECT_NE(error.find("stream 0x7000, a stream it creates and destroys in every iteration"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("Create the stream once, outside the loop"), std::string::npos) << error;
  EXPECT_EQ(log_.Count("timer_begin"), 0);
}

// Without a stream watch (another CUPTI client holds the subscription) nothing is claimed.
TEST_F(LoopTest, WithoutAStreamWatchTheRowHasNoStreamsCounter) {
  streams_owner_ = std::make_unique<FakeStreamWatch>();
  streams_owner_->uses = {UseOf(0x5000)};
  streams_owner_->unavailable = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].counters.count(counter::kStreamsJoined), 0u);
  EXPECT_EQ(log_.Count("fork 1"), 0);
}

// The last line of defence: a GPU time far below the body's own profiled duration is refused,
// whatever missed the work.
TEST_F(LoopTest, GpuTimeFarBelowTheProfiledDurationIsRefused) {
  settings_.profile_iterations = 1;
  timer_->region_seconds = 1.3e-6;
  profiler_->passes = 1;
  profiler_->extra = {{"gpu__time_duration.sum", 201e3}};  // ns: 201 us in the profiled range
  auto runs = Run("^LoopTest_Flush/", /*with_profiler=*/true);
  ASSERT_EQ(runs.size(), 1u);
  const std::string error = detail::RunErrorMessage(runs[0]);
  EXPECT_NE(error.find("LoopTest_Flush: the GPU time per iteration (1.3 us) is 0.6% of the same "
                       "body's profiled duration"),
            std::string::npos)
      << error;
}

TEST_F(LoopTest, GpuTimeNearTheProfiledDurationIsKept) {
  settings_.profile_iterations = 1;
  timer_->region_seconds = 195e-6;
  profiler_->passes = 1;
  profiler_->extra = {{"gpu__time_duration.sum", 201e3}};
  auto runs = Run("^LoopTest_Flush/", /*with_profiler=*/true);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
}

TEST_F(LoopTest, RangeNamesCarryTheArgumentsAndRatesUseGpuTime) {
  auto runs = Run("^LoopTest_Args/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(log_.Count("push LoopTest_Args/7/9"), 2);
  // 2000 bytes over 2 ms of GPU time.
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kBytesPerSecond).value, 1e6);
}

TEST_F(LoopTest, ProfiledIterationsFollowTheTimedOnesPassByPass) {
  settings_.profile_iterations = 3;
  auto runs = Run("^LoopTest_Flush/", /*with_profiler=*/true);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  std::vector<std::string> pass = {"pass"};
  for (int r = 0; r < 3; ++r) {
    auto range = Join(
        {{"flush", "range LoopTest_Flush/profiled:" + std::to_string(r), "body", "range_end"}});
    pass.insert(pass.end(), range.begin(), range.end());
  }
  const auto expected = Join({
      {"prepare", "flush", "body", "sync", "flush", "sync", "hold", "body", "release", "sync",
       "probe_begin"},
      Repeat({"flush", "sync", "hold", "push LoopTest_Flush", "timer_begin", "body", "timer_end",
              "release", "pop", "sync"},
             3),
      {"probe_end", "session 3"},
      Repeat(pass, 2),
      {"session_end", "after loop"},
  });
  EXPECT_EQ(log_.events, expected);
  const auto& counters = runs[0].counters;
  EXPECT_DOUBLE_EQ(counters.at(counter::kDramReadBytes).value, 200.0);  // mean of 100, 200, 300
  EXPECT_DOUBLE_EQ(counters.at(counter::kDramWriteBytes).value, 50.0);
  EXPECT_DOUBLE_EQ(counters.at(counter::kBytesMoved).value, 250.0);
  EXPECT_DOUBLE_EQ(counters.at(counter::kGpuDuration).value, 1e-6);
  EXPECT_DOUBLE_EQ(counters.at(counter::kDramBandwidth).value, 250.0 / 1e-6);
  EXPECT_DOUBLE_EQ(counters.at(counter::kProfiledSmClockMhz).value, 1900.0);
  EXPECT_DOUBLE_EQ(counters.at(counter::kProfilePasses).value, 2.0);
  EXPECT_DOUBLE_EQ(runs[0].real_accumulated_time, 3e-3);  // profiling is not timed
}

TEST_F(LoopTest, GbTrialCallsCopyTheCountersAndOnlyCallsGbMayReportAreProfiled) {
  settings_.profile_iterations = 3;
  auto runs = Run("^LoopTest_Search/", true);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  // GB's search: calls with 1, 10, 100 iterations, then one that reaches min_time (0.5 s).
  const int calls = log_.Count("prepare");
  EXPECT_GE(calls, 3);
  EXPECT_GE(runs[0].real_accumulated_time, detail::kDefaultMinTimeSeconds);
  // Profiled: the first call (it could have been ->Iterations(1)) and the reported one.
  EXPECT_EQ(profiler_->sessions, 2);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kDramWriteBytes).value, 100.0);  // its own session
  EXPECT_EQ(log_.Count("range_end"), 2 * 2 * 3);  // sessions x passes x ranges
  EXPECT_EQ(detail::ProcessState::Get().policy.trials().Finish(), "");
}

TEST_F(LoopTest, ProfileRunsAllProfilesEveryCall) {
  settings_.profile_iterations = 3;
  settings_.profile_runs = ProfileRuns::kAll;
  auto runs = Run("^LoopTest_Search/", true);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_GE(log_.Count("prepare"), 3);
  EXPECT_EQ(profiler_->sessions, log_.Count("prepare"));
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kDramWriteBytes).value, 50.0 * profiler_->sessions);
}

TEST_F(LoopTest, EveryRepetitionIsProfiledOnItsOwn) {
  settings_.profile_iterations = 1;
  auto runs = Run("^LoopTest_Repeated/", true);
  std::vector<double> writes;
  for (const auto& run : runs) {
    if (run.run_type == benchmark::BenchmarkReporter::Run::RT_Iteration) {
      writes.push_back(run.counters.at(counter::kDramWriteBytes).value);
    }
  }
  // The first repetition profiles its first call and its reported one; the others repeat the
  // iteration count found and are each profiled.
  EXPECT_EQ(writes, (std::vector<double>{100.0, 150.0, 200.0}));
  EXPECT_EQ(profiler_->sessions, 4);
}

// --- the profiling child and its parent (profile_process=child) ---------------------------------

std::vector<nlohmann::json> JsonLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// The child profiles each instance once, times nothing, skips every call, and writes each session
// as it ends, after a header that carries the profiler's status and units.
TEST_F(LoopTest, ProfilingChildProfilesEachInstanceOnceAndTimesNothing) {
  settings_.profile_iterations = 2;
  child_file_ = ::testing::TempDir() + "/gpubench_child_" + std::to_string(::getpid()) + ".jsonl";
  std::remove(child_file_.c_str());
  auto runs = Run("^LoopTest_ThreeRepetitions/", true);
  int skipped = 0;
  for (const auto& run : runs) {
    if (run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) continue;
    EXPECT_NE(detail::RunErrorMessage(run).find(detail::kProfilingPassSkip), std::string::npos);
    ++skipped;
  }
  EXPECT_EQ(skipped, 3);
  EXPECT_EQ(profiler_->sessions, 1);
  EXPECT_EQ(log_.Count("prepare"), 1);  // the other repetitions are skipped before the GPU
  EXPECT_EQ(log_.Count("timer_begin"), 0);
  EXPECT_EQ(log_.Count("hold"), 0);
  const auto lines = JsonLines(child_file_);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["profiler"], "on: fake profiler");
  EXPECT_EQ(lines[0]["units"]["dram__bytes_read.sum"], "byte");
  EXPECT_EQ(lines[1]["instance"], "LoopTest_ThreeRepetitions");
  EXPECT_EQ(lines[1]["profiled"], true);
  EXPECT_DOUBLE_EQ(lines[1]["counters"][counter::kDramReadBytes].get<double>(), 150.0);  // 100, 200
  EXPECT_EQ(lines[1]["passes"], 2);
}

// A session that fails in the child is written with its error.
TEST_F(LoopTest, ProfilingChildWritesAFailedSessionWithItsError) {
  settings_.profile_iterations = 1;
  profiler_->fail_pass = 1;
  child_file_ =
      ::testing::TempDir() + "/gpubench_child_failed_" + std::to_string(::getpid()) + ".jsonl";
  std::remove(child_file_.c_str());
  ::testing::internal::CaptureStderr();
  Run("^LoopTest_Flush/", true);
  ::testing::internal::GetCapturedStderr();
  const auto lines = JsonLines(child_file_);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1]["profiled"], false);
  EXPECT_EQ(lines[1]["error"], "passes differ");
}

// The profile log of the child: one line per session, which belongs to no GB call (iterations 0).
TEST_F(LoopTest, ProfilingChildLogsOneLinePerInstance) {
  const std::string path =
      ::testing::TempDir() + "/gpubench_child_log_" + std::to_string(::getpid()) + ".jsonl";
  std::remove(path.c_str());
  profile_out_ = path;
  settings_.profile_iterations = 1;
  child_file_ =
      ::testing::TempDir() + "/gpubench_child_logged_" + std::to_string(::getpid()) + ".jsonl";
  std::remove(child_file_.c_str());
  Run("^LoopTest_(ThreeRepetitions|Flush)/", true);
  detail::ProcessState::Get().profile_log.Close();
  const auto records = JsonLines(path);
  ASSERT_EQ(records.size(), 2u);
  std::vector<std::string> names;
  for (const auto& record : records) {
    names.push_back(record["benchmark"]);
    EXPECT_EQ(record["iterations"], 0);
    EXPECT_EQ(record["ranges"].size(), 1u);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"LoopTest_Flush", "LoopTest_ThreeRepetitions"}));
}

const char* const kChildHeader =
    R"j({"profiler":"on: CUPTI range profiler in the child","units":{}})j";

// The parent has no profiler: every timed call, all repetitions, takes the child's counters; a
// line the child left unfinished is ignored.
TEST_F(LoopTest, ParentTimesWithTheChildsCounters) {
  settings_.profile_iterations = 3;
  parent_of_ = std::string(kChildHeader) + "\n" +
               R"j({"instance":"LoopTest_ThreeRepetitions","profiled":true,"passes":1,)j"
               R"j("seconds":0.01,"counters":{"dram_read_bytes":4096,"gpu_duration":1e-6}})j"
               "\n"
               R"j({"instance":"LoopTest_Fl)j";
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_ThreeRepetitions/", /*with_profiler=*/false);
  const std::string messages = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(child_header_.profiler_status, "on: CUPTI range profiler in the child");
  int rows = 0;
  for (const auto& run : runs) {
    if (run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) continue;
    ++rows;
    EXPECT_EQ(detail::RunErrorMessage(run), "");
    EXPECT_EQ(run.iterations, 5);
    EXPECT_DOUBLE_EQ(run.counters.at(counter::kDramReadBytes).value, 4096.0);
    EXPECT_EQ(run.counters.count(counter::kProfiledInline), 0u);
  }
  EXPECT_EQ(rows, 3);
  EXPECT_EQ(log_.Count("timer_begin"), 15);
  EXPECT_EQ(messages.find("hardware metrics not collected"), std::string::npos) << messages;
}

// What the child could not profile is said once per instance, and the timing stays.
TEST_F(LoopTest, ParentSaysWhichInstancesTheChildCouldNotProfile) {
  settings_.profile_iterations = 3;
  parent_of_ = std::string(kChildHeader) + "\n" +
               R"j({"instance":"LoopTest_ThreeRepetitions","profiled":false,"passes":1,)j"
               R"j("seconds":0.01,"counters":{},"error":"passes differ"})j";
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_(ThreeRepetitions|Flush)/", /*with_profiler=*/false);
  const std::string messages = ::testing::internal::GetCapturedStderr();
  for (const auto& run : runs) {
    EXPECT_EQ(detail::RunErrorMessage(run), "");
    EXPECT_EQ(run.counters.count(counter::kDramReadBytes), 0u);
  }
  const std::string failed =
      "LoopTest_ThreeRepetitions: hardware metrics not collected: passes differ";
  const size_t at = messages.find(failed);
  EXPECT_NE(at, std::string::npos) << messages;
  EXPECT_EQ(messages.find(failed, at + 1), std::string::npos) << messages;
  EXPECT_NE(messages.find("LoopTest_Flush: hardware metrics not collected: the profiling child did "
                          "not profile this instance"),
            std::string::npos)
      << messages;
}

// A child without a profiler: metrics are off in the parent too, without a message per instance.
TEST_F(LoopTest, ParentOfAChildWithoutProfilerHasNoMetrics) {
  settings_.profile_iterations = 3;
  parent_of_ = R"j({"profiler":"unavailable: no permission","units":{}})j";
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Flush/", /*with_profiler=*/false);
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(runs[0].counters.count(counter::kDramReadBytes), 0u);
  EXPECT_EQ(messages.find("hardware metrics not collected"), std::string::npos) << messages;
}

// A child that wrote nothing: the parent is told why.
TEST_F(LoopTest, ParentOfAChildThatWroteNothingIsToldWhy) {
  detail::ProfilingPass pass;
  detail::ProfilingPass::Header header;
  const std::string path =
      ::testing::TempDir() + "/gpubench_child_empty_" + std::to_string(::getpid()) + ".jsonl";
  std::ofstream(path).close();
  const Status status = pass.BeginTiming(path, &header);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("the profiling child wrote nothing"), std::string::npos);
  EXPECT_FALSE(pass.files().read_child);
  EXPECT_FALSE(pass.files().writes_sessions);
}

// One instance's line that does not read (a counter the child wrote as null, its NaN; a field of
// the wrong type) costs that counter or that instance its metrics, not the whole run's: the
// first version dropped every instance's metrics and said the child "ended before its profiler
// was set up" (H200, an experiment of issue #49).
TEST_F(LoopTest, ParentReadsEveryChildLineOnItsOwn) {
  detail::ProfilingPass pass;
  detail::ProfilingPass::Header header;
  const std::string path =
      ::testing::TempDir() + "/gpubench_child_lines_" + std::to_string(::getpid()) + ".jsonl";
  std::ofstream(path)
      << kChildHeader << "\n"
      << R"j({"instance":"A","profiled":true,"passes":1,"seconds":0.01,)j"
      << R"j("counters":{"dram_read_bytes":4096,"gpu_duration":null}})j"
      << "\n"
      << R"j({"instance":"B","profiled":true,"passes":"one","seconds":0.01,"counters":{}})j"
      << "\n"
      << R"j({"instance":"C","profiled":true,"passes":1,"seconds":0.01,)j"
      << R"j("counters":{"dram_read_bytes":8192}})j"
      << "\n";
  ASSERT_TRUE(pass.BeginTiming(path, &header).ok());
  EXPECT_TRUE(pass.files().read_child);
  ASSERT_EQ(pass.size(), 3u);
  const auto* a = pass.Find("A");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->profile.kind, detail::ProfileOutcome::Kind::kProfiled);
  EXPECT_DOUBLE_EQ(a->profile.counters.at(counter::kDramReadBytes), 4096);
  EXPECT_EQ(a->profile.counters.count(counter::kGpuDuration), 0u);
  const auto* b = pass.Find("B");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->profile.kind, detail::ProfileOutcome::Kind::kFailed);
  EXPECT_NE(b->profile.error.find("the profiling child's line for this instance does not read"),
            std::string::npos)
      << b->profile.error;
  EXPECT_TRUE(b->profile.counters.empty());
  const auto* c = pass.Find("C");
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->profile.counters.at(counter::kDramReadBytes), 8192);
  std::remove(path.c_str());
}

// profile_process=same: the metrics are profiled after each timed run in this process; the rows
// and a message say so.
TEST_F(LoopTest, InlineProfilingMarksItsRowsAndSaysSo) {
  settings_.profile_iterations = 1;
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Flush/", true);
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(profiler_->sessions, 1);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kProfiledInline).value, 1.0);
  EXPECT_NE(messages.find("--gpubench_profile_process=same"), std::string::npos) << messages;
}

// --- GPU busy time and the untimed scope (issue #21) ------------------------------------------

// The child measures busy time after the profiled iterations, flushed and waited for like timed
// ones, and writes it with the host calls on the instance's line.
TEST_F(LoopTest, ProfilingChildMeasuresBusyTimeAfterTheProfiledIterations) {
  with_busy_ = true;
  settings_.profile_iterations = 2;
  busy_->calls = {{"cudaMalloc", 1, 2e-3}, {"cudaLaunchKernel", 3, 6e-6}};
  child_file_ =
      ::testing::TempDir() + "/gpubench_child_busy_" + std::to_string(::getpid()) + ".jsonl";
  std::remove(child_file_.c_str());
  Run("^LoopTest_Flush/", true);
  const auto& events = log_.events;
  // After a short set-up the warm-up is not traced (ProfilingChildTakesALongBodysBusyTime...).
  EXPECT_EQ(log_.Count("busy_start"), 1);
  const auto start = std::find(events.begin(), events.end(), "busy_start");
  ASSERT_NE(start, events.end());
  EXPECT_GT(start - std::find(events.begin(), events.end(), "session_end"), 0);
  const std::vector<std::string> after(start + 1, events.end());
  EXPECT_EQ(after, Join({Repeat({"flush", "sync", "busy_begin", "body", "busy_end", "sync"}, 2),
                         {"busy_finish", "after loop"}}));
  const auto lines = JsonLines(child_file_);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1]["busy"]["iterations"], 2);
  EXPECT_DOUBLE_EQ(lines[1]["busy"]["seconds"].get<double>(), 0.25e-3);
  // What measuring took, for the parent's "profiling pass done" line.
  EXPECT_GT(lines[1]["busy"]["host_seconds"].get<double>(), 0);
  EXPECT_EQ(lines[1]["busy"]["calls"][0][0], "cudaMalloc");
  EXPECT_DOUBLE_EQ(lines[1]["busy"]["calls"][1][1].get<double>(), 3);
}

// A body longer than the profiling bodies' aim, after a set-up as long, has no busy iteration of
// its own: its traced warm-up is the busy measurement, so the child runs it twice (warm-up and
// one range), not 3 times.
TEST_F(LoopTest, ProfilingChildTakesALongBodysBusyTimeFromItsWarmup) {
  with_busy_ = true;
  settings_.profile_iterations = 3;
  busy_->busy_seconds = 0.28;
  child_file_ =
      ::testing::TempDir() + "/gpubench_child_long_" + std::to_string(::getpid()) + ".jsonl";
  std::remove(child_file_.c_str());
  profiler_->passes = 1;
  Run("^LoopTest_LongSetUp/", true);
  EXPECT_EQ(log_.Count("body"), 2);
  EXPECT_EQ(log_.Count("busy_start"), 1);
  const auto& events = log_.events;
  EXPECT_EQ(std::vector<std::string>(events.begin(), events.begin() + 6),
            std::vector<std::string>(
                {"prepare", "flush", "busy_start", "busy_begin", "body", "busy_end"}));
  EXPECT_LT(std::find(events.begin(), events.end(), "busy_finish") - events.begin(),
            std::find(events.begin(), events.end(), "session_end") - events.begin());
  const auto lines = JsonLines(child_file_);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1]["busy"]["iterations"], 1);
  EXPECT_DOUBLE_EQ(lines[1]["busy"]["seconds"].get<double>(), 0.28);
}

// A long body after a short set-up is not traced in its warm-up (a short body would pay for it),
// and keeps its own busy iteration: 3 bodies.
TEST_F(LoopTest, ProfilingChildTracesNoWarmupAfterAShortSetUp) {
  with_busy_ = true;
  settings_.profile_iterations = 3;
  child_file_ =
      ::testing::TempDir() + "/gpubench_child_short_" + std::to_string(::getpid()) + ".jsonl";
  std::remove(child_file_.c_str());
  profiler_->passes = 1;
  Run("^LoopTest_Long/", true);
  EXPECT_EQ(log_.Count("body"), 3);
  EXPECT_EQ(log_.Count("busy_start"), 1);
  const auto& events = log_.events;
  EXPECT_GT(std::find(events.begin(), events.end(), "busy_start") - events.begin(),
            std::find(events.begin(), events.end(), "session_end") - events.begin());
}

// A short body's traced warm-up is not its busy measurement: the busy iterations follow the
// profiled ones (ProfilingChildMeasuresBusyTimeAfterTheProfiledIterations), and neither is a
// long body's warm-up that held a gpubench::UntimedScope (the warm-up runs whole).
TEST(UsesWarmupBusy, OnlyForALongWholeTracedWarmup) {
  detail::CallResult call;
  call.warmup_busy.iterations = 1;
  call.warmup_body_seconds = 0.3;
  EXPECT_TRUE(detail::UsesWarmupBusy(call));
  call.warmup_body_seconds = 0.2;
  EXPECT_FALSE(detail::UsesWarmupBusy(call));
  call.warmup_body_seconds = 0.3;
  call.warmup_scopes = 1;
  EXPECT_FALSE(detail::UsesWarmupBusy(call));
  call.warmup_scopes = 0;
  call.warmup_busy.iterations = 0;  // not traced (the tracer failed)
  EXPECT_FALSE(detail::UsesWarmupBusy(call));
}

const char* const kChildBusyLine =
    R"j({"instance":"LoopTest_ThreeRepetitions","profiled":true,"passes":1,"seconds":0.01,)j"
    R"j("counters":{"dram_read_bytes":4096},"busy":{"iterations":3,"seconds":%s,"calls":)j"
    R"j([["cudaMallocHost",1,0.0021],["cudaDeviceSynchronize",1,0.0009],)j"
    R"j(["cudaMemcpy",2,0.0002]]}})j";

std::string ChildBusyLine(const char* busy_seconds) {
  char line[1024];
  std::snprintf(line, sizeof(line), kChildBusyLine, busy_seconds);
  return line;
}

// The parent publishes the child's busy time against its own GPU time, and when the GPU is busy
// for less than 80% of it, says once per benchmark which host calls it waited for.
TEST_F(LoopTest, ParentPublishesBusyTimeAndNamesTheHostCallsOnce) {
  settings_.profile_iterations = 3;
  ops_->hold_times_out = true;  // a body that allocates and synchronises cannot be held
  parent_of_ = std::string(kChildHeader) + "\n" + ChildBusyLine("0.25e-3");
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_ThreeRepetitions/", /*with_profiler=*/false);
  const std::string messages = ::testing::internal::GetCapturedStderr();
  int rows = 0;
  for (const auto& run : runs) {
    if (run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) continue;
    ++rows;
    EXPECT_DOUBLE_EQ(run.counters.at(counter::kGpuBusyTime).value, 0.25e-3);
    EXPECT_DOUBLE_EQ(run.counters.at(counter::kGpuBusyPct).value, 25.0);  // of 1 ms per iteration
  }
  EXPECT_EQ(rows, 3);
  const std::string expected =
      "gpubench: LoopTest_ThreeRepetitions: GPU time 1 ms, GPU busy 0.25 ms (25%): per "
      "iteration the loop calls cudaMallocHost (2.1 ms), cudaDeviceSynchronize (0.9 ms), "
      "cudaMemcpy 2x (0.2 ms); the GPU waits for these host calls inside the timed span";
  const size_t at = messages.find(expected);
  EXPECT_NE(at, std::string::npos) << messages;
  EXPECT_EQ(messages.find(expected, at + 1), std::string::npos) << messages;
}

// A held body whose GPU idles between its own short work items: the message does not blame the
// host's calls, which did not pace the GPU.
TEST_F(LoopTest, AHeldBodyBelowEightyPercentIsToldWhereTheGapsAre) {
  settings_.profile_iterations = 3;
  parent_of_ = std::string(kChildHeader) + "\n" + ChildBusyLine("0.25e-3");
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_ThreeRepetitions/", /*with_profiler=*/false);
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(runs.empty());
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kLaunchHeld).value, 1.0);
  EXPECT_NE(messages.find("LoopTest_ThreeRepetitions: GPU time 1 ms, GPU busy 0.25 ms (25%): the "
                          "launches were held (launch_held=1)"),
            std::string::npos)
      << messages;
  EXPECT_EQ(messages.find("per iteration the loop calls"), std::string::npos) << messages;
}

// Tracing slows memory-bound kernels, so the traced busy time can exceed the untraced GPU time:
// the time is published as measured, the share capped at all of the GPU time.
TEST_F(LoopTest, BusyTimeAboveTheGpuTimeIsAHundredPercentBusy) {
  settings_.profile_iterations = 3;
  parent_of_ = std::string(kChildHeader) + "\n" + ChildBusyLine("1.05e-3");
  auto runs = Run("^LoopTest_ThreeRepetitions/", /*with_profiler=*/false);
  ASSERT_FALSE(runs.empty());
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kGpuBusyTime).value, 1.05e-3);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kGpuBusyPct).value, 100.0);
}

TEST_F(LoopTest, BusyForEightyPercentOrMoreIsPublishedWithoutAMessage) {
  settings_.profile_iterations = 3;
  parent_of_ = std::string(kChildHeader) + "\n" + ChildBusyLine("0.8e-3");
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_ThreeRepetitions/", /*with_profiler=*/false);
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(runs.empty());
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kGpuBusyPct).value, 80.0);
  EXPECT_EQ(messages.find("GPU busy"), std::string::npos) << messages;
}

// The scope stops the timer where it begins and restarts it where it ends. Behind a hold it
// releases the hold (its work may wait for the GPU), then waits for its work and holds the
// stream again, in the hold check as in the timed bodies; the warm-up runs the setup whole. The
// GPU time loses the scope's span, and the NVTX range leaves out the scope, its flush and hold.
TEST_F(LoopTest, UntimedScopeTakesItsSpanOutOfTheGpuTime) {
  // Seven empty held regions before the timed iterations: their median is the scope's own
  // overhead, taken out once per scope.
  timer_->empty_regions = {3e-6, 1e-6, 7e-6, 2e-6, 4e-6, 6e-6, 5e-6};
  auto runs = Run("^LoopTest_Scoped/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  const auto expected = Join({
      {"prepare", "flush", "setup", "body", "sync", "flush", "sync", "hold", "release", "setup",
       "sync", "hold", "body", "release", "sync"},
      Repeat({"hold", "timer_begin", "timer_end", "release"}, 7),
      {"scope_overhead", "probe_begin"},
      Repeat({"flush", "sync", "hold", "push LoopTest_Scoped", "timer_begin", "timer_pause",
              "release", "pop", "setup", "flush", "sync", "hold", "push LoopTest_Scoped",
              "timer_resume", "body", "timer_end", "release", "pop", "sync"},
             2),
      {"probe_end"},
  });
  EXPECT_EQ(log_.events, expected);
  EXPECT_DOUBLE_EQ(timer_->scope_overhead, 4e-6);
  EXPECT_DOUBLE_EQ(runs[0].real_accumulated_time, 2 * (1e-3 - 0.4e-3 - 4e-6));
}

// Without a scope in the warm-up, or without holds (cache=keep), nothing is measured.
TEST_F(LoopTest, TheScopeOverheadIsNotMeasuredWithoutAScope) {
  Run("^LoopTest_Flush/");
  EXPECT_EQ(log_.Count("scope_overhead"), 0);
  EXPECT_EQ(log_.Count("timer_begin"), 3);
}

TEST_F(LoopTest, TheScopeOverheadIsNotMeasuredWithoutHolds) {
  settings_.cache = CachePolicy::kKeep;
  auto runs = Run("^LoopTest_Scoped/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(log_.Count("scope_overhead"), 0);
  EXPECT_EQ(log_.Count("timer_begin"), 1);
}

// A scope that cannot stop the timer ends the call with the reason instead of a wrong time.
TEST_F(LoopTest, AnUntimedScopeThatCannotPauseEndsTheCall) {
  timer_->pause_status = Status::Error("cudaEventRecord: invalid resource handle");
  auto runs = Run("^LoopTest_Scoped/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_NE(detail::RunErrorMessage(runs[0]).find("invalid resource handle"), std::string::npos);
}

// Inline profiling: the profiled ranges pause for the scope (the timer does not), the busy
// iterations leave the scope's work out.
TEST_F(LoopTest, UntimedScopeInBusyIterationsLeavesItsWorkOut) {
  timer_->empty_regions.assign(7, 1e-6);  // the scope-overhead measurement
  with_busy_ = true;
  settings_.profile_iterations = 1;
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Scoped/", true);
  ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  const auto& events = log_.events;
  const auto session = std::find(events.begin(), events.end(), "session 2");  // 1 range, 2 parts
  const auto busy = std::find(events.begin(), events.end(), "busy_start");
  ASSERT_NE(session, events.end());
  ASSERT_NE(busy, events.end());
  EXPECT_EQ(std::count(session, busy, "timer_pause") + std::count(session, busy, "busy_pause"), 0);
  EXPECT_EQ(std::count(busy, events.end(), "busy_pause"), 1);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kGpuBusyTime).value, 0.25e-3 - 0.1e-3);
}

// --- the profiled ranges around gpubench::UntimedScope -------------------------------------------

const char* const kHitRate = "lts__t_sector_hit_rate.pct";

// The values of LoopTest_Scoped's parts: the part before the scope (".../profiled:N") moves 10
// bytes in 1 us at 1 GHz; the part after it (".../profiled:N.1") 1000 x (N + 1) bytes in 3 us at
// 2 GHz. Each has an L2 hit rate, which does not add up.
std::map<std::string, double> ScopedPart(const std::string& name) {
  const size_t colon = name.rfind(':');
  const bool after_scope = name.find('.', colon) != std::string::npos;
  const int iteration = std::stoi(name.substr(colon + 1));
  return {{"dram__bytes_read.sum", after_scope ? 1000.0 * (iteration + 1) : 10.0},
          {"dram__bytes_write.sum", after_scope ? 5.0 : 0.0},
          {"gpu__time_duration.sum", after_scope ? 3000.0 : 1000.0},
          {"sm__cycles_elapsed.avg.per_second", after_scope ? 2e9 : 1e9},
          {std::string(detail::kL2HitRateMetric), after_scope ? 10.0 : 90.0},
          {std::string(detail::kL2ReadSectorsMetric), 1.0},
          {std::string(detail::kL2WriteSectorsMetric), 2.0}};
}

// The events from the session's start to its end.
std::vector<std::string> SessionEvents(const std::vector<std::string>& events) {
  const auto begin = std::find_if(events.begin(), events.end(), [](const std::string& event) {
    return event.rfind("session ", 0) == 0;
  });
  const auto end = std::find(begin, events.end(), "session_end");
  return std::vector<std::string>(begin, end == events.end() ? end : end + 1);
}

// A scope in a profiled body closes the range where it begins; the next part opens after the
// scope's work (cache=flush: a flush, then the wait), under a name of its own. The parts of each
// iteration are put together: bytes and durations added, the clock weighted by duration; the
// hit rate cannot be and is left out, which the row says once and the profile log records.
TEST_F(LoopTest, UntimedScopeSplitsTheProfiledRanges) {
  const std::string path = ::testing::TempDir() + "gpubench_split_profile.jsonl";
  std::remove(path.c_str());
  profile_out_ = path;
  timer_->empty_regions.assign(7, 1e-6);  // the scope-overhead measurement
  settings_.profile_iterations = 2;
  profiler_->passes = 1;
  profiler_->values = ScopedPart;
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Scoped/", true);
  const std::string err = ::testing::internal::GetCapturedStderr();
  detail::ProcessState::Get().profile_log.Close();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  const std::vector<std::string> part = {"range_end", "setup", "flush", "sync"};
  EXPECT_EQ(SessionEvents(log_.events),
            Join({{"session 4", "pass", "flush", "range LoopTest_Scoped/profiled:0"},
                  part,
                  {"range LoopTest_Scoped/profiled:0.1", "body", "range_end", "flush",
                   "range LoopTest_Scoped/profiled:1"},
                  part,
                  {"range LoopTest_Scoped/profiled:1.1", "body", "range_end", "session_end"}}));
  const std::set<std::string> names(profiler_->pushed.begin(), profiler_->pushed.end());
  EXPECT_EQ(names.size(), 4u);  // CUPTI merges ranges that share a name
  const auto& counters = runs[0].counters;
  EXPECT_DOUBLE_EQ(counters.at(counter::kDramReadBytes).value, (1010.0 + 2010.0) / 2);
  EXPECT_DOUBLE_EQ(counters.at(counter::kDramWriteBytes).value, 5.0);
  EXPECT_DOUBLE_EQ(counters.at(counter::kGpuDuration).value, 4e-6);
  EXPECT_DOUBLE_EQ(counters.at(counter::kProfiledSmClockMhz).value, 1750.0);  // (1 + 2 x 3) / 4
  EXPECT_DOUBLE_EQ(counters.at(counter::kL2ReadBytes).value, 2 * 32.0);
  EXPECT_EQ(counters.count(counter::kL2HitRate), 0u);
  EXPECT_EQ(counters.count(kHitRate), 0u);
  const std::string note =
      "LoopTest_Scoped: the profiled ranges pause where the body enters "
      "gpubench::UntimedScope";
  ASSERT_NE(err.find(note), std::string::npos) << err;
  EXPECT_EQ(err.find(note, err.find(note) + 1), std::string::npos) << err;  // once
  EXPECT_NE(err.find(std::string(kHitRate) + " (l2_hit_rate)"), std::string::npos) << err;
  const auto records = JsonLines(path);
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].at("ranges").size(), 2u);  // per iteration, its parts put together
  EXPECT_EQ(records[0].at("ranges")[1].at("dram__bytes_read.sum"), 2010.0);
  EXPECT_NE(records[0].at("note").get<std::string>().find(kHitRate), std::string::npos);
  std::remove(path.c_str());
}

// cache=keep flushes nothing: the next part opens once the scope's work is done.
TEST_F(LoopTest, WithoutFlushTheNextPartWaitsForTheScopesWork) {
  settings_.cache = CachePolicy::kKeep;
  settings_.profile_iterations = 1;
  profiler_->passes = 1;
  auto runs = Run("^LoopTest_Scoped/", true);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(SessionEvents(log_.events),
            (std::vector<std::string>{
                "session 2", "pass", "range LoopTest_Scoped/profiled:0", "range_end", "setup",
                "sync", "range LoopTest_Scoped/profiled:0.1", "body", "range_end", "session_end"}));
  // The fake's default values, per part: bytes and durations add up.
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kDramReadBytes).value, 100.0 + 200.0);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kGpuDuration).value, 2e-6);
}

// The session is sized by the warm-up's scopes: a profiled body that enters more has no room for
// its parts, so the session fails with the reason, and the row keeps its time without counters.
TEST_F(LoopTest, MoreScopesThanTheWarmupFailTheSession) {
  g_bodies = 0;
  settings_.cache = CachePolicy::kKeep;  // no hold check: the first body is the warm-up
  settings_.profile_iterations = 1;
  profiler_->passes = 1;
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_ScopedAfterWarmup/", true);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(runs[0].counters.count(counter::kDramReadBytes), 0u);
  EXPECT_EQ(runs[0].counters.count(counter::kGpuDuration), 0u);
  EXPECT_NE(err.find("LoopTest_ScopedAfterWarmup: hardware metrics not collected: a profiled "
                     "iteration entered gpubench::UntimedScope more often than the warm-up body "
                     "(0 time(s))"),
            std::string::npos)
      << err;
  EXPECT_EQ(log_.Count("abort"), 1);
  EXPECT_EQ(log_.Count("range LoopTest_ScopedAfterWarmup/profiled:0.1"), 0);
}

// A part with no GPU work may not come back from CUPTI: the iteration is then its other part,
// found by name, and keeps every metric.
TEST_F(LoopTest, APartTheProfilerLeftOutIsNoGap) {
  settings_.profile_iterations = 2;
  profiler_->passes = 1;
  profiler_->values = ScopedPart;
  profiler_->dropped = {"LoopTest_Scoped/profiled:0", "LoopTest_Scoped/profiled:1"};
  timer_->empty_regions.assign(7, 1e-6);
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Scoped/", true);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kDramReadBytes).value, (1000.0 + 2000.0) / 2);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kL2HitRate).value, 10.0);
  EXPECT_EQ(err.find("the profiled ranges pause"), std::string::npos) << err;
}

// Unnamed ranges fewer than were pushed cannot be told apart: the session fails, saying so.
TEST_F(LoopTest, UnnamedPartsThatDoNotAddUpFailTheSession) {
  settings_.profile_iterations = 2;
  profiler_->passes = 1;
  profiler_->names_known = false;
  profiler_->dropped = {"LoopTest_Scoped/profiled:0"};
  timer_->empty_regions.assign(7, 1e-6);
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Scoped/", true);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(runs[0].counters.count(counter::kDramReadBytes), 0u);
  EXPECT_NE(err.find("hardware metrics not collected: the profiler returned 3 ranges for the 4 "
                     "gpubench pushed"),
            std::string::npos)
      << err;
}

// With the scope's work out of the profiled duration, the missed-work check holds a scoped
// body's GPU time against it (before, the scope's work was only in the profiled duration).
TEST_F(LoopTest, AScopedBodysGpuTimeIsHeldAgainstItsSplitProfiledDuration) {
  timer_->empty_regions.assign(7, 1e-6);
  settings_.profile_iterations = 1;
  profiler_->passes = 1;
  profiler_->values = [](const std::string&) -> std::map<std::string, double> {
    return {{"gpu__time_duration.sum", 5e6}};  // 5 ms a part: 10 ms against 0.6 ms timed
  };
  auto runs = Run("^LoopTest_Scoped/", true);
  ASSERT_EQ(runs.size(), 1u);
  const std::string error = detail::RunErrorMessage(runs[0]);
  EXPECT_NE(error.find("of the same body's profiled duration (gpu_duration 10 ms"),
            std::string::npos)
      << error;
}

// The profiling child writes the note and that its ranges paused; the parent says the note once
// per benchmark, and its missed-work check knows the profiled duration left the scopes out.
TEST_F(LoopTest, ProfilingChildPassesTheSplitOnToTheParent) {
  settings_.profile_iterations = 1;
  profiler_->passes = 1;
  profiler_->values = ScopedPart;
  child_file_ =
      ::testing::TempDir() + "/gpubench_child_split_" + std::to_string(::getpid()) + ".jsonl";
  std::remove(child_file_.c_str());
  ::testing::internal::CaptureStderr();
  Run("^LoopTest_Scoped/", true);
  ::testing::internal::GetCapturedStderr();
  const auto lines = JsonLines(child_file_);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].value("ranges_paused", false), true);
  EXPECT_NE(lines[1].value("note", "").find(kHitRate), std::string::npos) << lines[1].dump();
}

// The child's line for LoopTest_Scoped, with `extra` fields and a profiled duration of
// `gpu_duration` seconds.
std::string ScopedChildLines(const std::string& extra, double gpu_duration) {
  return std::string(kChildHeader) + "\n" +
         R"j({"instance":"LoopTest_Scoped","profiled":true,"passes":1,"seconds":0.01,)j" + extra +
         R"j("counters":{"dram_read_bytes":4096,"gpu_duration":)j" + std::to_string(gpu_duration) +
         "}}";
}

TEST_F(LoopTest, ParentSaysTheChildsNote) {
  timer_->empty_regions.assign(7, 1e-6);
  settings_.profile_iterations = 1;
  parent_of_ = ScopedChildLines(R"j("note":"the profiled ranges pause (test)",)j", 1e-6);
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Scoped/", /*with_profiler=*/false);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_NE(err.find("LoopTest_Scoped: the profiled ranges pause (test)"), std::string::npos)
      << err;
}

// 0.6 ms of GPU time per iteration against a 10 ms profiled duration: refused when the child's
// ranges paused for the scopes, as the timer did; not held against it when they did not.
TEST_F(LoopTest, ParentHoldsAScopedBodyAgainstAProfiledDurationThatPaused) {
  timer_->empty_regions.assign(7, 1e-6);
  settings_.profile_iterations = 1;
  parent_of_ = ScopedChildLines(R"j("ranges_paused":true,)j", 0.01);
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Scoped/", /*with_profiler=*/false);
  ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_NE(detail::RunErrorMessage(runs[0]).find("profiled duration"), std::string::npos);
}

TEST_F(LoopTest, ParentDoesNotHoldAScopedBodyAgainstAProfiledDurationThatRanWhole) {
  timer_->empty_regions.assign(7, 1e-6);
  settings_.profile_iterations = 1;
  parent_of_ = ScopedChildLines("", 0.01);
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Scoped/", /*with_profiler=*/false);
  ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
}

// Without a working tracer (another CUPTI client, an error) the rows carry no busy counters and
// the call keeps its time and metrics.
TEST_F(LoopTest, ABusyTracerThatCannotRunLeavesOnlyItsCountersOut) {
  with_busy_ = true;
  settings_.profile_iterations = 1;
  busy_->unavailable = "another CUDA tool traces this process";
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Flush/", true);
  ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(runs[0].counters.count(counter::kGpuBusyTime), 0u);
  EXPECT_EQ(runs[0].counters.count(counter::kDramReadBytes), 1u);
  EXPECT_EQ(log_.Count("busy_start"), 0);
}

// state.PauseTiming() in the loop body: GB's check aborts in the warm-up body, which runs
// outside GB's timed iterations; gpubench says what that abort means and what to use instead.
// Whether this GB build checks PauseTiming outside its timed iterations (GB 1.7 aborts; GB 1.9.1
// built for release does not check), probed with a plain GB benchmark in a child process.
void PlainGb_PauseBeforeTheLoop(benchmark::State& state) {
  state.PauseTiming();
  state.ResumeTiming();
  for (auto _ : state) {
  }
}
BENCHMARK(PlainGb_PauseBeforeTheLoop)->Iterations(1);

// Registered with GB's own macro: gpubench does not wrap its call.
void PlainGb_LoopWithoutDevice(benchmark::State& state) {
  g_log->Add("plain set-up");
  for (auto _ : Loop(state)) Body();
}
BENCHMARK(PlainGb_LoopWithoutDevice)->UseManualTime()->Iterations(1);

bool GbAbortsOnPauseTimingOutsideItsIterations() {
  const pid_t child = ::fork();
  if (child == 0) {
    if (std::freopen("/dev/null", "w", stderr) == nullptr) ::_exit(2);
    CaptureReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter, "^PlainGb_PauseBeforeTheLoop/");
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFSIGNALED(status);
}

// state.PauseTiming() in the body, outside GB's timed iterations: a GB that checks it (Debian's
// 1.7.1, built without NDEBUG) aborts, and gpubench explains the abort; a GB that does not (1.9.1
// for release) runs on, and gpubench's reporter marks the row. One test, whichever GB it is
// built with, so that neither CI stage skips it.
TEST_F(LoopTest, PauseTimingOutsideGbsIterationsIsExplainedOrMarked) {
  if (GbAbortsOnPauseTimingOutsideItsIterations()) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        Run("^LoopTest_Paused/"),
        "gpubench: the process aborted in the warm-up body of LoopTest_Paused, which "
        "gpubench runs outside Google Benchmark's timed iterations.*state.PauseTiming\\(\\)"
        ".*gpubench::UntimedScope");
    return;
  }
  // GB 1.9.1's unchecked first pause adds the thread's whole CPU time so far (its timer starts
  // from 0), which the timed bodies' 3 ms of paused spins then offset: in a fresh process whose
  // thread has used about 3 ms (a ctest run on CI's machine) the two cancel and nothing is
  // marked. A thread that has used 50 ms makes GB's CPU time surely higher.
  SpinCpu(50e-3 - detail::ThreadCpuSeconds());
  settings_.cache = CachePolicy::kKeep;
  through_gpubench_reporter_ = true;
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_PausedEverywhere/");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  ASSERT_EQ(runs[0].counters.count(counter::kTimingPaused), 1u) << err;
  EXPECT_EQ(runs[0].counters.at(counter::kTimingPaused).value, 1.0);
  EXPECT_NE(err.find("LoopTest_PausedEverywhere: GB's CPU time of the timed iterations is"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("gpubench::UntimedScope"), std::string::npos) << err;
}

// GB 1.7 allows PauseTiming in its own iterations: the paused work's CPU time is missing from
// GB's, which the reporters see; the same setup unpaused is not marked.
TEST_F(LoopTest, PauseTimingInTimedBodiesIsMarkedOnEveryRowAndSaidOnce) {
  settings_.cache = CachePolicy::kKeep;
  through_gpubench_reporter_ = true;
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_(PausedWhenTimed|SetupNotPaused)/");
  const std::string err = ::testing::internal::GetCapturedStderr();
  int paused_rows = 0, unpaused_rows = 0;
  for (const auto& run : runs) {
    ASSERT_EQ(detail::RunErrorMessage(run), "");
    const bool marked = run.counters.count(counter::kTimingPaused) != 0;
    if (run.run_name.function_name == "LoopTest_PausedWhenTimed") {
      EXPECT_TRUE(marked) << run.benchmark_name();
      paused_rows += marked;
    } else {
      EXPECT_FALSE(marked) << run.benchmark_name() << " " << err;
      ++unpaused_rows;
    }
  }
  // Two repetitions and GB's aggregates (mean, median, stddev, cv) each.
  EXPECT_EQ(paused_rows, 6);
  EXPECT_EQ(unpaused_rows, 6);
  const std::string said = "LoopTest_PausedWhenTimed: GB's CPU time of the timed iterations is";
  ASSERT_NE(err.find(said), std::string::npos) << err;
  EXPECT_EQ(err.find(said, err.find(said) + 1), std::string::npos) << "said once: " << err;
  EXPECT_NE(err.find("pauses GB's timer (state.PauseTiming())"), std::string::npos) << err;
  EXPECT_EQ(err.find("LoopTest_SetupNotPaused: GB's CPU"), std::string::npos) << err;
}

// A body that times itself would show GB's sum of both times; gpubench's reporters refuse each of
// its rows (repetitions and aggregates) with the reason, say once what to remove, and leave the
// rows of a body that does not alone.
TEST_F(LoopTest, ABodyThatTimesItselfIsRefusedOnEveryRowAndSaidOnce) {
  settings_.cache = CachePolicy::kKeep;
  through_gpubench_reporter_ = true;
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_(TimesItself|Declared)/");
  const std::string err = ::testing::internal::GetCapturedStderr();
  int refused = 0, published = 0;
  for (const auto& run : runs) {
    const std::string error = detail::RunErrorMessage(run);
    if (run.run_name.function_name == "LoopTest_TimesItself") {
      EXPECT_NE(error.find("the loop body calls state.SetIterationTime() itself"),
                std::string::npos)
          << run.benchmark_name() << ": " << error;
      refused += !error.empty();
    } else {
      EXPECT_EQ(error, "") << run.benchmark_name();
      ++published;
    }
  }
  EXPECT_EQ(refused, 2 + 4);    // two repetitions, GB's four aggregates
  EXPECT_EQ(published, 3 + 4);  // LoopTest_Declared: three repetitions and the aggregates
  const std::string said = "gpubench: LoopTest_TimesItself: GB's GPU time of the timed iterations";
  ASSERT_NE(err.find(said), std::string::npos) << err;
  EXPECT_EQ(err.find(said, err.find(said) + 1), std::string::npos) << "said once: " << err;
  EXPECT_NE(err.find("Remove the body's own events and its SetIterationTime call"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("LoopTest_Declared: GB's GPU time"), std::string::npos) << err;
}

// An exception from the benchmark function ends its row, with the exception named, instead of the
// process; the loop it left closes its NVTX range, TearDown runs after a case that threw, and the
// next benchmark runs.
TEST_F(LoopTest, AnExceptionFromTheBenchmarkEndsItsRowNotTheRun) {
  auto runs = Run("^(LoopTest_Throws|LoopThrowingFixture/|LoopTest_Held/)");
  ASSERT_EQ(runs.size(), 6u);
  std::map<std::string, std::string> errors;
  for (const auto& run : runs) errors[run.benchmark_name()] = detail::RunErrorMessage(run);
  const auto has = [&](const std::string& name, const std::string& text) {
    const auto it = std::find_if(errors.begin(), errors.end(),
                                 [&](const auto& e) { return e.first.rfind(name, 0) == 0; });
    EXPECT_NE(it, errors.end()) << name;
    if (it == errors.end()) return;
    EXPECT_NE(it->second.find(text), std::string::npos) << name << ": " << it->second;
    EXPECT_NE(it->second.find("this row is an error instead and the other benchmarks run"),
              std::string::npos)
        << it->second;
  };
  has("LoopTest_ThrowsInTheLoop",
      "threw std::runtime_error (\"CUDA_SAFE_CALL failed: out of memory\")");
  has("LoopTest_ThrowsBeforeTheLoop/1", "threw an exception that is not a std::exception");
  // CUDA's last error is read (so cleared) with the exception, named, and not passed on: the
  // benchmarks after it run.
  has("LoopTest_ThrowsAfterACudaError", "threw std::runtime_error (\"CUDA_SAFE_CALL failed\")");
  has("LoopTest_ThrowsAfterACudaError",
      "(CUDA's last error, read and cleared so that the next benchmark does not fail with "
      "it: cudaErrorMemoryAllocation: out of memory)");
  EXPECT_TRUE(ops_->pending_error.ok());
  has("LoopThrowingFixture/Case/0", "threw std::invalid_argument (\"no input\")");
  has("LoopThrowingFixture/Case/1", "threw std::runtime_error (\"case failed\")");
  for (const auto& [name, error] : errors) {
    if (name.rfind("LoopTest_Held", 0) == 0) EXPECT_EQ(error, "") << name;
  }
  EXPECT_EQ(log_.Count("teardown 0"), 0);  // its SetUp threw
  EXPECT_EQ(log_.Count("setup 1"), 1);
  EXPECT_EQ(log_.Count("teardown 1"), 1);  // after the case that threw
  int pushes = 0;
  for (const std::string& event : log_.events) pushes += event.rfind("push ", 0) == 0;
  EXPECT_EQ(pushes, log_.Count("pop")) << "every NVTX range the loops opened is closed";
}

// Under a gpubench form GB's manual time of a GB loop is 0 s: the row is an error, never 0.
TEST_F(LoopTest, AGbLoopUnderAGpubenchFormIsAnErrorNotZeroSeconds) {
  auto runs = Run("^(LoopTest_GbLoopUnderAGpubenchForm|LoopTest_Held/)");
  ASSERT_GE(runs.size(), 2u);
  for (const auto& run : runs) {
    const std::string error = detail::RunErrorMessage(run);
    if (run.benchmark_name().rfind("LoopTest_GbLoop", 0) == 0) {
      EXPECT_NE(error.find("never ran gpubench::Loop, so GB would report 0 s"), std::string::npos)
          << error;
    } else {
      EXPECT_EQ(error, "") << run.benchmark_name();
    }
  }
}

TEST(GbAddedTime, OnlyMoreThanTheSumsRoundingCounts) {
  EXPECT_FALSE(detail::GbAddedTime(1.0, 1.0 + 1e-7));  // rounding of a million additions
  EXPECT_TRUE(detail::GbAddedTime(1.0, 1.0 + 1e-5));
  EXPECT_FALSE(detail::GbAddedTime(3e-6, 3e-6 + 5e-10));
  EXPECT_TRUE(detail::GbAddedTime(3e-6, 6e-6));  // a body that timed its 3 us kernel
  EXPECT_FALSE(detail::GbAddedTime(1.0, 0.5));   // less is not this check's business
}

detail::ThermalSample Nvml(double celsius, double watts, uint64_t reasons) {
  return ThermalReading(celsius, watts, /*energy_j=*/-1, reasons);
}

// NVML is read as the timed iterations begin (on the watch's thread) and after they end (on the
// loop's thread, after the clock probe).
TEST_F(LoopTest, RowsCarryTheGpusTemperaturePowerAndClockEvents) {
  thermal_owner_ = std::make_unique<FakeThermalMonitor>(
      &log_, std::vector<detail::ThermalSample>{Nvml(40, 100, detail::kClockEventGpuIdle),
                                                Nvml(45, 600, detail::kClockEventSwPowerCap)});
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  const auto& counters = runs[0].counters;
  EXPECT_EQ(counters.at(counter::kGpuTempStartC).value, 40);
  EXPECT_EQ(counters.at(counter::kGpuTempEndC).value, 45);
  EXPECT_EQ(counters.at(counter::kClockEventReasons).value, 4);  // gpu_idle left out
  EXPECT_GT(counters.at(counter::kGpuPowerW).value, 100);  // the mean of the readings: a short span
  EXPECT_LE(counters.at(counter::kGpuPowerW).value, 600);
  EXPECT_EQ(counters.count(counter::kThermalWaitTime), 0u);
  const auto& events = log_.events;
  const auto probe_end = std::find(events.begin(), events.end(), "probe_end");
  ASSERT_NE(probe_end, events.end());
  EXPECT_EQ(std::count(events.begin(), probe_end, "thermal"), 0);  // none on the loop's thread
  EXPECT_EQ(std::count(probe_end, events.end(), "thermal"), 1);
  EXPECT_GE(thermal_->calls.load(), 2);
}

TEST_F(LoopTest, WithoutNvmlTheRowsHaveNoThermalCounters) {
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  for (const char* name : {counter::kGpuTempStartC, counter::kGpuTempEndC, counter::kGpuPowerW,
                           counter::kClockEventReasons, counter::kThermalWaitTime}) {
    EXPECT_EQ(runs[0].counters.count(name), 0u) << name;
  }
}

// sm_clock_throttled=1 says why, as far as NVML knows.
TEST_F(LoopTest, AThrottledRowNamesNvmlsClockEventReasons) {
  ops_->clock_mhz = 1500;
  thermal_owner_ = std::make_unique<FakeThermalMonitor>(
      &log_,
      std::vector<detail::ThermalSample>{Nvml(61, 690, detail::kClockEventSwPowerCap),
                                         Nvml(66, 700, detail::kClockEventSwThermalSlowdown)});
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Flush/");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].counters.at(counter::kSmClockThrottled).value, 1);
  EXPECT_NE(err.find("LoopTest_Flush: the SM clock averaged 1500 MHz, below 90% of the rated "
                     "1980 MHz (sm_clock_throttled=1); NVML's clock-event reasons during the "
                     "timed iterations: sw_power_cap, sw_thermal_slowdown (GPU 61 C to 66 C"),
            std::string::npos)
      << err;
}

TEST_F(LoopTest, AThrottledRowWithoutNvmlSaysNvmlCouldNotTell) {
  ops_->clock_mhz = 1500;
  ::testing::internal::CaptureStderr();
  Run("^LoopTest_Flush/");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("(sm_clock_throttled=1); NVML could not say why (not read (test backends))"),
            std::string::npos)
      << err;
}

// thermal=wait: before the timed iterations (and the clock probe) the loop reads NVML until the
// GPU is within the margin of the coolest temperature, every 0.25 s.
TEST_F(LoopTest, ThermalWaitWaitsForACoolGpuBeforeTheTimedIterations) {
  settings_.thermal = Thermal::kWait;
  settings_.thermal_margin_c = 5;
  thermal_reference_ = 35;
  thermal_owner_ = std::make_unique<FakeThermalMonitor>(
      &log_, std::vector<detail::ThermalSample>{Nvml(50, 90, 0), Nvml(38, 80, 0)});
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kThermalWaitTime).value, 0.25);
  EXPECT_EQ(runs[0].counters.at(counter::kGpuTempStartC).value, 38);
  const auto& events = log_.events;
  const auto probe_begin = std::find(events.begin(), events.end(), "probe_begin");
  // Two readings of the wait on the loop's thread, before the probe (the watch reads on its own).
  EXPECT_EQ(std::count(events.begin(), probe_begin, "thermal"), 2);
}

TEST_F(LoopTest, ThermalWaitWithoutNvmlSaysSoOnceAndDoesNotWait) {
  settings_.thermal = Thermal::kWait;
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_(Flush|Keep)/");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].counters.count(counter::kThermalWaitTime), 0u);
  const std::string said =
      "--gpubench_thermal=wait cannot read the GPU's temperature (not read (test backends)): "
      "the benchmarks run without waiting";
  ASSERT_NE(err.find(said), std::string::npos) << err;
  EXPECT_EQ(err.find(said, err.find(said) + 1), std::string::npos) << err;
}

// After the body, an abort elsewhere is not explained as one of the body's.
TEST(AbortNote, SaysNothingOnceTheBodyHasEnded) {
  EXPECT_DEATH(
      {
        detail::NoteUntimedBody("warm-up", "BM_X");
        detail::ClearUntimedBody();
        std::fputs("aborting\n", stderr);
        std::abort();
      },
      "^aborting\n$");
}

TEST(BusyMessage, NamesAtMostFourCallsAndOnlyBelowTheThreshold) {
  detail::BusyMeasure busy;
  busy.iterations = 3;
  busy.busy_seconds = 0.47e-3;
  busy.calls = {{"cudaMallocHost", 1, 2.1e-3},
                {"cudaMalloc", 1, 0.3e-3},
                {"cudaDeviceSynchronize", 1, 0.25e-3},
                {"cudaMemcpy", 2, 0.2e-3},
                {"cudaFree", 1, 0.1e-3}};
  const std::string message = detail::BusyMessage("BM_Sync/1024", 3.53e-3, busy);
  EXPECT_NE(message.find("BM_Sync/1024: GPU time 3.53 ms, GPU busy 0.47 ms (13%): per iteration "
                         "the loop calls cudaMallocHost (2.1 ms), cudaMalloc (0.3 ms), "
                         "cudaDeviceSynchronize (0.25 ms), cudaMemcpy 2x (0.2 ms), ...;"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("cudaFree"), std::string::npos);
  EXPECT_EQ(detail::BusyMessage("BM_Sync/1024", 0.5e-3, busy), "");  // 94%
  // Behind a launch hold the host's calls did not pace the GPU: the message says where the idle
  // time is instead of blaming them.
  busy.work_items = 3;
  const std::string held = detail::BusyMessage("BM_Sync/1024", 3.53e-3, busy, /*held=*/true);
  EXPECT_NE(held.find("(13%): the launches were held (launch_held=1), so the host did not pace "
                      "the GPU; the idle time (3.06 ms per iteration, beyond the timer's floor of "
                      "about 2 us around a launch) lies between the body's 3 GPU work items per "
                      "iteration"),
            std::string::npos)
      << held;
  // One held kernel of 3.1 us, 1.05 us busy (the H200's tiny kernel, gpu_busy_pct 34%): the
  // 2.1 us are the event pair's floor around the launch, no idle time to explain.
  detail::BusyMeasure tiny;
  tiny.iterations = 3;
  tiny.work_items = 1;
  tiny.busy_seconds = 1.05e-6;
  EXPECT_EQ(detail::BusyMessage("BM_Tiny", 3.1e-6, tiny, /*held=*/true), "");
  // Three held short kernels that idle 5.5 us between them are said.
  tiny.work_items = 3;
  tiny.busy_seconds = 10.9e-6;
  EXPECT_NE(detail::BusyMessage("BM_Three", 16.4e-6, tiny, /*held=*/true).find("5.5 us per "),
            std::string::npos);
  // One held work item that idles 9 us beyond the floor: said, but as the time around that
  // item (the timer's floor, its launch latency), never as gaps between work items.
  tiny.work_items = 1;
  tiny.busy_seconds = 20e-6;
  const std::string one = detail::BusyMessage("BM_One", 29e-6, tiny, /*held=*/true);
  EXPECT_NE(one.find("BM_One: GPU time 0.029 ms, GPU busy 0.02 ms (69%): the launches were held "
                     "(launch_held=1) and the body has one GPU work item per iteration "
                     "(gpu_work_items=1), so the idle time (9 us per iteration) is the time "
                     "around that item inside the timed span: the timer's own floor"),
            std::string::npos)
      << one;
  EXPECT_EQ(one.find("between the body's"), std::string::npos) << one;
  EXPECT_NE(one.find("--gpubench_timer=cupti"), std::string::npos) << one;
  // Not held, the host paced the GPU: said whatever the idle time.
  tiny.busy_seconds = 1.05e-6;
  EXPECT_NE(detail::BusyMessage("BM_Tiny", 3.1e-6, tiny, /*held=*/false), "");
  EXPECT_EQ(held.find("cudaMallocHost"), std::string::npos);
  EXPECT_EQ(detail::HostCallsText(busy),
            "cudaMallocHost:1:0.0021,cudaMalloc:1:0.0003,cudaDeviceSynchronize:1:0.00025,"
            "cudaMemcpy:2:0.0002,cudaFree:1:0.0001");
}

TEST(BusyContext, SaysHowBusyTimeIsMeasuredAndListsTheChildsHostCalls) {
  Settings settings;
  detail::ProfilingPass pass;
  detail::ProfilingPolicy policy;
  detail::ProfileLog log;
  const detail::RouteServices services{pass, policy, log, settings};
  const auto off = detail::MakeCounterRoute(detail::ProfilingRole::kNone, services)
                       ->BusyContext("off: --gpubench_metrics=off");
  ASSERT_EQ(off.size(), 2u);
  EXPECT_EQ(off[0].first, context_key::kGpuBusy);
  EXPECT_EQ(off[0].second.rfind("not measured", 0), 0u) << off[0].second;
  EXPECT_NE(off[0].second.find("--gpubench_metrics=off"), std::string::npos);

  const std::string path =
      ::testing::TempDir() + "/gpubench_child_context_" + std::to_string(::getpid()) + ".jsonl";
  std::ofstream(path) << kChildHeader << "\n" << ChildBusyLine("0.25e-3") << "\n";
  detail::ProfilingPass::Header header;
  ASSERT_TRUE(pass.BeginTiming(path, &header).ok());
  const detail::ProfilingRole role =
      detail::FinishProfilingRole(settings, /*has_profiler=*/false, pass.files());
  EXPECT_EQ(role, detail::ProfilingRole::kParent);
  const auto on = detail::MakeCounterRoute(role, services)->BusyContext(header.profiler_status);
  EXPECT_NE(on[0].second.find("in the profiling child"), std::string::npos) << on[0].second;
  EXPECT_EQ(on[1].first, context_key::kHostCalls);
  EXPECT_EQ(on[1].second,
            "LoopTest_ThreeRepetitions=cudaMallocHost:1:0.0021,cudaDeviceSynchronize:1:0.0009,"
            "cudaMemcpy:2:0.0002");
}

// The flops group's metrics, for the fake profiler: `ffma` FFMA instructions per range.
std::map<std::string, double> FlopsGroupMetrics(double ffma) {
  std::map<std::string, double> metrics;
  for (const auto& metric : detail::FindMetricGroup("flops")->metrics) metrics[metric] = 0;
  metrics["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] = ffma;
  metrics["sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"] = 16896;
  return metrics;
}

double Mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double StdDev(const std::vector<double>& values) {
  const double mean = Mean(values);
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

TEST_F(LoopTest, DeclaredBytesAndFlopsBecomePerIterationCountersAndRatios) {
  settings_.profile_iterations = 1;
  profiler_->extra = FlopsGroupMetrics(100);  // 200 FLOP in session 1, 400 in 2, 600 in 3
  auto runs = Run("^LoopTest_Declared/", true);
  ASSERT_GE(runs.size(), 3u);
  std::vector<double> ratios;
  for (const auto& run : runs) {
    if (run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) continue;
    EXPECT_EQ(detail::RunErrorMessage(run), "");
    const auto& counters = run.counters;
    EXPECT_DOUBLE_EQ(counters.at(counter::kDeclaredBytes).value, 1000.0);
    EXPECT_DOUBLE_EQ(counters.at(counter::kDeclaredFlop).value, 500.0);
    EXPECT_DOUBLE_EQ(counters.at(counter::kDramTrafficRatio).value,
                     counters.at(counter::kBytesMoved).value / 1000.0);
    EXPECT_DOUBLE_EQ(counters.at(counter::kFlopCountRatio).value,
                     counters.at(counter::kFlopCount).value / 500.0);
    // GB's own rates stay GB's: the totals over 4 ms of (fake) GPU time. The public inline
    // SetFlopsProcessed spells its counter (include/gpubench cannot include src/schema): found
    // here under the table's name.
    EXPECT_DOUBLE_EQ(counters.at(counter::kBytesPerSecond).value, 4000 / 4e-3);
    EXPECT_DOUBLE_EQ(counters.at(counter::kFlopsPerSecond).value, 2000 / 4e-3);
    ratios.push_back(counters.at(counter::kDramTrafficRatio).value);
  }
  // bytes_moved = 100 read + 50 x session written: 150, 200, 250 bytes against 1000 declared.
  EXPECT_EQ(ratios, (std::vector<double>{0.15, 0.2, 0.25}));
}

// GB computes each aggregate row (mean, median, stddev, cv) of a counter over the repetitions'
// values of that counter. So a derived counter's mean is the mean of the per-repetition ratios
// or rates, never a ratio of means: this is what the user guide says, checked for every counter
// gpubench derives.
TEST_F(LoopTest, AggregateRowsOfDerivedCountersAreGbsStatisticsOfTheRepetitionsValues) {
  settings_.profile_iterations = 1;
  profiler_->extra = FlopsGroupMetrics(100);
  auto runs = Run("^LoopTest_Declared/", true);
  std::map<std::string, std::vector<double>> per_repetition;
  std::map<std::string, const benchmark::BenchmarkReporter::Run*> aggregates;
  for (const auto& run : runs) {
    if (run.run_type == benchmark::BenchmarkReporter::Run::RT_Iteration) {
      for (const auto& [name, counter] : run.counters) per_repetition[name].push_back(counter);
    } else {
      aggregates[run.aggregate_name] = &run;
    }
  }
  ASSERT_EQ(per_repetition[counter::kDramTrafficRatio].size(), 3u);
  for (const char* stat : {"mean", "median", "stddev", "cv"}) {
    ASSERT_TRUE(aggregates.count(stat)) << stat;
  }
  for (const char* name :
       {counter::kDramTrafficRatio, counter::kDeclaredBytes, counter::kFlopCountRatio,
        counter::kFlopCountFp32, counter::kFlopRate, counter::kFlopRatePct,
        counter::kArithmeticIntensity, counter::kDramBandwidth}) {
    const std::vector<double>& values = per_repetition[name];
    ASSERT_EQ(values.size(), 3u) << name;
    EXPECT_NEAR(aggregates["mean"]->counters.at(name).value, Mean(values), 1e-12 * Mean(values))
        << name;
    EXPECT_DOUBLE_EQ(aggregates["median"]->counters.at(name).value, Median(values)) << name;
    EXPECT_NEAR(aggregates["stddev"]->counters.at(name).value, StdDev(values), 1e-9 * Mean(values))
        << name;
    const double cv = Mean(values) != 0 ? StdDev(values) / Mean(values) : 0;
    EXPECT_NEAR(aggregates["cv"]->counters.at(name).value, cv, 1e-9) << name;
  }
  // The mean row's ratio is the mean of 0.15, 0.2 and 0.25.
  EXPECT_NEAR(aggregates["mean"]->counters.at(counter::kDramTrafficRatio).value, 0.2, 1e-15);
}

TEST(OwnMinTime, IsReadFromGbsBenchmarkObject) {
  ASSERT_NE(own_min_time_registration, nullptr);
  EXPECT_EQ(detail::OwnMinTimeSeconds(*own_min_time_registration), 0.25);
  ASSERT_NE(lambda_registration, nullptr);
  EXPECT_EQ(detail::OwnMinTimeSeconds(*lambda_registration), 0.0);
}

// ->MinTime(0.05) with GB's default --benchmark_min_time (0.5 s): GB reports the call that
// reaches 50 ms, and gpubench, which reads the benchmark's own min_time, profiles that call.
TEST_F(LoopTest, ABenchmarksOwnMinTimeDecidesWhichCallsAreTrials) {
  settings_.profile_iterations = 1;
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_OwnMinTime/", true);
  const std::string said = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_GE(runs[0].real_accumulated_time, 0.05);
  ASSERT_LT(runs[0].real_accumulated_time, detail::kDefaultMinTimeSeconds);
  EXPECT_GE(log_.Count("prepare"), 3);  // 1, 10, then enough for 50 ms
  // Profiled: the first call and the reported one, whose counters are its own session's.
  EXPECT_EQ(profiler_->sessions, 2);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kDramWriteBytes).value, 100.0);
  EXPECT_EQ(said.find("GB reported the call"), std::string::npos) << said;
  EXPECT_EQ(detail::ProcessState::Get().policy.trials().Finish(), "");
}

// The name GB gives the instance (State::name() from GB 1.8 sees ->Name(); GB 1.7 does not tell
// it, and the registered name stays) is the one of the NVTX ranges, the profiled ranges, the
// --gpubench_profile_out records and the trial detector, which copies a trial's counters only
// from a profiled call of the same name.
TEST_F(LoopTest, RangesProfileRecordsAndTrialsUseGbsName) {
  const std::string name = kGbHasStateName ? "LoopTest_RenamedLater/3" : "LoopTest_Renamed/3";
  const std::string other = kGbHasStateName ? "LoopTest_Renamed/3" : "LoopTest_RenamedLater/3";
  const std::string path = ::testing::TempDir() + "gpubench_renamed_profile.jsonl";
  std::remove(path.c_str());
  profile_out_ = path;
  settings_.profile_iterations = 1;
  auto runs = Run("^LoopTest_RenamedLater/", true);
  detail::ProcessState::Get().profile_log.Close();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].benchmark_name(), "LoopTest_RenamedLater/3/manual_time");
  EXPECT_EQ(log_.Count("push " + name), log_.Count("timer_begin"));
  EXPECT_EQ(log_.Count("push " + other), 0);
  EXPECT_EQ(log_.Count("range " + name + "/profiled:0"), 2 * profiler_->passes);
  // GB's search made at least 3 calls; the trials between the first and the reported call took
  // the counters of the first, found under the same name.
  EXPECT_GE(log_.Count("prepare"), 3);
  EXPECT_EQ(profiler_->sessions, 2);
  EXPECT_EQ(detail::ProcessState::Get().policy.trials().Finish(), "");
  std::ifstream in(path);
  std::vector<nlohmann::json> records;
  for (std::string line; std::getline(in, line);) records.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["benchmark"], name);
  EXPECT_EQ(records[0]["iterations"], 1);
  EXPECT_EQ(records[1]["benchmark"], name);
  EXPECT_EQ(records[1]["iterations"], runs[0].iterations);  // the reported call
}

// One device's run of --gpubench_devices: the NVTX ranges, the CUPTI ranges and the profile log
// carry the device, so ncu filters and the log tell the devices apart.
TEST_F(LoopTest, OneDeviceOfSeveralNamesItsRangesAfterTheDevice) {
  const std::string path = ::testing::TempDir() + "gpubench_device_profile.jsonl";
  std::remove(path.c_str());
  profile_out_ = path;
  tagged_device_ = 3;
  settings_.profile_iterations = 1;
  auto runs = Run("^LoopTest_Flush/", /*with_profiler=*/true);
  detail::ProcessState::Get().profile_log.Close();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(log_.Count("push LoopTest_Flush/gpu:3"), 3);
  EXPECT_EQ(log_.Count("push LoopTest_Flush"), 0);
  EXPECT_EQ(log_.Count("range LoopTest_Flush/gpu:3/profiled:0"), profiler_->passes);
  std::ifstream in(path);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(nlohmann::json::parse(line)["benchmark"], "LoopTest_Flush/gpu:3");
  std::remove(path.c_str());
}

TEST_F(LoopTest, ProfileFailureKeepsTheTimingAndDropsOnlyTheMetrics) {
  settings_.profile_iterations = 2;
  profiler_->fail_pass = 1;
  auto runs = Run("^LoopTest_Flush/", true);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_DOUBLE_EQ(runs[0].real_accumulated_time, 3e-3);
  EXPECT_EQ(runs[0].counters.count(counter::kDramReadBytes), 0u);
  EXPECT_EQ(runs[0].counters.count(counter::kSmClockMhz), 1u);
  EXPECT_EQ(log_.Count("abort"), 1);
}

// --gpubench_profile_out: one JSON line per profiling session with every range's values.
TEST_F(LoopTest, ProfileOutRecordsEveryRangeAndErrors) {
  const std::string path = ::testing::TempDir() + "gpubench_profile_out_test.jsonl";
  std::remove(path.c_str());
  profile_out_ = path;
  settings_.profile_iterations = 3;
  auto runs = Run("^LoopTest_Flush/", true);
  ASSERT_EQ(runs.size(), 1u);
  detail::ProcessState::Get().profile_log.Close();
  std::ifstream file(path);
  std::string line;
  std::vector<nlohmann::json> records;
  while (std::getline(file, line)) records.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(records.size(), 1u);
  const nlohmann::json& record = records[0];
  EXPECT_EQ(record.at("benchmark"), "LoopTest_Flush");
  EXPECT_EQ(record.at("iterations"), 3);  // of the GB call, as in GB's output
  EXPECT_EQ(record.at("passes"), 2);
  EXPECT_GE(record.at("seconds").get<double>(), 0.0);
  EXPECT_FALSE(record.contains("error"));
  ASSERT_EQ(record.at("ranges").size(), 3u);  // one entry per profiled iteration, not a mean
  EXPECT_EQ(record.at("ranges")[0].at("dram__bytes_read.sum"), 100.0);
  EXPECT_EQ(record.at("ranges")[1].at("dram__bytes_read.sum"), 200.0);
  EXPECT_EQ(record.at("ranges")[2].at("dram__bytes_read.sum"), 300.0);
  std::remove(path.c_str());
}

TEST_F(LoopTest, ProfileOutRecordsTheErrorOfAFailedSession) {
  const std::string path = ::testing::TempDir() + "gpubench_profile_out_error.jsonl";
  std::remove(path.c_str());
  profile_out_ = path;
  settings_.profile_iterations = 2;
  profiler_->fail_pass = 1;
  Run("^LoopTest_Flush/", true);
  detail::ProcessState::Get().profile_log.Close();
  std::ifstream file(path);
  std::string line;
  ASSERT_TRUE(std::getline(file, line));
  const nlohmann::json record = nlohmann::json::parse(line);
  EXPECT_EQ(record.at("benchmark"), "LoopTest_Flush");
  EXPECT_TRUE(record.at("ranges").empty());
  EXPECT_FALSE(record.at("error").get<std::string>().empty());
  std::remove(path.c_str());
}

TEST(ProfileOut, UnwritablePathSaysWhatToGive) {
  detail::ProfileLog log;
  const detail::Status status = log.Open("/nonexistent-dir/x/profile.jsonl");
  EXPECT_EQ(status.code(), detail::Status::Code::kInvalidInput);
  const std::string error = status.message();
  EXPECT_NE(
      error.find("cannot open --gpubench_profile_out file '/nonexistent-dir/x/profile.jsonl'"),
      std::string::npos)
      << error;
  EXPECT_NE(error.find("give a writable file path"), std::string::npos) << error;
  EXPECT_TRUE(log.Open("").ok());
}

// ---- another process on the GPU (NVML) ----

TEST_F(LoopTest, AloneOnTheGpuTheRunIsMarkedNotShared) {
  sharing_owner_ = std::make_unique<FakeSharingMonitor>(
      std::vector<detail::SharingSample>{Processes({kThisProcess})});
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Flush/");
  const std::string warning = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].counters.at(counter::kGpuShared).value, 0.0);
  EXPECT_EQ(warning.find("GPU is shared"), std::string::npos) << warning;
  EXPECT_EQ(sharing_->calls, 2);  // before and after the timed iterations
}

TEST_F(LoopTest, AnotherProcessMarksTheRunSharedAndWarnsOnce) {
  // Seen only after the timed iterations: the other job started during them.
  sharing_owner_ = std::make_unique<FakeSharingMonitor>(std::vector<detail::SharingSample>{
      Processes({kThisProcess}), Processes({kThisProcess, kOtherJob})});
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_(Flush|Keep)/");
  const std::string warning = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].counters.at(counter::kGpuShared).value, 1.0);
  EXPECT_EQ(runs[1].counters.at(counter::kGpuShared).value, 1.0);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");  // warn: the run is kept
  EXPECT_NE(warning.find("gpubench: the GPU is shared: pid 4242 (python3, 3 GB)"),
            std::string::npos)
      << warning;
  EXPECT_EQ(warning.find("GPU is shared", warning.find("GPU is shared") + 1), std::string::npos)
      << "warned more than once: " << warning;
}

TEST_F(LoopTest, WithoutNvmlNothingIsClaimed) {
  detail::SharingSample unknown;
  unknown.unknown_reason = "libnvidia-ml.so.1 (the driver's NVML) not found";
  sharing_owner_ =
      std::make_unique<FakeSharingMonitor>(std::vector<detail::SharingSample>{unknown});
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].counters.count(counter::kGpuShared), 0u);
}

TEST_F(LoopTest, ExclusiveFailSkipsASharedGpuWithTheReason) {
  settings_.exclusive = Exclusive::kFail;
  sharing_owner_ = std::make_unique<FakeSharingMonitor>(
      std::vector<detail::SharingSample>{Processes({kOtherJob, kThisProcess})});
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]),
            "gpubench: the GPU is used by another process: pid 4242 (python3, 3 GB) "
            "(--gpubench_exclusive=fail; use warn to run anyway)");
  EXPECT_EQ(log_.Count("body"), 0);
}

TEST_F(LoopTest, ExclusiveWaitRunsOnceTheGpuIsFree) {
  settings_.exclusive = Exclusive::kWait;
  sharing_owner_ = std::make_unique<FakeSharingMonitor>(std::vector<detail::SharingSample>{
      Processes({kThisProcess, kOtherJob}), Processes({kThisProcess, kOtherJob}),
      Processes({kThisProcess})});
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Flush/");
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(runs[0].counters.at(counter::kGpuShared).value, 0.0);  // it ran alone
  EXPECT_NE(messages.find("LoopTest_Flush: waiting for the GPU, used by pid 4242 (python3, 3 GB)"),
            std::string::npos)
      << messages;
}

TEST_F(LoopTest, AProfilerHeldByAnotherProcessMarksTheRunShared) {
  sharing_owner_ = std::make_unique<FakeSharingMonitor>(
      std::vector<detail::SharingSample>{Processes({kThisProcess})});
  auto& process = detail::ProcessState::Get();
  process.ResetForTesting();
  auto& harness = process.harness;
  harness.Configure(settings_, facts_);
  harness.SetSharingMonitorForTesting(std::move(sharing_owner_));
  harness.SetBackendsForTesting(std::move(ops_owner_), std::move(timer_owner_), nullptr);
  harness.SetProfiler(
      nullptr, "unavailable: cuptiProfilerGetCounterAvailability: CUPTI_ERROR_HARDWARE_BUSY");
  ::testing::internal::CaptureStderr();
  CaptureReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, "^LoopTest_Flush/");
  const std::string warning = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(reporter.runs.size(), 1u);
  EXPECT_EQ(reporter.runs[0].counters.at(counter::kGpuShared).value, 1.0);
  EXPECT_NE(warning.find("another process profiles this GPU"), std::string::npos) << warning;
}

TEST_F(LoopTest, ARepetitionFarSlowerThanTheEarlierOnesIsMarkedShared) {
  // No NVML: the measurement's own sign. The third repetition takes 2.5x as long.
  detail::SharingSample unknown;
  unknown.unknown_reason = "libnvidia-ml.so.1 (the driver's NVML) not found";
  sharing_owner_ =
      std::make_unique<FakeSharingMonitor>(std::vector<detail::SharingSample>{unknown});
  timer_->slow_from_run = 3;
  timer_->slow_factor = 2.5;
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_ThreeRepetitions/");
  const std::string warning = ::testing::internal::GetCapturedStderr();
  std::vector<double> shared;
  for (const auto& run : runs) {
    if (run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) continue;
    auto flag = run.counters.find(counter::kGpuShared);
    shared.push_back(flag == run.counters.end() ? -1 : flag->second.value);
  }
  EXPECT_EQ(shared, (std::vector<double>{-1, -1, 1}));  // unknown, unknown, slow
  EXPECT_NE(warning.find("GPU time 2.50x the fastest earlier repetition of this instance"),
            std::string::npos)
      << warning;
}

TEST_F(LoopTest, RepetitionsOfTheUsualSpreadAreNotMarked) {
  sharing_owner_ = std::make_unique<FakeSharingMonitor>(
      std::vector<detail::SharingSample>{Processes({kThisProcess})});
  timer_->slow_from_run = 2;
  timer_->slow_factor = 1.2;  // a launch-bound kernel's repetitions differ by ~1.15x
  auto runs = Run("^LoopTest_ThreeRepetitions/");
  for (const auto& run : runs) {
    if (run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) continue;
    EXPECT_EQ(run.counters.at(counter::kGpuShared).value, 0.0);
  }
}

// ---- holds on a shared GPU ----

// Another process at the start: every iteration would wait for its time slice twice, so the
// call is timed without holds (and without the hold check), flagged both ways.
TEST_F(LoopTest, AnotherProcessAtTheStartIsTimedWithoutHolds) {
  sharing_owner_ = std::make_unique<FakeSharingMonitor>(
      std::vector<detail::SharingSample>{Processes({kThisProcess, kOtherJob})});
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Flush/");
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  const auto expected = Join({
      {"prepare", "flush", "body", "sync", "probe_begin"},
      Repeat({"flush", "push LoopTest_Flush", "timer_begin", "body", "timer_end", "pop"}, 3),
      {"probe_end", "after loop"},
  });
  EXPECT_EQ(log_.events, expected);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kLaunchHeld).value, 0.0);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kGpuShared).value, 1.0);
  EXPECT_NE(messages.find("another process uses the GPU, so the timed iterations run without "
                          "stream holds (launch_held=0)"),
            std::string::npos)
      << messages;
  EXPECT_EQ(messages.find("the loop body waits for the GPU"), std::string::npos) << messages;
}

// A process that arrives while the iterations are held ends the holds at the next look (every
// 0.1 s): the rest of the call runs without them and the row is flagged.
TEST_F(LoopTest, AProcessArrivingDuringHeldIterationsEndsTheHolds) {
  sharing_owner_ = std::make_unique<FakeSharingMonitor>(std::vector<detail::SharingSample>{
      Processes({kThisProcess}), Processes({kThisProcess, kOtherJob})});
  facts_.l2_bytes = int64_t{1} << 30;  // a flush of ~8 ms: the fake's 5 ms waits are not slow
  ops_->sync_seconds = 5e-3;           // 12 iterations of two waits: 0.12 s
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Held/");
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].iterations, 12);
  const int timed_holds = log_.Count("hold") - 1;  // less the hold check's
  EXPECT_GE(timed_holds, 1);
  EXPECT_LT(timed_holds, 12) << "holding went on after the other process was seen";
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kLaunchHeld).value, 0.0);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kGpuShared).value, 1.0);
  EXPECT_NE(messages.find("pid 4242 (python3, 3 GB)"), std::string::npos) << messages;
}

// Without NVML, flushes that take far longer than they need give the neighbour away.
TEST_F(LoopTest, SlowFlushesEndTheHoldsWithoutNvml) {
  detail::SharingSample unknown;
  unknown.unknown_reason = "libnvidia-ml.so.1 (the driver's NVML) not found";
  sharing_owner_ =
      std::make_unique<FakeSharingMonitor>(std::vector<detail::SharingSample>{unknown});
  ops_->sync_seconds = 2e-3;  // the fake device's flush needs 33 us; over 0.63 ms is slow
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Held/");
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(log_.Count("hold") - 1, detail::kSlowFlushWaitsInWindow);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kLaunchHeld).value, 0.0);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kGpuShared).value, 1.0);
  EXPECT_NE(messages.find("8 of the last 8 L2 flushes took over 0.63 ms to finish"),
            std::string::npos)
      << messages;
}

// A neighbour that has left does not mark the next call, which is held again.
TEST_F(LoopTest, AfterTheNeighbourLeftTheNextCallIsHeldAndClean) {
  sharing_owner_ = std::make_unique<FakeSharingMonitor>(std::vector<detail::SharingSample>{
      Processes({kThisProcess, kOtherJob}), Processes({kThisProcess, kOtherJob}),
      Processes({kThisProcess})});
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_(Flush|Held)/");
  ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].benchmark_name(), "LoopTest_Flush/iterations:3/manual_time");
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kLaunchHeld).value, 0.0);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kGpuShared).value, 1.0);
  EXPECT_DOUBLE_EQ(runs[1].counters.at(counter::kLaunchHeld).value, 1.0);
  EXPECT_DOUBLE_EQ(runs[1].counters.at(counter::kGpuShared).value, 0.0);
}

TEST(HeldIterationWatch, LooksForOtherProcessesEveryTenthOfASecond) {
  FakeSharingMonitor monitor(std::vector<detail::SharingSample>{
      Processes({kThisProcess}), Processes({kThisProcess, kOtherJob})});
  detail::HeldIterationWatch watch(monitor, 30e-6, 100.0);
  EXPECT_EQ(watch.AfterHeldIteration(40e-6, 100.05), "");
  EXPECT_EQ(monitor.calls, 0);
  EXPECT_EQ(watch.AfterHeldIteration(40e-6, 100.1), "");  // alone at the first look
  EXPECT_EQ(watch.AfterHeldIteration(40e-6, 100.15), "");
  EXPECT_EQ(monitor.calls, 1);
  EXPECT_EQ(watch.AfterHeldIteration(40e-6, 100.2), "pid 4242 (python3, 3 GB)");
  EXPECT_EQ(monitor.calls, 2);
}

TEST(HeldIterationWatch, HalfOfTheLastSixteenFlushesSlowIsANeighbour) {
  FakeSharingMonitor monitor(std::vector<detail::SharingSample>{});
  detail::HeldIterationWatch watch(monitor, 25e-6, 0.0);
  EXPECT_NEAR(watch.slow_flush_seconds(), 0.6e-3, 1e-12);
  // Slow waits spread thinly never add up: one in three stays below half of sixteen.
  for (int i = 0; i < 60; ++i) {
    EXPECT_EQ(watch.AfterHeldIteration(i % 3 == 0 ? 5e-3 : 30e-6, 0.0), "") << i;
  }
  detail::HeldIterationWatch fresh(monitor, 25e-6, 0.0);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(fresh.AfterHeldIteration(2e-3, 0.0), "");
  const std::string why = fresh.AfterHeldIteration(2e-3, 0.0);
  EXPECT_NE(why.find("8 of the last 8 L2 flushes took over 0.6 ms to finish (median 2 ms"),
            std::string::npos)
      << why;
}

TEST(GpuSharing, OtherProcessesLeaveThisOneOut) {
  const unsigned me = static_cast<unsigned>(::getpid());
  auto names = [](const std::vector<detail::GpuProcess>& processes) {
    std::string out;
    for (const auto& p : processes) out += std::to_string(p.pid) + " ";
    return out;
  };
  detail::SharingSample sample = Processes({{me, 1, "tests"}, {7, 2, "python3"}});
  EXPECT_EQ(names(detail::OtherProcesses(sample, {me})), "7 ");
  // Another PID namespace: this PID is not listed; the executable's name, else an unnamed one.
  sample = Processes({{7, 2, "python3"}, {900001, 1, ""}});
  EXPECT_EQ(names(detail::OtherProcesses(sample, {me})), "7 ");
  sample = Processes({{7, 2, "python3"}, {8, 2, "java"}});
  EXPECT_EQ(names(detail::OtherProcesses(sample, {me})), "7 8 ");  // all named, none is this
  // The profiling child leaves out its parent too: by PID, or in a container by the name they
  // share, once each.
  const unsigned parent = 4242;
  sample = Processes({{me, 1, "tests"}, {parent, 1, "tests"}, {7, 2, "python3"}});
  EXPECT_EQ(names(detail::OtherProcesses(sample, {me, parent})), "7 ");
  EXPECT_EQ(names(detail::OtherProcesses(sample, {me})), "4242 7 ");
  sample = Processes({{900001, 1, ""}, {900002, 1, ""}, {7, 2, "python3"}});
  EXPECT_EQ(names(detail::OtherProcesses(sample, {me, parent})), "7 ");
  EXPECT_EQ(names(detail::OtherProcesses(sample, {me})), "900002 7 ");
  EXPECT_EQ(detail::DescribeProcesses({{7, 2150000000ull, "python3"}, {8, 0, ""}}),
            "pid 7 (python3, 2.15 GB), pid 8 (name not visible)");
}

TEST_F(LoopTest, ProfilerThatCannotStartKeepsTheTiming) {
  settings_.profile_iterations = 2;
  profiler_->begin_result = Status::Error("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  auto runs = Run("^LoopTest_Flush/", true);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(runs[0].counters.count(counter::kDramReadBytes), 0u);
  EXPECT_EQ(log_.Count("body"), 5);  // warm-up + hold check + 3 timed, no profiled ones
}

TEST_F(LoopTest, LaunchErrorInTheBodySkipsWithTheCudaError) {
  ops_->fail_check_at = 2;  // the first timed iteration (the warm-up is check 1)
  ops_->check_failure = Status::Error("kernel launch: cudaErrorInvalidConfiguration (bad)");
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]),
            "gpubench: CUDA error in the benchmark body of LoopTest_Flush: kernel launch: "
            "cudaErrorInvalidConfiguration (bad)");
  EXPECT_EQ(log_.events.back(), "after loop");  // code after the loop still runs
  EXPECT_EQ(log_.Count("push LoopTest_Flush"), log_.Count("pop"));
  EXPECT_TRUE(detail::ProcessState::Get().context_lost_reason.empty());
}

TEST_F(LoopTest, StickyErrorSkipsEveryLaterBenchmark) {
  ops_->fail_check_at = 1;
  ops_->check_failure = Status::ContextLost("kernel launch: cudaErrorIllegalAddress (x)");
  auto runs = Run("^LoopTest_(Flush|Keep)/");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(detail::RunErrorMessage(runs[0]).find("cudaErrorIllegalAddress"), std::string::npos);
  const std::string later = detail::RunErrorMessage(runs[1]);
  EXPECT_NE(later.find("the CUDA context was lost earlier"), std::string::npos) << later;
  EXPECT_NE(later.find("LoopTest_Flush"), std::string::npos) << later;
  EXPECT_EQ(log_.Count("prepare"), 1);  // the second benchmark did no GPU work
}

TEST_F(LoopTest, SeveralThreadsAreRejected) {
  auto runs = Run("^LoopTest_Threads/");
  ASSERT_FALSE(runs.empty());
  EXPECT_NE(detail::RunErrorMessage(runs[0]).find("->Threads(2) is not supported"),
            std::string::npos)
      << detail::RunErrorMessage(runs[0]);
  EXPECT_EQ(log_.Count("body"), 0);
}

TEST_F(LoopTest, UninitializedGpubenchIsRejected) {
  detail::ProcessState::Get().ResetForTesting();
  CaptureReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, "^LoopTest_Keep/");
  ASSERT_EQ(reporter.runs.size(), 1u);
  EXPECT_NE(detail::RunErrorMessage(reporter.runs[0]).find("GPUBENCH_MAIN()"), std::string::npos);
}

// Without a usable device a gpubench form does not call the function at all (its set-up could
// abort the process); a function registered with GB's own macro runs, and its loop says why it
// cannot time.
TEST_F(LoopTest, NoDeviceSkipsWithTheReason) {
  facts_.available = false;
  facts_.unavailable_reason = "cudaGetDeviceCount: cudaErrorNoDevice (no CUDA-capable device)";
  auto runs = Run("^LoopTest_Flush/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]),
            "gpubench: no usable CUDA device (cudaGetDeviceCount: cudaErrorNoDevice (no "
            "CUDA-capable device)): the benchmark's set-up and body were not run");
  EXPECT_EQ(log_.Count("body"), 0);
  EXPECT_EQ(log_.Count("after loop"), 0);

  runs = Run("^PlainGb_LoopWithoutDevice/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(log_.Count("plain set-up"), 1);
  EXPECT_EQ(log_.Count("body"), 0);
  const std::string message = detail::RunErrorMessage(runs[0]);
  EXPECT_TRUE(message.find("no usable CUDA device: cudaGetDeviceCount") != std::string::npos ||
              message.find("not registered through gpubench") != std::string::npos)
      << message;
}

TEST_F(LoopTest, FixtureSharesTheLoopAndNamesItsRanges) {
  auto runs = Run("^LoopFixture/Case/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(log_.Count("push LoopFixture/Case/5"), 2);
  EXPECT_DOUBLE_EQ(runs[0].real_accumulated_time, 2e-3);  // manual time
}

TEST_F(LoopTest, AFixturesDeclaredBytesAreComparedWithTheMeasuredOnes) {
  settings_.profile_iterations = 2;
  auto runs = Run("^LoopFixture/Declared", true);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kDeclaredBytes).value, 250.0);
  // bytes_moved: reads 100 and 200 (mean 150) + 50 written = 200 bytes against 250 declared.
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kDramTrafficRatio).value, 0.8);
}

TEST_F(LoopTest, ASkippedCallGetsNoDeclaredCounters) {
  facts_.available = false;
  facts_.unavailable_reason = "no device";
  auto runs = Run("^LoopTest_DeclaredSkipped/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_NE(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(runs[0].counters.count(counter::kDeclaredBytes), 0u);
}

TEST_F(LoopTest, LambdaRegistrationWorks) {
  ASSERT_NE(lambda_registration, nullptr);
  auto runs = Run("^LoopTest_Lambda/");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(detail::RunErrorMessage(runs[0]), "");
  EXPECT_EQ(log_.Count("push LoopTest_Lambda"), 1);
}

// --- Reuse on the profiling child's signature (issue #65) --------------------------------------

constexpr uint64_t kReusableSignature = 0x5eed5eed5eedULL;

// --gpubench_reuse with a source whose LoopTest_Reusable row every check passes, signed
// `signature`: held, measured a minute ago, 4 us per iteration, 1000 bytes declared.
detail::ReuseState ReusableSource(uint64_t signature) {
  detail::ReuseState reuse;
  reuse.signing = true;
  reuse.on = true;
  reuse.run_lines = {"settings fake", "gpu GPU-fake", "driver 1", "method 1"};
  detail::ReuseSource source;
  source.path = "prev.json";
  source.date = "2026-12-07T06:00:00+00:00";
  source.date_unix = detail::UnixSeconds() - 60;
  detail::SourceRow row;
  row.name = "LoopTest_Reusable/iterations:2/manual_time";
  row.iterations = 2;
  row.real_time_seconds = 4e-6;
  row.counters = {{counter::kWorkSignature, static_cast<double>(signature)},
                  {"launch_held", 1},
                  {counter::kMeasuredAt, source.date_unix},
                  {counter::kBytesPerSecond, 2.5e8},
                  {counter::kDeclaredBytes, 1000},
                  {counter::kDramReadBytes, 777}};
  source.rows[{"LoopTest_Reusable", 0}] = row;
  reuse.source = source;
  return reuse;
}

// The child's file after it reused LoopTest_Reusable on `signature`, its call taking 0.5 s.
std::string ChildReusedLine(uint64_t signature) {
  return std::string(kChildHeader) + "\n" + R"j({"reused":"LoopTest_Reusable","signature":)j" +
         std::to_string(signature) + R"j(,"wall_seconds":0.5})j" + "\n";
}

// The parent reuses an instance the child signed and reused, without its set-up or body: the
// row carries the source's time and counters (GB's byte rate too, which the function that did
// not run would have declared), and the child's call as its profiling wall.
TEST_F(LoopTest, ParentReusesWhatTheChildSignedWithoutRunningTheFunction) {
  settings_.profile_iterations = 3;
  reuse_ = ReusableSource(kReusableSignature);
  parent_of_ = ChildReusedLine(kReusableSignature);
  g_reusable_setups = 0;
  auto runs = Run("^LoopTest_Reusable/", /*with_profiler=*/false);
  ASSERT_EQ(runs.size(), 1u);
  const auto& run = runs[0];
  EXPECT_EQ(detail::RunErrorMessage(run), "");
  EXPECT_EQ(g_reusable_setups, 0);
  EXPECT_EQ(log_.Count("body"), 0);
  EXPECT_EQ(log_.Count("timer_begin"), 0);
  EXPECT_EQ(run.iterations, 2);
  EXPECT_NEAR(run.real_accumulated_time / static_cast<double>(run.iterations), 4e-6, 1e-12);
  EXPECT_DOUBLE_EQ(run.counters.at(counter::kReuseStatus).value, 1.0);
  EXPECT_DOUBLE_EQ(run.counters.at(counter::kReusedRuns).value, 1.0);
  EXPECT_DOUBLE_EQ(run.counters.at(counter::kWorkSignature).value,
                   static_cast<double>(kReusableSignature));
  EXPECT_DOUBLE_EQ(run.counters.at(counter::kWallProfiling).value, 0.5);
  EXPECT_GE(run.counters.at(counter::kWallTime).value, 0.5);
  EXPECT_DOUBLE_EQ(run.counters.at(counter::kBytesPerSecond).value, 2.5e8);
  EXPECT_DOUBLE_EQ(run.counters.at(counter::kDeclaredBytes).value, 1000);
  EXPECT_DOUBLE_EQ(run.counters.at(counter::kDramReadBytes).value, 777);
}

// A child's line that this process does not reuse on (here the parent's source holds another
// signature) leaves the call to run and sign its own work: a line never reuses a row on its own.
TEST_F(LoopTest, ParentRunsACallWhoseChildSignatureItDoesNotReuse) {
  settings_.profile_iterations = 3;
  reuse_ = ReusableSource(kReusableSignature + 1);
  parent_of_ = ChildReusedLine(kReusableSignature);
  g_reusable_setups = 0;
  auto runs = Run("^LoopTest_Reusable/", /*with_profiler=*/false);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(g_reusable_setups, 1);
  EXPECT_GT(log_.Count("body"), 0);
  EXPECT_GT(log_.Count("timer_begin"), 0);
  // Unrecorded here (the test's backends): the call is measured, never reused.
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kReuseStatus).value, 7.0);
}

// The child signs the call (set-up and warm-up body), finds it equal to the source row, hands
// the signature to the parent in its file and profiles nothing.
TEST_F(LoopTest, ProfilingChildHandsAReusedCallsSignatureToTheParent) {
  settings_.profile_iterations = 3;
  work_owner_ = std::make_unique<FakeWorkRecorder>(&log_);
  detail::ReuseState probe = ReusableSource(0);
  std::vector<std::string> lines = probe.run_lines;
  lines.insert(lines.end(), work_owner_->record.items.begin(), work_owner_->record.items.end());
  const uint64_t signature = detail::SignatureOf(lines);
  reuse_ = ReusableSource(signature);
  child_file_ =
      ::testing::TempDir() + "/gpubench_child_reused_" + std::to_string(::getpid()) + ".jsonl";
  std::remove(child_file_.c_str());
  g_reusable_setups = 0;
  Run("^LoopTest_Reusable/", /*with_profiler=*/true);
  EXPECT_EQ(g_reusable_setups, 1);
  EXPECT_EQ(log_.Count("body"), 1);  // the warm-up body, signed
  EXPECT_EQ(profiler_->sessions, 0);
  std::ifstream in(child_file_);
  std::string text, line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) text += line + "\n";
  const nlohmann::json reused = nlohmann::json::parse(text);
  EXPECT_EQ(reused.at("reused"), "LoopTest_Reusable");
  EXPECT_EQ(reused.at("signature").get<uint64_t>(), signature);
  EXPECT_GT(reused.at("wall_seconds").get<double>(), 0.0);
  std::remove(child_file_.c_str());
}

// The parent signs its own call of an instance the child profiled and compares: work that differs
// between the two processes of one run (padding bytes in an argument, a host address) would read
// as changed in every later run, so the call is unsigned, and said so.
uint64_t FakeWorkSignature(const FakeWorkRecorder& recorder) {
  std::vector<std::string> lines = ReusableSource(0).run_lines;
  lines.insert(lines.end(), recorder.record.items.begin(), recorder.record.items.end());
  return detail::SignatureOf(lines);
}

std::string ChildProfiledLine(uint64_t signature) {
  return std::string(kChildHeader) + "\n" +
         R"j({"instance":"LoopTest_Reusable","profiled":true,"passes":1,"seconds":0.01,)j"
         R"j("counters":{"dram_read_bytes":4096},"signature":)j" +
         std::to_string(signature) + "}\n";
}

TEST_F(LoopTest, ParentLeavesUnsignedAWorkTheChildSignedOtherwise) {
  settings_.profile_iterations = 3;
  work_owner_ = std::make_unique<FakeWorkRecorder>(&log_);
  const uint64_t own = FakeWorkSignature(*work_owner_);
  reuse_ = ReusableSource(own);  // the source matches this process's work
  parent_of_ = ChildProfiledLine(own + 1);
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Reusable/", /*with_profiler=*/false);
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_GT(log_.Count("timer_begin"), 0);                                  // measured
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kReuseStatus).value, 7.0);  // unsigned
  EXPECT_NE(messages.find("differs from process to process"), std::string::npos) << messages;
}

TEST_F(LoopTest, ParentSignsAWorkTheChildSignedAlike) {
  settings_.profile_iterations = 3;
  work_owner_ = std::make_unique<FakeWorkRecorder>(&log_);
  const uint64_t own = FakeWorkSignature(*work_owner_);
  reuse_ = ReusableSource(own + 2);  // changed: measured, but signed
  parent_of_ = ChildProfiledLine(own);
  auto runs = Run("^LoopTest_Reusable/", /*with_profiler=*/false);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kReuseStatus).value, 3.0);  // changed
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kWorkSignature).value, static_cast<double>(own));
}

// --gpubench_signature=on (the default) without --gpubench_reuse: the row carries its signature
// for a later run's reuse and nothing else of reuse; work not signed whole carries none.
detail::ReuseState SigningOnly() {
  detail::ReuseState signing = ReusableSource(0);
  signing.on = false;
  signing.source.reset();
  return signing;
}

TEST_F(LoopTest, ASigningRunWritesTheSignatureAndNoReuseCounters) {
  settings_.profile_iterations = 0;
  work_owner_ = std::make_unique<FakeWorkRecorder>(&log_);
  const uint64_t own = FakeWorkSignature(*work_owner_);
  reuse_ = SigningOnly();
  ::testing::internal::CaptureStderr();
  auto runs = Run("^LoopTest_Reusable/", /*with_profiler=*/false);
  const std::string messages = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(log_.Count("work_begin"), 1);
  ASSERT_EQ(runs[0].counters.count(counter::kWorkSignature), 1u);
  EXPECT_DOUBLE_EQ(runs[0].counters.at(counter::kWorkSignature).value, static_cast<double>(own));
  EXPECT_EQ(runs[0].counters.count(counter::kReuseStatus), 0u);
  EXPECT_EQ(runs[0].counters.count(counter::kReusedRuns), 0u);
  EXPECT_EQ(runs[0].counters.count(counter::kMeasuredAt), 0u);
  EXPECT_EQ(messages.find("reuse"), std::string::npos) << messages;
}

TEST_F(LoopTest, ASigningRunLeavesTheSignatureOutOfWorkNotSignedWhole) {
  settings_.profile_iterations = 0;
  work_owner_ = std::make_unique<FakeWorkRecorder>(&log_);
  work_owner_->record.unsigned_why = "a host function launched into a stream";
  reuse_ = SigningOnly();
  auto runs = Run("^LoopTest_Reusable/", /*with_profiler=*/false);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(log_.Count("work_begin"), 1);  // recorded, but not signed whole
  EXPECT_EQ(runs[0].counters.count(counter::kWorkSignature), 0u);
  EXPECT_EQ(runs[0].counters.count(counter::kReuseStatus), 0u);
}

// --gpubench_signature=off: no recording before the warm-up body, no reuse counters.
TEST_F(LoopTest, SignatureOffRecordsNothing) {
  settings_.profile_iterations = 0;
  work_owner_ = std::make_unique<FakeWorkRecorder>(&log_);
  detail::ReuseState off = SigningOnly();
  off.signing = false;
  reuse_ = off;
  auto runs = Run("^LoopTest_Reusable/", /*with_profiler=*/false);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(log_.Count("work_begin"), 0);
  EXPECT_EQ(runs[0].counters.count(counter::kWorkSignature), 0u);
}

// The child writes its signature of a call it profiled into the call's line.
TEST_F(LoopTest, ProfilingChildWritesTheSignatureOfACallItProfiled) {
  settings_.profile_iterations = 3;
  work_owner_ = std::make_unique<FakeWorkRecorder>(&log_);
  const uint64_t signature = FakeWorkSignature(*work_owner_);
  reuse_ = ReusableSource(signature + 1);  // changed: profiled
  child_file_ =
      ::testing::TempDir() + "/gpubench_child_signed_" + std::to_string(::getpid()) + ".jsonl";
  std::remove(child_file_.c_str());
  Run("^LoopTest_Reusable/", /*with_profiler=*/true);
  std::ifstream in(child_file_);
  std::string line;
  std::getline(in, line);  // the header
  ASSERT_TRUE(std::getline(in, line));
  const nlohmann::json entry = nlohmann::json::parse(line);
  EXPECT_EQ(entry.at("instance"), "LoopTest_Reusable");
  EXPECT_EQ(entry.at("signature").get<uint64_t>(), signature);
  std::remove(child_file_.c_str());
}

}  // namespace
}  // namespace gpubench::testing
