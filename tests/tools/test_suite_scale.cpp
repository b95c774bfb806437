// The gate at suite scale (issue #36): suites of 252 benchmarks built from real H200 between-run
// noise, compared as CI compares them. Each synthetic benchmark draws its runs, with replacement,
// from the pooled between-run deviations of 22 kernels' committed reruns (tests/data/h200:
// the gate suite at method versions 1, 3 and 4, the short kernels with metrics off and at the
// defaults; 5 to 10 separate processes each), so every benchmark has noise of its own and the
// suite can fail where each kernel's own leave-one-out passes. (Copies of the six-benchmark suite
// whose runs were permutations of its ten real ones could not: at 1% a test, without the
// suite-wide correction, they passed 20 of 20 comparisons, as the six benchmarks alone do.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "schema/counter_table.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {
namespace {

constexpr std::size_t kBenchmarks = 252;
constexpr std::size_t kRuns = 10;

std::string Data(const std::string& name) {
  return std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/h200/" + name;
}

// `pattern` with %d replaced by first..last, e.g. "history_gate_v4/run_%02d.json", 1, 10.
std::vector<BenchmarkFile> LoadRuns(const char* pattern, int first, int last) {
  std::vector<BenchmarkFile> runs;
  for (int i = first; i <= last; ++i) {
    char name[96];
    std::snprintf(name, sizeof name, pattern, i);
    runs.push_back(LoadBenchmarkFile(Data(name)).value());
  }
  return runs;
}

// Committed reruns of one suite with one binary and settings, each run a separate process.
std::vector<std::vector<BenchmarkFile>> RerunGroups() {
  std::vector<std::vector<BenchmarkFile>> groups = {
      LoadRuns("history_gate_v4/run_%02d.json", 1, 10),
      LoadRuns("history_gate_v3/run_%02d.json", 1, 10),
      LoadRuns("history_short/off_%d.json", 1, 6),
      LoadRuns("cost/spread_copy_2^20_%d.json", 0, 7),
      LoadRuns("cost/spread_fma_%d.json", 0, 7),
      LoadRuns("cost/spread_tiny_%d.json", 0, 7),
  };
  std::vector<BenchmarkFile> gate = LoadRuns("gate_a%d.json", 1, 3);
  for (BenchmarkFile& run : LoadRuns("gate_b%d.json", 1, 2)) gate.push_back(std::move(run));
  groups.push_back(std::move(gate));
  return groups;
}

double MedianTime(const BenchmarkRecord& record) {
  std::vector<double> values = record.FindMetric(counter::kRealTime)->values;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// One kernel's reruns: its record in each run, the mean of the runs' median GPU times and their
// relative sample standard deviation.
struct KernelReruns {
  std::vector<const BenchmarkRecord*> runs;
  double mean = 0, sd = 0;
};

// The real noise: every kernel's reruns, and the pool of their runs' deviations from their
// kernel's mean in units of its sd (shape from every kernel, scale from each one).
struct RealNoise {
  std::vector<std::vector<BenchmarkFile>> groups;  // owns the records
  std::vector<KernelReruns> kernels;
  std::vector<double> pooled_deviations;
};

RealNoise LoadRealNoise() {
  RealNoise noise;
  noise.groups = RerunGroups();
  for (const std::vector<BenchmarkFile>& group : noise.groups) {
    for (const BenchmarkRecord& first : group.front().benchmarks) {
      KernelReruns kernel;
      std::vector<double> medians;
      for (const BenchmarkFile& run : group) {
        kernel.runs.push_back(run.Find(first.name));
        medians.push_back(MedianTime(*kernel.runs.back()));
      }
      kernel.mean = std::accumulate(medians.begin(), medians.end(), 0.0) / medians.size();
      double squares = 0;
      for (double m : medians) squares += (m - kernel.mean) * (m - kernel.mean);
      kernel.sd = std::sqrt(squares / (medians.size() - 1)) / kernel.mean;
      for (double m : medians) {
        noise.pooled_deviations.push_back((m / kernel.mean - 1) / kernel.sd);
      }
      noise.kernels.push_back(std::move(kernel));
    }
  }
  return noise;
}

// A run of the synthetic suite: the context of `like`, and the given benchmarks.
BenchmarkFile MakeRun(const BenchmarkFile& like, const std::string& path,
                      std::vector<BenchmarkRecord> records) {
  BenchmarkFile file;
  file.path = path;
  file.context = like.context;
  for (BenchmarkRecord& record : records) {
    file.index_by_name[record.name] = file.benchmarks.size();
    file.benchmarks.push_back(std::move(record));
  }
  return file;
}

BenchmarkRecord Copy(const BenchmarkRecord& real, std::size_t copy) {
  BenchmarkRecord record = real;
  record.name = real.name + "#" + std::to_string(copy);
  return record;
}

// The kernel synthetic benchmark `b` takes its noise from: the kernels in turn.
std::size_t KernelOf(const RealNoise& noise, std::size_t b) { return b % noise.kernels.size(); }

// Way 1: benchmark b's run r is its kernel's record from a run drawn at random (its bytes, its
// repetitions' spread), its times scaled so that their median is the kernel's mean x (1 + sd x
// z), z drawn from the pooled deviations. Draws are independent, with replacement: no two
// benchmarks share their runs' values, and a benchmark's runs are no permutation of real ones.
std::vector<BenchmarkFile> ResampledFromRealNoise(const RealNoise& noise, std::mt19937& random) {
  std::uniform_int_distribution<std::size_t> deviation(0, noise.pooled_deviations.size() - 1);
  std::vector<std::vector<BenchmarkRecord>> records(kRuns);
  for (std::size_t b = 0; b < kBenchmarks; ++b) {
    const KernelReruns& kernel = noise.kernels[KernelOf(noise, b)];
    std::uniform_int_distribution<std::size_t> real_run(0, kernel.runs.size() - 1);
    for (std::size_t r = 0; r < kRuns; ++r) {
      BenchmarkRecord record = Copy(*kernel.runs[real_run(random)], b);
      const double z = noise.pooled_deviations[deviation(random)];
      const double factor = kernel.mean * (1 + kernel.sd * z) / MedianTime(record);
      for (MetricSeries& series : record.metrics) {
        if (series.name != counter::kRealTime) continue;
        for (double& value : series.values) value *= factor;
      }
      records[r].push_back(std::move(record));
    }
  }
  std::vector<BenchmarkFile> runs;
  for (std::size_t r = 0; r < kRuns; ++r) {
    runs.push_back(MakeRun(noise.groups.front().front(), "resampled_" + std::to_string(r),
                           std::move(records[r])));
  }
  return runs;
}

// Way 2: every run made from the first real run of the gate suite (method version 4), each
// benchmark's times scaled by a normal draw with its kernel's own between-run sd.
std::vector<BenchmarkFile> ScaledFromTheFirstRun(const RealNoise& noise, std::mt19937& random) {
  const std::vector<BenchmarkFile>& gate = noise.groups.front();
  const std::size_t kernels = gate.front().benchmarks.size();
  std::vector<BenchmarkFile> runs;
  for (std::size_t r = 0; r < kRuns; ++r) {
    std::vector<BenchmarkRecord> records;
    for (std::size_t b = 0; b < kBenchmarks; ++b) {
      std::normal_distribution<double> draw(1.0, noise.kernels[b % kernels].sd);
      BenchmarkRecord record = Copy(gate.front().benchmarks[b % kernels], b);
      const double factor = draw(random);
      for (MetricSeries& series : record.metrics) {
        if (series.name != counter::kRealTime) continue;
        for (double& value : series.values) value *= factor;
      }
      records.push_back(std::move(record));
    }
    runs.push_back(MakeRun(gate.front(), "scaled_" + std::to_string(r), std::move(records)));
  }
  return runs;
}

// Each run against a history of the nine others, and of eight of them: 20 comparisons of
// identical reruns.
int FailingHistoryComparisons(const std::vector<BenchmarkFile>& runs,
                              const CompareOptions& options = {}) {
  int failing = 0;
  for (std::size_t contender = 0; contender < runs.size(); ++contender) {
    for (std::size_t left_out : {runs.size(), (contender + 1) % runs.size()}) {
      std::vector<const BenchmarkFile*> history;
      for (std::size_t r = 0; r < runs.size(); ++r) {
        if (r != contender && r != left_out) history.push_back(&runs[r]);
      }
      const ComparisonReport report = CompareWithHistory(history, runs[contender], options).value();
      EXPECT_GE(report.testing.history_tests, kBenchmarks);  // each benchmark's time at least
      failing += report.exit_code != kExitOk;
    }
  }
  return failing;
}

// Every ordered pair of runs with one baseline: 90 comparisons.
int FailingPairs(const std::vector<BenchmarkFile>& runs) {
  int failing = 0;
  for (std::size_t a = 0; a < runs.size(); ++a) {
    for (std::size_t b = 0; b < runs.size(); ++b) {
      if (a == b) continue;
      failing += CompareFiles(runs[a], runs[b], CompareOptions{}).value().exit_code != kExitOk;
    }
  }
  return failing;
}

class SuiteScale : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { noise_ = new RealNoise(LoadRealNoise()); }
  static void TearDownTestSuite() { delete noise_; }
  static RealNoise* noise_;
};
RealNoise* SuiteScale::noise_ = nullptr;

// The premise: many kernels, quiet and noisy ones, and deviations of their own.
TEST_F(SuiteScale, TheNoiseComesFromManyKernelsReruns) {
  EXPECT_EQ(noise_->kernels.size(), 22u);
  EXPECT_EQ(noise_->pooled_deviations.size(), 177u);
  const auto [quiet, noisy] =
      std::minmax_element(noise_->kernels.begin(), noise_->kernels.end(),
                          [](const KernelReruns& a, const KernelReruns& b) { return a.sd < b.sd; });
  EXPECT_LT(quiet->sd, 0.0001);  // a long copy: under 0.01%
  EXPECT_GT(noisy->sd, 0.02);    // a launch-bound kernel: over 2%
}

// With a history, the suite's gated tests share the 1% family-wise level: identical reruns of a
// 252-benchmark suite pass.
TEST_F(SuiteScale, IdenticalRerunsPassAgainstAHistoryBothWays) {
  std::mt19937 random(20261201);
  EXPECT_EQ(FailingHistoryComparisons(ResampledFromRealNoise(*noise_, random)), 0) << "of 20";
  EXPECT_EQ(FailingHistoryComparisons(ScaledFromTheFirstRun(*noise_, random)), 0) << "of 20";
}

// The control: the same reruns with each test at 1% (the family-wise level times the number of
// tests: no suite-wide correction) fail in 6 of the 20 comparisons, so the suite above could
// have failed.
TEST_F(SuiteScale, WithoutTheSuiteWideCorrectionTheSameRerunsFail) {
  std::mt19937 random(20261201);
  const std::vector<BenchmarkFile> runs = ResampledFromRealNoise(*noise_, random);
  std::vector<const BenchmarkFile*> nine;
  for (std::size_t r = 1; r < runs.size(); ++r) nine.push_back(&runs[r]);
  const std::size_t tests =
      CompareWithHistory(nine, runs.front(), CompareOptions{}).value().testing.history_tests;
  CompareOptions uncorrected;
  uncorrected.family_alpha = kGateFamilyAlpha * static_cast<double>(tests);
  EXPECT_GE(FailingHistoryComparisons(runs, uncorrected), 3) << "of 20";
}

// One baseline has no spread between runs to go by: the fixed thresholds (the 1.75% minimum,
// the 500 ns time floor, the 2 MiB byte floor) decide. On this real noise they hold too.
TEST_F(SuiteScale, IdenticalRerunsWithOneBaselineOnThisNoise) {
  std::mt19937 random(7);
  EXPECT_EQ(FailingPairs(ResampledFromRealNoise(*noise_, random)), 0) << "of 90";
  EXPECT_EQ(FailingPairs(ScaledFromTheFirstRun(*noise_, random)), 0) << "of 90";
}

// The power: a real 1% slowdown of the 357 us FMA chain (GATE_SUITE_INJECT=fma1) in one of the
// 252 benchmarks is caught against a history of eight runs and of nine, and nothing else fails;
// a real 2% one (fma2) is caught with one baseline.
TEST_F(SuiteScale, ARealOnePercentSlowdownIsCaughtAmong252) {
  std::mt19937 random(11);
  const std::vector<BenchmarkFile> runs = ResampledFromRealNoise(*noise_, random);
  const BenchmarkFile fma1 = LoadBenchmarkFile(Data("history_gate_v4/inject_fma1.json")).value();
  const BenchmarkFile fma2 = LoadBenchmarkFile(Data("history_gate_v4/inject_fma2.json")).value();
  const std::string fma_long = "Gate_FmaLong/2112/manual_time";
  // A benchmark whose noise is the method-version-4 FMA chain's own (the kernels are in turn).
  std::size_t slowed = 0;
  while (noise_->kernels[slowed].runs.front() != noise_->groups.front().front().Find(fma_long)) {
    ++slowed;
  }
  const std::string name = fma_long + "#" + std::to_string(slowed);
  auto with_injection = [&](const BenchmarkFile& injected) {
    BenchmarkFile contender = runs.back();
    contender.path = "contender_" + injected.path;
    contender.benchmarks[contender.index_by_name.at(name)] = Copy(*injected.Find(fma_long), slowed);
    return contender;
  };
  for (std::size_t history_runs : {8u, 9u}) {
    std::vector<const BenchmarkFile*> history;
    for (std::size_t r = 0; r < history_runs; ++r) history.push_back(&runs[r]);
    const ComparisonReport report =
        CompareWithHistory(history, with_injection(fma1), CompareOptions{}).value();
    EXPECT_EQ(report.exit_code, kExitRegression) << history_runs << " runs";
    EXPECT_EQ(report.summary.failing, 1u) << history_runs << " runs";
    for (const BenchmarkComparison& benchmark : report.benchmarks) {
      if (benchmark.name == name) {
        EXPECT_TRUE(benchmark.fails_gate);
      }
    }
  }
  const ComparisonReport single =
      CompareFiles(runs.front(), with_injection(fma2), CompareOptions{}).value();
  EXPECT_EQ(single.exit_code, kExitRegression);
  EXPECT_EQ(single.summary.failing, 1u);
  // The suite's geometric mean moves by about 2% / 252 and says it.
  ASSERT_EQ(single.suite.benchmarks, kBenchmarks);
  EXPECT_GT(single.suite.geometric_mean, 1.0);
}

}  // namespace
}  // namespace gpubench::tools
