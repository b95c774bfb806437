// gpubench's stopping rule, the profiling pass's share of bodies and the run's cost, on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "measure/profiling/counter_stages.hpp"
#include "measure/publish/run_cost.hpp"
#include "measure/sampling/stopping_rule.hpp"

namespace gpubench::detail {
namespace {

TEST(SampleSeries, MeanAndStandardDeviationOfTheSamples) {
  SampleSeries stats;
  EXPECT_FALSE(stats.RelativeHalfWidth().has_value());
  for (double x : {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) stats.Add(x, 0);
  EXPECT_EQ(stats.count(), 8);
  EXPECT_DOUBLE_EQ(stats.mean(), 5.0);
  EXPECT_NEAR(stats.StandardDeviation(), std::sqrt(32.0 / 7), 1e-12);
  // t(0.975, 7) = 2.365: 2.365 x 2.138 / sqrt(8) / 5.
  EXPECT_NEAR(*stats.RelativeHalfWidth(), 2.365 * std::sqrt(32.0 / 7) / std::sqrt(8.0) / 5, 1e-9);
}

// Correlated samples: a level that holds for half the repetition (the clock's stretches) under a
// small alternating jitter. Independent samples' variance misses the level change; batch means
// see it.
SampleSeries TwoLevels(int n, double step, double jitter) {
  SampleSeries series;
  for (int i = 0; i < n; ++i) {
    series.Add(1.0 + (i < n / 2 ? 0 : step) + (i % 2 == 0 ? jitter : -jitter), 0);
  }
  return series;
}

TEST(SampleSeries, BatchMeansSeeALevelThatIndependentSamplesDoNot) {
  const SampleSeries series = TwoLevels(200, 1e-3, 1e-5);
  const MeanVariance own = *series.VarianceOfMean();
  EXPECT_DOUBLE_EQ(own.degrees, 9);  // 10 batches of 20: five at each level
  // Batch means 1.0 (x5) and 1.001 (x5): variance 1e-6 * 5 * 0.25 * 2 / 9, over 10 batches.
  const double batch_variance = 10 * 0.25e-6 / 9;
  EXPECT_NEAR(own.variance, batch_variance / 10, 1e-15);
  const double independent = series.StandardDeviation() * series.StandardDeviation() / 200;
  EXPECT_GT(own.variance, 2 * independent);
  EXPECT_NEAR(*series.RelativeHalfWidth(), 2.262 * std::sqrt(batch_variance / 10) / series.mean(),
              1e-12);
}

TEST(SampleSeries, IndependentSamplesKeepTheirOwnVarianceAndDegrees) {
  // Alternating jitter averages out within every batch: the batch means agree, and the
  // independent-sample variance (199 degrees) is the wider interval.
  const SampleSeries series = TwoLevels(200, 0, 1e-3);
  const MeanVariance own = *series.VarianceOfMean();
  EXPECT_DOUBLE_EQ(own.degrees, 199);
  EXPECT_NEAR(own.variance, series.StandardDeviation() * series.StandardDeviation() / 200, 1e-18);
}

TEST(SampleSeries, FewerThanTwoSamplesPerBatchUseIndependentSamples) {
  const SampleSeries series = TwoLevels(19, 1e-3, 0);
  EXPECT_DOUBLE_EQ(series.VarianceOfMean()->degrees, 18);
  EXPECT_FALSE(SampleSeries().VarianceOfMean().has_value());
}

RepetitionMean Repetition(double mean, double variance, double degrees) {
  return {100, mean, {variance, degrees}};
}

TEST(RelativeHalfWidthBetweenCalls, AgreeingCallsAddNothing) {
  // Means within what their own variances explain: no spread between calls.
  const std::vector<RepetitionMean> calls = {Repetition(1.0, 1e-6, 9), Repetition(1.0005, 1e-6, 9)};
  EXPECT_DOUBLE_EQ(RelativeSpreadBetweenCalls(calls), 0);
  EXPECT_NEAR(*RelativeHalfWidthBetweenCalls(calls[1], calls), 2.262 * 1e-3 / 1.0005, 1e-12);
  // The first repetition has only its own samples.
  EXPECT_NEAR(*RelativeHalfWidthBetweenCalls(calls[0], {calls[0]}), 2.262e-3, 1e-12);
}

TEST(RelativeHalfWidthBetweenCalls, CallsThatDifferWidenTheIntervalAtTheirDegrees) {
  // Two calls whose own samples are precise (1e-10) but whose means differ by 1%: the spread
  // between them (variance 5e-5 less their own) dominates, with one degree of freedom.
  const std::vector<RepetitionMean> calls = {Repetition(1.00, 1e-10, 9),
                                             Repetition(1.01, 1e-10, 9)};
  const double between = 0.01 * 0.01 / 2 - 1e-10;
  EXPECT_NEAR(RelativeSpreadBetweenCalls(calls), std::sqrt(between) / 1.005, 1e-12);
  const double half = *RelativeHalfWidthBetweenCalls(calls[1], calls);
  EXPECT_NEAR(half, 12.706 * std::sqrt(between + 1e-10) / 1.01, 1e-9);
  // Ten calls of the same spread: nine degrees, a far narrower t.
  std::vector<RepetitionMean> ten;
  for (int i = 0; i < 10; ++i) ten.push_back(Repetition(i % 2 == 0 ? 1.00 : 1.01, 1e-10, 9));
  const double ten_between = 0.01 * 0.01 * 0.25 * 10 / 9 - 1e-10;
  EXPECT_NEAR(*RelativeHalfWidthBetweenCalls(ten.back(), ten),
              2.262 * std::sqrt(ten_between + 1e-10) / 1.01, 1e-6);
}

TEST(StudentT975, TableAndExpansionAgreeWithTheQuantiles) {
  EXPECT_DOUBLE_EQ(StudentT975(1), 12.706);
  EXPECT_DOUBLE_EQ(StudentT975(9), 2.262);
  EXPECT_DOUBLE_EQ(StudentT975(30), 2.042);
  EXPECT_NEAR(StudentT975(40), 2.0211, 2e-4);
  EXPECT_NEAR(StudentT975(120), 1.9799, 2e-4);
  EXPECT_NEAR(StudentT975(100000), 1.95996, 1e-4);
  EXPECT_DOUBLE_EQ(StudentT975(9.8), 2.262);  // fractional degrees round down: wider
  EXPECT_DOUBLE_EQ(StudentT975(0.5), 12.706);
}

Settings Rule(double precision, int min_samples, double min_seconds, double max_seconds) {
  Settings settings;
  settings.precision_percent = precision;
  settings.min_samples = min_samples;
  settings.min_seconds = min_seconds;
  settings.max_seconds = max_seconds;
  return settings;
}

SampleSeries Samples(int n, double spread) {
  SampleSeries stats;
  for (int i = 0; i < n; ++i) stats.Add(1.0 + (i % 2 == 0 ? spread : -spread), 0);
  return stats;
}

TEST(StoppingRule, PreciseSamplesStopOnlyAfterBothMinimums) {
  const StoppingRule rule(Rule(0.1, 10, 0.1, 5));
  const SampleSeries precise = Samples(10, 1e-5);
  EXPECT_EQ(rule.Decide(Samples(9, 1e-5), 9, 0.2, 0.2, true), std::nullopt);  // 9 samples
  EXPECT_EQ(rule.Decide(precise, 10, 0.06, 0.05, true), std::nullopt);        // 0.05 s
  EXPECT_EQ(rule.Decide(precise, 10, 0.2, 0.15, true), StopReason::kPrecision);
}

TEST(StoppingRule, CorrelatedSamplesAreNotJudgedAsIndependentOnes) {
  const StoppingRule rule(Rule(0.1, 10, 0, 5));
  // 0.1% between the halves, 0.001% jitter: independent samples would put the half-width at
  // ~0.007%, batch means at ~0.038% (2.262 x 0.0167%), and the halves at 0.5% are far off.
  EXPECT_EQ(rule.Decide(TwoLevels(200, 1e-3, 1e-5), 200, 0.2, 0.2, true), StopReason::kPrecision);
  EXPECT_EQ(rule.Decide(TwoLevels(200, 5e-3, 1e-5), 200, 0.2, 0.2, true), std::nullopt);
  SampleSeries independent_view;  // the same spread of values, interleaved: no correlation
  for (int i = 0; i < 200; ++i) {
    independent_view.Add(1.0 + (i % 2 == 0 ? 0 : 5e-3) + (i % 4 < 2 ? 1e-5 : -1e-5), 0);
  }
  EXPECT_EQ(rule.Decide(independent_view, 200, 0.2, 0.2, true), StopReason::kPrecision);
}

TEST(StoppingRule, ImpreciseSamplesGoOnUntilTheBudget) {
  const StoppingRule rule(Rule(0.1, 10, 0.1, 0.5));
  const SampleSeries noisy = Samples(100, 0.05);  // 5%: the target needs ~9600 samples
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
  const SampleSeries none;
  EXPECT_EQ(rule.Decide(none, 9, 0.2, 0.2, false), std::nullopt);
  EXPECT_EQ(rule.Decide(none, 10, 0.2, 0.2, false), StopReason::kMinimum);
}

TEST(StoppingRule, SamplesStillInFlightDoNotCountTowardsPrecision) {
  const StoppingRule rule(Rule(0.1, 10, 0, 5));
  // 12 bodies ran, 9 of their times are known: not yet judged.
  EXPECT_EQ(rule.Decide(Samples(9, 1e-5), 12, 0.2, 0.2, true), std::nullopt);
  EXPECT_EQ(rule.Decide(Samples(10, 1e-5), 12, 0.2, 0.2, true), StopReason::kPrecision);
}

TEST(BoundProfilingBodies, ShortBodiesKeepEveryRangeAndLongOnesFitInAQuarterSecond) {
  const ProfilingBodies short_body = BoundProfilingBodies(5e-6, 1, 3);
  EXPECT_EQ(short_body.ranges, 3);
  EXPECT_EQ(short_body.busy, 3);
  const ProfilingBodies sum = BoundProfilingBodies(0.012, 1, 3);  // 20 bodies in 0.25 s
  EXPECT_EQ(sum.ranges, 3);
  EXPECT_EQ(sum.busy, 3);
  EXPECT_LE(sum.Seconds(0.012, 1), kProfilingBodiesSeconds);
  const ProfilingBodies stencil80 = BoundProfilingBodies(0.033, 1, 3);  // 7.6 bodies
  EXPECT_EQ(stencil80.ranges, 3);
  EXPECT_EQ(stencil80.busy, 3);
  EXPECT_LE(stencil80.Seconds(0.033, 1), kProfilingBodiesSeconds);
  const ProfilingBodies two_passes = BoundProfilingBodies(0.025, 2, 3);  // 10 bodies
  EXPECT_EQ(two_passes.ranges, 3);
  EXPECT_EQ(two_passes.busy, 3);
  const ProfilingBodies medium = BoundProfilingBodies(0.06, 1, 3);  // 4.2 bodies
  EXPECT_EQ(medium.ranges, 2);
  EXPECT_EQ(medium.busy, 1);
  EXPECT_LE(medium.Seconds(0.06, 1), kProfilingBodiesSeconds);
  const ProfilingBodies stencil = BoundProfilingBodies(0.186, 1, 3);  // longer than the budget
  EXPECT_EQ(stencil.ranges, 1);
  EXPECT_EQ(stencil.busy, 1);
  EXPECT_DOUBLE_EQ(stencil.Seconds(0.186, 1), 3 * 0.186);
  const ProfilingBodies long_body = BoundProfilingBodies(1.0, 2, 3);
  EXPECT_EQ(long_body.ranges, 1);
  EXPECT_EQ(long_body.busy, 1);
  EXPECT_DOUBLE_EQ(long_body.Seconds(1.0, 2), 4.0);
  const ProfilingBodies unknown = BoundProfilingBodies(0, 1, 3);  // no warm-up time known
  EXPECT_EQ(unknown.ranges, 3);
  // --gpubench_profile_iterations=1 bounds short bodies too.
  EXPECT_EQ(BoundProfilingBodies(5e-6, 1, 1).ranges, 1);
  EXPECT_EQ(BoundProfilingBodies(5e-6, 1, 1).busy, 1);
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
