// The gate at suite scale (issue #36): suites of 252 benchmarks built from real H200 between-run
// noise (tests/compare/data/h200/history_gate_v4: ten runs of the six-benchmark gate suite at
// method version 4's defaults, and its real injections), compared as CI compares them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tools/gate/comparison.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {
namespace {

constexpr int kCopies = 42;  // 6 real benchmarks x 42 = 252

std::string Data(const std::string& name) {
  return std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/h200/history_gate_v4/" + name;
}

std::vector<BenchmarkFile> RealRuns() {
  std::vector<BenchmarkFile> runs;
  for (int i = 1; i <= 10; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "run_%02d.json", i);
    runs.push_back(LoadBenchmarkFile(Data(name)).value());
  }
  return runs;
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

BenchmarkRecord Copy(const BenchmarkRecord& real, int copy) {
  BenchmarkRecord record = real;
  record.name = real.name + "#" + std::to_string(copy);
  return record;
}

// Way 1: every benchmark a copy of a real one, each copy's runs drawn from the ten real runs in
// an order of its own.
std::vector<BenchmarkFile> CopiesInOwnOrder(const std::vector<BenchmarkFile>& real,
                                            std::mt19937& random) {
  std::vector<std::vector<BenchmarkRecord>> records(real.size());
  for (std::size_t b = 0; b < real.front().benchmarks.size(); ++b) {
    for (int copy = 0; copy < kCopies; ++copy) {
      std::vector<std::size_t> order(real.size());
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), random);
      for (std::size_t r = 0; r < real.size(); ++r) {
        records[r].push_back(Copy(real[order[r]].benchmarks[b], copy));
      }
    }
  }
  std::vector<BenchmarkFile> runs;
  for (std::size_t r = 0; r < real.size(); ++r) {
    runs.push_back(MakeRun(real[r], "copies_" + std::to_string(r), std::move(records[r])));
  }
  return runs;
}

double MedianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Way 2: every run made from the first real run, each benchmark's times scaled by a normal draw
// with that benchmark's own between-run sd (of the ten real runs' medians).
std::vector<BenchmarkFile> ScaledFromTheFirstRun(const std::vector<BenchmarkFile>& real,
                                                 std::mt19937& random) {
  const BenchmarkFile& first = real.front();
  std::vector<double> sd;
  for (const BenchmarkRecord& record : first.benchmarks) {
    std::vector<double> medians;
    for (const BenchmarkFile& run : real) {
      medians.push_back(MedianOf(run.Find(record.name)->FindMetric("real_time")->values));
    }
    const double mean = std::accumulate(medians.begin(), medians.end(), 0.0) / medians.size();
    double squares = 0;
    for (double m : medians) squares += (m - mean) * (m - mean);
    sd.push_back(std::sqrt(squares / (medians.size() - 1)) / mean);
  }
  std::vector<BenchmarkFile> runs;
  for (std::size_t r = 0; r < real.size(); ++r) {
    std::vector<BenchmarkRecord> records;
    for (std::size_t b = 0; b < first.benchmarks.size(); ++b) {
      std::normal_distribution<double> draw(1.0, sd[b]);
      for (int copy = 0; copy < kCopies; ++copy) {
        BenchmarkRecord record = Copy(first.benchmarks[b], copy);
        const double factor = draw(random);
        for (MetricSeries& series : record.metrics) {
          if (series.name != "real_time") continue;
          for (double& value : series.values) value *= factor;
        }
        records.push_back(std::move(record));
      }
    }
    runs.push_back(MakeRun(first, "scaled_" + std::to_string(r), std::move(records)));
  }
  return runs;
}

// Each run against a history of the nine others, and of eight of them: 20 comparisons of
// identical reruns.
int FailingHistoryComparisons(const std::vector<BenchmarkFile>& runs) {
  int failing = 0;
  for (std::size_t contender = 0; contender < runs.size(); ++contender) {
    for (std::size_t left_out : {runs.size(), (contender + 1) % runs.size()}) {
      std::vector<const BenchmarkFile*> history;
      for (std::size_t r = 0; r < runs.size(); ++r) {
        if (r != contender && r != left_out) history.push_back(&runs[r]);
      }
      const ComparisonReport report =
          CompareWithHistory(history, runs[contender], CompareOptions{}).value();
      EXPECT_EQ(report.testing.history_tests, 252u * 4);
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
  static void SetUpTestSuite() { real_ = new std::vector<BenchmarkFile>(RealRuns()); }
  static void TearDownTestSuite() { delete real_; }
  static std::vector<BenchmarkFile>* real_;
};
std::vector<BenchmarkFile>* SuiteScale::real_ = nullptr;

// With a history, the suite's 1008 gated tests share the 1% family-wise level: identical reruns
// of a 252-benchmark suite pass (before, at 1% a test, they failed every time).
TEST_F(SuiteScale, IdenticalRerunsPassAgainstAHistoryBothWays) {
  std::mt19937 random(20261201);
  EXPECT_EQ(FailingHistoryComparisons(CopiesInOwnOrder(*real_, random)), 0) << "of 20";
  EXPECT_EQ(FailingHistoryComparisons(ScaledFromTheFirstRun(*real_, random)), 0) << "of 20";
}

// One baseline has no spread between runs to go by: the fixed thresholds (the 1.75% minimum,
// the 500 ns time floor, the 2 MiB byte floor) decide. On this suite's real noise they hold too.
TEST_F(SuiteScale, IdenticalRerunsWithOneBaselineOnThisNoise) {
  std::mt19937 random(7);
  EXPECT_EQ(FailingPairs(CopiesInOwnOrder(*real_, random)), 0) << "of 90";
  EXPECT_EQ(FailingPairs(ScaledFromTheFirstRun(*real_, random)), 0) << "of 90";
}

// The power: a real 1% slowdown of the 357 us FMA chain (GATE_SUITE_INJECT=fma1) in one of the
// 252 benchmarks is caught against a history of eight runs and of nine, and nothing else fails;
// a real 2% one (fma2) is caught with one baseline.
TEST_F(SuiteScale, ARealOnePercentSlowdownIsCaughtAmong252) {
  std::mt19937 random(11);
  const std::vector<BenchmarkFile> runs = CopiesInOwnOrder(*real_, random);
  const BenchmarkFile fma1 = LoadBenchmarkFile(Data("inject_fma1.json")).value();
  const BenchmarkFile fma2 = LoadBenchmarkFile(Data("inject_fma2.json")).value();
  const std::string slowed = "Gate_FmaLong/2112/manual_time#17";
  auto with_injection = [&](const BenchmarkFile& injected) {
    BenchmarkFile contender = runs.back();
    contender.path = "contender_" + injected.path;
    BenchmarkRecord& record = contender.benchmarks[contender.index_by_name.at(slowed)];
    record = Copy(*injected.Find("Gate_FmaLong/2112/manual_time"), 17);
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
      if (benchmark.name == slowed) EXPECT_TRUE(benchmark.fails_gate);
    }
  }
  const ComparisonReport single =
      CompareFiles(runs.front(), with_injection(fma2), CompareOptions{}).value();
  EXPECT_EQ(single.exit_code, kExitRegression);
  EXPECT_EQ(single.summary.failing, 1u);
  // The suite's geometric mean moves by about 2% / 252 and says it.
  ASSERT_EQ(single.suite.benchmarks, 252u);
  EXPECT_GT(single.suite.geometric_mean, 1.0);
}

}  // namespace
}  // namespace gpubench::tools
