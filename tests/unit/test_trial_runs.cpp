// Telling GB's iteration-count trials from reported calls, on call sequences GB makes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gb/gb_internals.hpp"
#include "gpubench/main.hpp"
#include "measure/process/process_state.hpp"
#include "measure/sampling/trial_runs.hpp"

namespace gpubench::detail {
namespace {

TEST(MinTimeSeconds, ReadsGoogleBenchmarkFlagForms) {
  EXPECT_EQ(MinTimeSeconds(""), kDefaultMinTimeSeconds);
  EXPECT_EQ(MinTimeSeconds("0.25"), 0.25);  // GB 1.7
  EXPECT_EQ(MinTimeSeconds("2s"), 2.0);     // GB >= 1.8
  EXPECT_EQ(MinTimeSeconds("1e-3s"), 1e-3);
}

TEST(MinTimeSeconds, IterationCountsAndUnreadableValuesJudgeNothing) {
  EXPECT_EQ(MinTimeSeconds("100x"), std::nullopt);
  EXPECT_EQ(MinTimeSeconds("s"), std::nullopt);
  EXPECT_EQ(MinTimeSeconds("fast"), std::nullopt);
  EXPECT_EQ(MinTimeSeconds("0.5ms"), std::nullopt);
  EXPECT_EQ(MinTimeSeconds("0"), std::nullopt);
  EXPECT_EQ(MinTimeSeconds("-1"), std::nullopt);
  EXPECT_EQ(MinTimeSeconds("nan"), std::nullopt);
}

// GB's search for one instance at 1 ms per iteration with min_time 0.5 s: 1, 10, 100, 700.
TEST(TrialRunDetector, OnlyTheLongerCallsUnderMinTimeAreTrials) {
  TrialRunDetector detector(0.5);
  EXPECT_EQ(detector.BeginCall("BM_A", 1), "");
  EXPECT_FALSE(detector.IsTrial(0.001));  // first call: may be ->Iterations(1)
  detector.BeginCall("BM_A", 10);
  EXPECT_TRUE(detector.IsTrial(0.01));
  detector.BeginCall("BM_A", 100);
  EXPECT_TRUE(detector.IsTrial(0.1));
  detector.BeginCall("BM_A", 700);
  EXPECT_FALSE(detector.IsTrial(0.7));  // reached min_time: reported
}

TEST(TrialRunDetector, CallsAtMinTimeAreReportedDespiteRounding) {
  TrialRunDetector detector(0.5);
  detector.BeginCall("BM_A", 1);
  detector.BeginCall("BM_A", 500);
  EXPECT_FALSE(detector.IsTrial(0.5 * (1 - 1e-12)));
  EXPECT_TRUE(detector.IsTrial(0.4999));
}

TEST(TrialRunDetector, RepetitionsAndExplicitCountsAreNeverTrials) {
  TrialRunDetector detector(0.5);
  detector.BeginCall("BM_A", 5);  // ->Iterations(5): short, but the first call
  EXPECT_FALSE(detector.IsTrial(1e-6));
  detector.BeginCall("BM_A", 5);  // its repetitions repeat the count
  EXPECT_FALSE(detector.IsTrial(1e-6));
  detector.BeginCall("BM_A", 5);
  EXPECT_FALSE(detector.IsTrial(1e-6));
}

TEST(TrialRunDetector, InterleavedInstancesKeepTheirOwnHistory) {
  TrialRunDetector detector(0.5);
  detector.BeginCall("BM_A", 1);
  detector.BeginCall("BM_A", 10);
  EXPECT_TRUE(detector.IsTrial(0.01));
  detector.BeginCall("BM_A", 600);
  detector.BeginCall("BM_B", 1);
  EXPECT_FALSE(detector.IsTrial(0.001));
  detector.BeginCall("BM_A", 600);  // A's second repetition, after B's first call
  EXPECT_FALSE(detector.IsTrial(0.49));
  detector.BeginCall("BM_B", 10);
  EXPECT_TRUE(detector.IsTrial(0.01));
}

TEST(TrialRunDetector, TheRestartAfterAWarmUpPhaseIsNotATrial) {
  TrialRunDetector detector(0.5);
  detector.BeginCall("BM_A", 1);  // GB's warm-up phase (MinWarmUpTime) ...
  detector.BeginCall("BM_A", 10);
  detector.BeginCall("BM_A", 1);  // ... then the measured search starts again at 1
  EXPECT_FALSE(detector.IsTrial(0.001));
}

TEST(TrialRunDetector, UnknownMinTimeJudgesNoCallATrial) {
  TrialRunDetector detector(std::nullopt);
  detector.BeginCall("BM_A", 1);
  detector.BeginCall("BM_A", 10);
  EXPECT_FALSE(detector.IsTrial(1e-9));
}

TEST(TrialRunDetector, ACopiedTrialFollowedByALongerCallIsConfirmedSilently) {
  TrialRunDetector detector(0.5);
  detector.BeginCall("BM_A", 1);
  detector.BeginCall("BM_A", 10);
  ASSERT_TRUE(detector.IsTrial(0.01));
  detector.NoteCopiedCounters(0.01, 1);
  EXPECT_EQ(detector.BeginCall("BM_A", 100), "");
  EXPECT_EQ(detector.Finish(), "");
}

// A benchmark's own ->MinTime() replaces the global min_time, below it or above it.
TEST(TrialRunDetector, ABenchmarksOwnMinTimeReplacesTheGlobalOne) {
  TrialRunDetector detector(0.5);
  detector.BeginCall("BM_A", 1, 0.05);
  EXPECT_EQ(detector.CallMinTimeSeconds(), 0.05);
  EXPECT_FALSE(detector.IsTrial(0.001));
  detector.BeginCall("BM_A", 10, 0.05);
  EXPECT_TRUE(detector.IsTrial(0.01));
  detector.BeginCall("BM_A", 70, 0.05);
  EXPECT_FALSE(detector.IsTrial(0.07));  // reported although below --benchmark_min_time
  detector.BeginCall("BM_B", 1, 2.0);
  detector.BeginCall("BM_B", 1000, 2.0);
  EXPECT_EQ(detector.CallMinTimeSeconds(), 2.0);
  EXPECT_TRUE(detector.IsTrial(1.0));  // above --benchmark_min_time, still a trial
  detector.BeginCall("BM_C", 1);
  EXPECT_EQ(detector.CallMinTimeSeconds(), 0.5);
}

// --benchmark_min_time=<n>x: GB reports every call, whatever the benchmark's own min_time.
TEST(TrialRunDetector, ExplicitIterationsOverrideAnOwnMinTime) {
  TrialRunDetector detector(std::nullopt);
  detector.BeginCall("BM_A", 1, 0.05);
  detector.BeginCall("BM_A", 10, 0.05);
  EXPECT_EQ(detector.CallMinTimeSeconds(), std::nullopt);
  EXPECT_FALSE(detector.IsTrial(1e-6));
}

// ->MinTime(0.05) on a benchmark registered with GB's own macro (gpubench cannot read its
// min_time): GB reports the call of 70 iterations.
TEST(TrialRunDetector, AMisjudgedCallIsNamedWhenGbMovesOn) {
  TrialRunDetector detector(0.5);
  detector.BeginCall("BM_A", 1);
  detector.BeginCall("BM_A", 70);
  ASSERT_TRUE(detector.IsTrial(0.07));
  detector.NoteCopiedCounters(0.07, 1);
  const std::string warning = detector.BeginCall("BM_B", 1);
  EXPECT_NE(warning.find("BM_A: GB reported the call with 70 iterations (0.07 s"),
            std::string::npos)
      << warning;
  EXPECT_NE(warning.find("copied from the same instance's profiled call with 1 iterations"),
            std::string::npos)
      << warning;
  EXPECT_NE(warning.find("--gpubench_profile_runs=all"), std::string::npos) << warning;
  EXPECT_EQ(detector.Finish(), "");  // said once
}

TEST(TrialRunDetector, AMisjudgedCallIsNamedWhenItsRepetitionFollows) {
  TrialRunDetector detector(0.5);
  detector.BeginCall("BM_A", 1);
  detector.BeginCall("BM_A", 70);
  detector.NoteCopiedCounters(0.07, 1);
  EXPECT_NE(detector.BeginCall("BM_A", 70), "");
}

TEST(TrialRunDetector, AMisjudgedLastCallIsNamedAtTheEnd) {
  TrialRunDetector detector(0.5);
  detector.BeginCall("BM_A", 1);
  detector.BeginCall("BM_A", 70);
  detector.NoteCopiedCounters(0.07, 1);
  EXPECT_NE(detector.Finish().find("BM_A: GB reported the call with 70 iterations"),
            std::string::npos);
  EXPECT_EQ(detector.Finish(), "");
}

// gpubench::Initialize reads GB's flag before benchmark::Initialize removes it, and leaves it in
// argv for GB.
std::optional<double> MinTimeAfterInitialize(std::vector<std::string> args) {
  args.insert(args.begin(), "bench");
  args.push_back("--gpubench_profile_iterations=0");  // no CUPTI session in a unit test
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  // Quiet: each call adds the context block to GB's again, and GB says so.
  ::testing::internal::CaptureStderr();
  const InitResult init = gpubench::Initialize(&argc, argv.data());
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(init.run_benchmarks) << said;
  const std::optional<double> min_time = ProcessState::Get().policy.trials().min_time_seconds();
  ProcessState::Get().ResetForTesting();
  return min_time;
}

TEST(TrialRunDetector, InitializeReadsGoogleBenchmarkMinTime) {
  EXPECT_EQ(MinTimeAfterInitialize({}), kDefaultMinTimeSeconds);
  EXPECT_EQ(MinTimeAfterInitialize({"--benchmark_min_time=0.2", "--benchmark_min_time=0.3"}),
            0.3);  // GB takes the last
  EXPECT_EQ(MinTimeAfterInitialize({"--benchmark_min_time=50x"}), std::nullopt);
  ::setenv("BENCHMARK_MIN_TIME", "0.125", 1);
  EXPECT_EQ(MinTimeAfterInitialize({}), 0.125);
  EXPECT_EQ(MinTimeAfterInitialize({"--benchmark_min_time=2"}), 2.0);  // the flag wins
  ::unsetenv("BENCHMARK_MIN_TIME");
}

}  // namespace
}  // namespace gpubench::detail
