// gpubench's stopping rule, the profiling pass's share of bodies and the run's cost, on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "measure/counter_stages.hpp"
#include "measure/run_cost.hpp"
#include "measure/stopping_rule.hpp"

namespace gpubench::detail {
namespace {

TEST(SampleStats, MeanAndStandardDeviationOfTheSamples) {
  SampleStats stats;
  EXPECT_FALSE(stats.RelativeHalfWidth().has_value());
  for (double x : {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) stats.Add(x);
  EXPECT_EQ(stats.count(), 8);
  EXPECT_DOUBLE_EQ(stats.mean(), 5.0);
  EXPECT_NEAR(stats.StandardDeviation(), std::sqrt(32.0 / 7), 1e-12);
  // t(0.975, 7) = 2.365: 2.365 x 2.138 / sqrt(8) / 5.
  EXPECT_NEAR(*stats.RelativeHalfWidth(), 2.365 * std::sqrt(32.0 / 7) / std::sqrt(8.0) / 5, 1e-9);
}

TEST(StudentT975, TableAndExpansionAgreeWithTheQuantiles) {
  EXPECT_DOUBLE_EQ(StudentT975(1), 12.706);
  EXPECT_DOUBLE_EQ(StudentT975(9), 2.262);
  EXPECT_DOUBLE_EQ(StudentT975(30), 2.042);
  EXPECT_NEAR(StudentT975(40), 2.0211, 2e-4);
  EXPECT_NEAR(StudentT975(120), 1.9799, 2e-4);
  EXPECT_NEAR(StudentT975(100000), 1.95996, 1e-4);
}

Settings Rule(double precision, int min_samples, double min_seconds, double max_seconds) {
  Settings settings;
  settings.precision_percent = precision;
  settings.min_samples = min_samples;
  settings.min_seconds = min_seconds;
  settings.max_seconds = max_seconds;
  return settings;
}

SampleStats Samples(int n, double spread) {
  SampleStats stats;
  for (int i = 0; i < n; ++i) stats.Add(1.0 + (i % 2 == 0 ? spread : -spread));
  return stats;
}

TEST(StoppingRule, PreciseSamplesStopOnlyAfterBothMinimums) {
  const StoppingRule rule(Rule(0.1, 10, 0.1, 5));
  const SampleStats precise = Samples(10, 1e-5);
  EXPECT_EQ(rule.Decide(Samples(9, 1e-5), 9, 0.2, 0.2, true), std::nullopt);  // 9 samples
  EXPECT_EQ(rule.Decide(precise, 10, 0.06, 0.05, true), std::nullopt);        // 0.05 s
  EXPECT_EQ(rule.Decide(precise, 10, 0.2, 0.15, true), StopReason::kPrecision);
}

TEST(StoppingRule, ImpreciseSamplesGoOnUntilTheBudget) {
  const StoppingRule rule(Rule(0.1, 10, 0.1, 0.5));
  const SampleStats noisy = Samples(100, 0.05);  // 5%: the target needs ~9600 samples
  EXPECT_EQ(rule.Decide(noisy, 100, 0.3, 0.29, true), std::nullopt);
  // 100 samples in 0.45 s: the next would end at 0.4545 + 0.0045 > 0.5? No: 0.4545 < 0.5.
  EXPECT_EQ(rule.Decide(noisy, 100, 0.49, 0.45, true), std::nullopt);
  EXPECT_EQ(rule.Decide(noisy, 100, 0.497, 0.45, true), StopReason::kMaxSeconds);
}

TEST(StoppingRule, TheBudgetWinsOverTheMinimumsButTwoSamplesAreTaken) {
  const StoppingRule rule(Rule(0.1, 10, 0.1, 0.05));
  EXPECT_EQ(rule.Decide(Samples(1, 0.01), 1, 0.2, 0.2, true), std::nullopt);
  EXPECT_EQ(rule.Decide(Samples(2, 0.01), 2, 0.2, 0.2, true), StopReason::kMaxSeconds);
}

TEST(StoppingRule, WithoutPerSampleTimesTheMinimumsEndARepetition) {
  const StoppingRule rule(Rule(0.1, 10, 0.1, 5));
  const SampleStats none;
  EXPECT_EQ(rule.Decide(none, 9, 0.2, 0.2, false), std::nullopt);
  EXPECT_EQ(rule.Decide(none, 10, 0.2, 0.2, false), StopReason::kMinimum);
}

TEST(StoppingRule, SamplesStillInFlightDoNotCountTowardsPrecision) {
  const StoppingRule rule(Rule(0.1, 10, 0, 5));
  // 12 bodies ran, 9 of their times are known: not yet judged.
  EXPECT_EQ(rule.Decide(Samples(9, 1e-5), 12, 0.2, 0.2, true), std::nullopt);
  EXPECT_EQ(rule.Decide(Samples(10, 1e-5), 12, 0.2, 0.2, true), StopReason::kPrecision);
}

TEST(BoundProfilingBodies, ShortBodiesKeepEveryRangeAndLongOnesFitInASecond) {
  const ProfilingBodies short_body = BoundProfilingBodies(5e-6, 1, 3);
  EXPECT_EQ(short_body.ranges, 3);
  EXPECT_EQ(short_body.busy, 3);
  const ProfilingBodies stencil = BoundProfilingBodies(0.186, 1, 3);  // 5.4 bodies a second
  EXPECT_EQ(stencil.ranges, 3);
  EXPECT_EQ(stencil.busy, 1);
  EXPECT_LE(stencil.Seconds(0.186, 1), 1.0);
  const ProfilingBodies two_passes = BoundProfilingBodies(0.1, 2, 3);  // 10 bodies a second
  EXPECT_EQ(two_passes.ranges, 3);
  EXPECT_EQ(two_passes.busy, 3);
  const ProfilingBodies long_body = BoundProfilingBodies(1.0, 1, 3);  // longer than the budget
  EXPECT_EQ(long_body.ranges, 1);
  EXPECT_EQ(long_body.busy, 1);
  EXPECT_DOUBLE_EQ(long_body.Seconds(1.0, 1), 3.0);
  const ProfilingBodies unknown = BoundProfilingBodies(0, 1, 3);  // no warm-up time known
  EXPECT_EQ(unknown.ranges, 3);
}

CallResult Call(const std::string& instance, int64_t iterations, double warmup, double timed) {
  CallResult call;
  call.instance = instance;
  call.iterations = iterations;
  call.wall_warmup_seconds = warmup;
  call.wall_timed_seconds = timed;
  call.loop_start = std::chrono::steady_clock::now();
  return call;
}

TEST(RunCost, ATrialCallsCostGoesToTheInstancesNextReportedRow) {
  RunCost cost;
  cost.Start();
  EXPECT_FALSE(cost.LoopDone(Call("BM_A", 1, 0.01, 0.001), true, true, false));
  EXPECT_FALSE(cost.FunctionDone(0.05));  // a trial: its cost waits
  EXPECT_FALSE(cost.LoopDone(Call("BM_A", 100, 0.01, 0.1), false, true, false));
  const auto row = cost.FunctionDone(0.2);
  ASSERT_TRUE(row.has_value());
  EXPECT_NEAR(row->wall_seconds, 0.25, 1e-12);  // its own call and the trial's
  EXPECT_EQ(row->samples, 101);
  // The next repetition carries only its own call.
  EXPECT_FALSE(cost.LoopDone(Call("BM_A", 100, 0.01, 0.1), false, true, false));
  EXPECT_NEAR(cost.FunctionDone(0.15)->wall_seconds, 0.15, 1e-12);
}

TEST(RunCost, AnUnwrappedBenchmarkIsCountedAtItsLoopsEnd) {
  RunCost cost;
  cost.Start();
  CallResult call = Call("BM_Macro", 10, 0.01, 0.02);
  call.wall_profiling_seconds = 0.3;  // its instance's call in the profiling child
  const auto row = cost.LoopDone(call, false, false, false);
  ASSERT_TRUE(row.has_value());
  EXPECT_GE(row->wall_seconds, 0.3);
  EXPECT_LT(row->wall_seconds, 0.35);
  EXPECT_EQ(row->samples, 10);
  EXPECT_FALSE(cost.FunctionDone(1.0));  // nothing waits for a function end
}

TEST(RunCost, TheSummarySplitsTheRunsWallTime) {
  RunCost cost;
  EXPECT_EQ(cost.Summary(), "");
  cost.Start();
  cost.AddProfilingPass(1.5);
  cost.LoopDone(Call("BM_A", 10, 0.25, 2.0), false, true, false);
  cost.FunctionDone(2.5);
  const std::string summary = cost.Summary();
  EXPECT_NE(summary.find("profiling 1.5 s, warm-up 0.2 s, timed samples 2.0 s, GB's trial calls "
                         "0.0 s, the benchmarks' own set-up and tear-down 2.5 s"),
            std::string::npos)
      << summary;
}

}  // namespace
}  // namespace gpubench::detail
