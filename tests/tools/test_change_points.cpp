// The change-point engine (issue #50, src/tools/changes/): synthetic series with known steps and
// drifts, the real H200 reruns of the gate suite (tests/data/h200/history_gate_v4), and the
// suite-wide false-alarm rate on series resampled from their real between-run noise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "schema/counter_table.hpp"
#include "tools/changes/change_points.hpp"
#include "tools/gate/gate_tuning.hpp"
#include "tools/gate/suite_statistics.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {
namespace {

// A suite of 250 benchmarks with the four metrics the gate judges.
constexpr std::size_t kSuiteSeries = 1000;

ChangeOptions SuiteOptions(std::size_t series_tested = kSuiteSeries) {
  ChangeOptions options;
  options.series_tested = series_tested;
  return options;
}

// `runs` values around 100 with a relative between-run sd of `sd`, times `factor(run)`.
template <typename Factor>
std::vector<double> Series(std::size_t runs, double sd, unsigned seed, Factor factor) {
  std::mt19937 random(seed);
  std::normal_distribution<double> noise(0, sd);
  std::vector<double> series;
  for (std::size_t run = 0; run < runs; ++run) {
    series.push_back(100 * (1 + noise(random)) * factor(run));
  }
  return series;
}

std::vector<double> StepSeries(std::size_t runs, double sd, unsigned seed, std::size_t at) {
  return Series(runs, sd, seed, [at](std::size_t run) { return run >= at ? 1.01 : 1.0; });
}

TEST(ChangePoints, NoChangeInNoiseGivesNone) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    const ChangeAnalysis analysis =
        FindChangePoints(Series(200, 0.002, seed, [](std::size_t) { return 1.0; }), SuiteOptions());
    EXPECT_TRUE(analysis.changes.empty()) << "seed " << seed;
    EXPECT_EQ(analysis.not_analysed, "");
    EXPECT_EQ(analysis.runs_analysed, 200u);
  }
}

TEST(ChangePoints, AOnePercentStepIsFoundAtItsRun) {
  // Real H200 between-run sds run from 0.008% (a 1 GiB copy) to 0.2% (a radix sort).
  for (double sd : {0.0002, 0.002}) {
    for (std::size_t at : {3u, 50u, 100u, 197u}) {
      const ChangeAnalysis analysis = FindChangePoints(StepSeries(200, sd, 7, at), SuiteOptions());
      ASSERT_EQ(analysis.changes.size(), 1u) << "sd " << sd << ", step at " << at;
      const ChangePoint& change = analysis.changes.front();
      EXPECT_EQ(change.kind, ChangeKind::kStep);
      EXPECT_EQ(change.first_run, at) << "sd " << sd;
      EXPECT_NEAR(change.change_percent, 1.0, 0.25) << "sd " << sd << ", step at " << at;
      EXPECT_TRUE(change.practical);
      EXPECT_LT(change.p_value, analysis.level);
    }
  }
}

TEST(ChangePoints, AStepAfterTwelveRunsIsFoundFromItsFourthRunOn) {
  // The history issue #50 asks for: 12 reruns, then 4 runs with the change. The gate suite's 24
  // series at sd 0.1% (Gate_Fma's spread at method version 4), and a suite of 1000 series (each
  // at 1e-5) at sd 0.05%: both found in 2000 of 2000 random series (docs/change_points.md has
  // the table; at sd 0.2% a short history finds it in 16-76% of series).
  for (const auto& [series_tested, sd] : {std::pair<std::size_t, double>{24, 0.001},
                                          std::pair<std::size_t, double>{kSuiteSeries, 0.0005}}) {
    const ChangeAnalysis analysis =
        FindChangePoints(StepSeries(16, sd, 3, 12), SuiteOptions(series_tested));
    ASSERT_EQ(analysis.changes.size(), 1u) << series_tested << " series, sd " << sd;
    EXPECT_EQ(analysis.changes.front().first_run, 12u);
    EXPECT_TRUE(analysis.changes.front().practical);
  }
}

TEST(ChangePoints, TwoStepsAreBothFound) {
  // The same way (a staircase, which a line would also follow) and there and back.
  for (double second : {1.01, 1 / 1.01}) {
    const std::vector<double> series = Series(200, 0.002, 11, [second](std::size_t run) {
      return (run >= 60 ? 1.01 : 1.0) * (run >= 140 ? second : 1.0);
    });
    const ChangeAnalysis analysis = FindChangePoints(series, SuiteOptions());
    ASSERT_EQ(analysis.changes.size(), 2u) << "second step " << second;
    EXPECT_EQ(analysis.changes[0].kind, ChangeKind::kStep);
    EXPECT_EQ(analysis.changes[1].kind, ChangeKind::kStep);
    EXPECT_EQ(analysis.changes[0].first_run, 60u);
    EXPECT_EQ(analysis.changes[1].first_run, 140u);
    EXPECT_NEAR(analysis.changes[0].change_percent, 1.0, 0.25);
    EXPECT_NEAR(analysis.changes[1].change_percent, second > 1 ? 1.0 : -1.0, 0.25);
  }
}

TEST(ChangePoints, ADriftIsOneDriftNotAStaircase) {
  // 3% over 200 runs, sd 0.1%: binary segmentation alone cuts it into several significant steps.
  const std::vector<double> series =
      Series(200, 0.001, 5, [](std::size_t run) { return 1 + 0.03 * run / 199.0; });
  const ChangeAnalysis analysis = FindChangePoints(series, SuiteOptions());
  ASSERT_EQ(analysis.changes.size(), 1u);
  const ChangePoint& drift = analysis.changes.front();
  EXPECT_EQ(drift.kind, ChangeKind::kDrift);
  EXPECT_EQ(drift.first_run, 0u);
  EXPECT_EQ(drift.end_run, 200u);
  EXPECT_NEAR(drift.change_percent, 3.0, 0.2);  // the fitted line's rise
  EXPECT_TRUE(drift.practical);
}

TEST(ChangePoints, AFlatStretchThenADriftReportsTheDriftFromNearItsStart) {
  // Flat for 100 runs, then 3% over the next 100: one practical change, a drift that starts
  // within one segment of run 100 (the split that ends the flat stretch may stay a step,
  // below the practical minimum).
  const std::vector<double> series = Series(200, 0.001, 5, [](std::size_t run) {
    return run < 100 ? 1.0 : 1 + 0.03 * (run - 100) / 99.0;
  });
  const ChangeAnalysis analysis = FindChangePoints(series, SuiteOptions());
  ASSERT_EQ(analysis.PracticalChanges(), 1u);
  for (const ChangePoint& change : analysis.changes) {
    if (!change.practical) continue;
    EXPECT_EQ(change.kind, ChangeKind::kDrift);
    EXPECT_GE(change.first_run, 100u);
    EXPECT_LE(change.first_run, 130u);
    EXPECT_EQ(change.end_run, 200u);
  }
}

TEST(ChangePoints, ASignificantChangeBelowTheMinimumIsNotPractical) {
  // 0.3% with sd 0.01%: certain, and below the 0.5% minimum; a floor in the unit works alike.
  const std::vector<double> series =
      Series(40, 0.0001, 2, [](std::size_t run) { return run >= 20 ? 1.003 : 1.0; });
  ChangeAnalysis analysis = FindChangePoints(series, SuiteOptions());
  ASSERT_EQ(analysis.changes.size(), 1u);
  EXPECT_EQ(analysis.changes.front().first_run, 20u);
  EXPECT_FALSE(analysis.changes.front().practical);
  EXPECT_EQ(analysis.PracticalChanges(), 0u);

  ChangeOptions by_unit = SuiteOptions();
  by_unit.minimum_percent = 0;
  by_unit.absolute_floor = 0.25;  // in the series' unit: the change is about 0.3
  EXPECT_TRUE(FindChangePoints(series, by_unit).changes.front().practical);
  by_unit.absolute_floor = 0.35;
  EXPECT_FALSE(FindChangePoints(series, by_unit).changes.front().practical);
}

TEST(ChangePoints, ShortAndConstantSeriesAreNotAnalysedWithTheReason) {
  const ChangeAnalysis short_series = FindChangePoints({1, 2, 3, 4, 5}, SuiteOptions());
  EXPECT_TRUE(short_series.changes.empty());
  EXPECT_EQ(short_series.not_analysed, "5 runs with a value; at least 6 are needed");

  const ChangeAnalysis constant = FindChangePoints(std::vector<double>(20, 0.0), SuiteOptions());
  EXPECT_TRUE(constant.changes.empty());
  EXPECT_EQ(constant.not_analysed, "every run has the same value");
}

TEST(ChangePoints, RunsWithoutTheBenchmarkAreHeldOutAndPositionsKept) {
  // Added at run 5, missing at runs 30 and 31: the step at run 60 is reported at 60.
  std::vector<double> series = StepSeries(100, 0.002, 9, 60);
  const double missing = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t run : {0u, 1u, 2u, 3u, 4u, 30u, 31u}) series[run] = missing;
  const ChangeAnalysis analysis = FindChangePoints(series, SuiteOptions());
  EXPECT_EQ(analysis.runs_analysed, 93u);
  EXPECT_EQ(analysis.runs_held_out, 7u);
  ASSERT_EQ(analysis.changes.size(), 1u);
  EXPECT_EQ(analysis.changes.front().first_run, 60u);

  std::vector<double> mostly_missing(10, missing);
  mostly_missing[2] = mostly_missing[7] = 1;
  EXPECT_EQ(FindChangePoints(mostly_missing, SuiteOptions()).not_analysed,
            "2 runs with a value; at least 6 are needed");
}

TEST(ChangePoints, TheLevelsAgreeWithTheGates) {
  EXPECT_EQ(kChangeFamilyAlpha, kGateHistoryAlpha);
  EXPECT_EQ(kChangeMinimumPercent, kGateHistoryMinimumPercent);
  EXPECT_EQ(SeriesLevel(SuiteOptions()), PerTestAlpha(kGateFamilyAlpha, kSuiteSeries));
}

// --- Real H200 runs ---------------------------------------------------------------------

std::string Data(const std::string& name) {
  return std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/h200/history_gate_v4/" + name;
}

// The gate's four judged metrics (docs/compare.md).
const std::vector<std::string>& JudgedMetrics() {
  static const std::vector<std::string> metrics = {
      std::string(counter::kRealTime), std::string(counter::kBytesMoved),
      std::string(counter::kDramReadBytes), std::string(counter::kDramWriteBytes)};
  return metrics;
}

double MedianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The run's median of `metric` for `benchmark`; NaN where the run lacks either.
double RunMedian(const BenchmarkFile& run, const std::string& benchmark,
                 const std::string& metric) {
  const BenchmarkRecord* record = run.Find(benchmark);
  const MetricSeries* series = record ? record->FindMetric(metric) : nullptr;
  if (!series || series->values.empty()) return std::numeric_limits<double>::quiet_NaN();
  return MedianOf(series->values);
}

std::vector<BenchmarkFile> LoadFiles(const std::vector<std::string>& names) {
  std::vector<BenchmarkFile> files;
  for (const std::string& name : names) files.push_back(LoadBenchmarkFile(Data(name)).value());
  return files;
}

std::vector<std::string> TenRuns() {
  std::vector<std::string> names;
  for (int i = 1; i <= 10; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "run_%02d.json", i);
    names.push_back(name);
  }
  return names;
}

// A practical floor for a byte counter as the gate has it: 2 MiB, or 0.25% of the benchmark's
// traffic where that is more.
ChangeOptions OptionsFor(const std::string& metric, double traffic, std::size_t series_tested) {
  ChangeOptions options = SuiteOptions(series_tested);
  if (metric != counter::kRealTime) {
    options.absolute_floor = std::max(kGateByteFloor, kGateTrafficFractionPercent / 100 * traffic);
  }
  return options;
}

TEST(ChangePointsH200, TenIdenticalRunsGiveNoChange) {
  const std::vector<BenchmarkFile> runs = LoadFiles(TenRuns());
  const std::size_t series_tested = runs.front().benchmarks.size() * JudgedMetrics().size();
  ASSERT_EQ(series_tested, 24u);
  std::size_t analysed = 0;
  for (const BenchmarkRecord& benchmark : runs.front().benchmarks) {
    const double traffic = RunMedian(runs.front(), benchmark.name, counter::kBytesMoved);
    for (const std::string& metric : JudgedMetrics()) {
      std::vector<double> series;
      for (const BenchmarkFile& run : runs)
        series.push_back(RunMedian(run, benchmark.name, metric));
      const ChangeAnalysis analysis =
          FindChangePoints(series, OptionsFor(metric, traffic, series_tested));
      EXPECT_TRUE(analysis.changes.empty()) << benchmark.name << " " << metric;
      analysed += analysis.not_analysed.empty();
    }
  }
  EXPECT_EQ(analysed, 23u);  // Gate_Tiny wrote no DRAM byte in any run: not analysed
}

TEST(ChangePointsH200, ThreeMoreRealRunsOfUntouchedBenchmarksGiveNoChange) {
  // inject_fma1, inject_fma2 and inject_time changed Gate_FmaLong (+1.06%, +2.07%) and Gate_Fma
  // (+2.5%, the last run only); every other benchmark is a real rerun in each of them.
  std::vector<std::string> names = TenRuns();
  names.insert(names.end(), {"inject_fma1.json", "inject_fma2.json", "inject_time.json"});
  const std::vector<BenchmarkFile> runs = LoadFiles(names);
  for (const BenchmarkRecord& benchmark : runs.front().benchmarks) {
    const double traffic = RunMedian(runs.front(), benchmark.name, counter::kBytesMoved);
    for (const std::string& metric : JudgedMetrics()) {
      std::vector<double> series;
      for (const BenchmarkFile& run : runs)
        series.push_back(RunMedian(run, benchmark.name, metric));
      const ChangeAnalysis analysis = FindChangePoints(series, OptionsFor(metric, traffic, 24));
      if (benchmark.name.rfind("Gate_FmaLong", 0) == 0 && metric == counter::kRealTime) {
        // Two changed runs and a third back at the old level is no step of 3 runs.
        continue;
      }
      EXPECT_TRUE(analysis.changes.empty()) << benchmark.name << " " << metric;
    }
  }
}

TEST(ChangePointsH200, TheRealOnePercentFmaStepIsFoundAtItsRun) {
  // Semi-synthetic: only one run of each injection exists. Gate_FmaLong's ten real medians, then
  // three runs at inject_fma1's real level (+1.06%), each carrying a real run's deviation from
  // the ten runs' mean (run_01..03's), as three real reruns of the injected binary would.
  const std::vector<BenchmarkFile> runs = LoadFiles(TenRuns());
  const BenchmarkFile injected = LoadBenchmarkFile(Data("inject_fma1.json")).value();
  const std::string name = "Gate_FmaLong/2112/manual_time";
  std::vector<double> series;
  for (const BenchmarkFile& run : runs) series.push_back(RunMedian(run, name, counter::kRealTime));
  double mean = 0;
  for (double value : series) mean += value / static_cast<double>(series.size());
  const double level = RunMedian(injected, name, counter::kRealTime);
  for (std::size_t i = 0; i < 3; ++i) series.push_back(level * series[i] / mean);
  const ChangeAnalysis analysis = FindChangePoints(series, OptionsFor(counter::kRealTime, 0, 24));
  ASSERT_EQ(analysis.changes.size(), 1u);
  EXPECT_EQ(analysis.changes.front().first_run, 10u);
  EXPECT_NEAR(analysis.changes.front().change_percent, 1.06, 0.05);
  EXPECT_TRUE(analysis.changes.front().practical);
  // The same series in a suite of 1000 series (each at 1e-5): still found.
  EXPECT_EQ(
      FindChangePoints(series, OptionsFor(counter::kRealTime, 0, kSuiteSeries)).PracticalChanges(),
      1u);
}

// --- A real series with real injections (tests/data/h200/series_gpu_84ba34e4) ----------------

std::string SeriesData(const std::string& name) {
  return std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/h200/series_gpu_84ba34e4/" + name;
}

// The twelve plain reruns, then `count` runs of the injection `group` ("fma1_1.json", ...).
std::vector<BenchmarkFile> PlainThen(const std::string& group, int count) {
  std::vector<BenchmarkFile> runs;
  for (int i = 1; i <= 12; ++i) {
    char name[24];
    std::snprintf(name, sizeof name, "plain_%02d.json", i);
    runs.push_back(LoadBenchmarkFile(SeriesData(name)).value());
  }
  for (int i = 1; i <= count; ++i) {
    runs.push_back(
        LoadBenchmarkFile(SeriesData(group + "_" + std::to_string(i) + ".json")).value());
  }
  return runs;
}

// Every practical change of every benchmark x judged metric, as "benchmark metric@first_run".
std::vector<std::string> PracticalChangesOf(const std::vector<BenchmarkFile>& runs,
                                            std::map<std::string, double>* percent) {
  std::vector<std::string> found;
  for (const BenchmarkRecord& benchmark : runs.front().benchmarks) {
    const double traffic = RunMedian(runs.front(), benchmark.name, counter::kBytesMoved);
    for (const std::string& metric : JudgedMetrics()) {
      std::vector<double> series;
      for (const BenchmarkFile& run : runs) {
        series.push_back(RunMedian(run, benchmark.name, metric));
      }
      for (const ChangePoint& change :
           FindChangePoints(series, OptionsFor(metric, traffic, 24)).changes) {
        if (!change.practical) continue;
        const std::string key =
            benchmark.name + " " + metric + "@" + std::to_string(change.first_run);
        found.push_back(key);
        (*percent)[key] = change.change_percent;
      }
    }
  }
  return found;
}

TEST(ChangePointsH200Series, TwelveIdenticalRerunsGiveNoChange) {
  std::map<std::string, double> percent;
  EXPECT_EQ(PracticalChangesOf(PlainThen("", 0), &percent), std::vector<std::string>());
}

TEST(ChangePointsH200Series, ARealOnePercentComputeStepIsFoundAtItsRunAndNothingElse) {
  std::map<std::string, double> percent;
  const std::string step = "Gate_FmaLong/2112/manual_time real_time@12";
  EXPECT_EQ(PracticalChangesOf(PlainThen("fma1", 4), &percent), std::vector<std::string>{step});
  EXPECT_NEAR(percent[step], 1.05, 0.05);
}

TEST(ChangePointsH200Series, ARealOnePercentCopyTimeStepIsFoundAtItsRunAndNothingElse) {
  std::map<std::string, double> percent;
  const std::string step = "Gate_Copy/268435456/manual_time real_time@12";
  EXPECT_EQ(PracticalChangesOf(PlainThen("copytime", 4), &percent), std::vector<std::string>{step});
  EXPECT_NEAR(percent[step], 1.22, 0.05);
}

TEST(ChangePointsH200Series, ARealTwoPercentBytesStepIsFoundInTimeAndBytesOfItsBenchmarkOnly) {
  std::map<std::string, double> percent;
  const std::vector<std::string> found = PracticalChangesOf(PlainThen("bytes", 3), &percent);
  const std::string prefix = "Gate_Copy/268435456/manual_time ";
  EXPECT_NE(std::find(found.begin(), found.end(), prefix + "real_time@12"), found.end());
  EXPECT_NE(std::find(found.begin(), found.end(), prefix + "bytes_moved@12"), found.end());
  EXPECT_NEAR(percent[prefix + "bytes_moved@12"], 2.0, 0.1);
  for (const std::string& change : found) {
    EXPECT_EQ(change.rfind(prefix, 0), 0u) << "a change in another benchmark: " << change;
    EXPECT_EQ(change.substr(change.size() - 3), "@12") << change;
  }
}

// --- The suite-wide false-alarm rate -----------------------------------------------------------

// Each benchmark-metric of the ten real runs: its ten run medians, and the benchmark's traffic.
struct RealSeries {
  std::string metric;
  std::vector<double> medians;
  double traffic = 0;
};

std::vector<RealSeries> LoadRealSeries() {
  const std::vector<BenchmarkFile> runs = LoadFiles(TenRuns());
  std::vector<RealSeries> all;
  for (const BenchmarkRecord& benchmark : runs.front().benchmarks) {
    for (const std::string& metric : JudgedMetrics()) {
      RealSeries series{metric, {}, RunMedian(runs.front(), benchmark.name, counter::kBytesMoved)};
      for (const BenchmarkFile& run : runs) {
        series.medians.push_back(RunMedian(run, benchmark.name, metric));
      }
      all.push_back(std::move(series));
    }
  }
  return all;
}

struct SuiteAlarms {
  int any_practical = 0;  // suites in which some series reported a practical change
  int any_time = 0;       // ... some real_time series any change
  int any_change = 0;     // ... some series any change, practical or not
};

// `suites` suites of 250 benchmarks x 4 metrics, each series `runs` runs drawn with replacement
// from the real ten medians of its kernel's metric (benchmark b takes kernel b mod 6): identical
// reruns with the real between-run noise, its discreteness (byte counters of small kernels) and
// its shape.
SuiteAlarms ResampledSuites(int suites, std::size_t runs, std::size_t series_tested) {
  const std::vector<RealSeries> real = LoadRealSeries();
  const std::size_t kernels = real.size() / JudgedMetrics().size();
  std::mt19937 random(2026);
  std::uniform_int_distribution<std::size_t> pick(0, 9);
  SuiteAlarms alarms;
  std::vector<double> series(runs);
  for (int suite = 0; suite < suites; ++suite) {
    bool change = false, practical = false, time = false;
    for (std::size_t b = 0; b < kSuiteSeries / JudgedMetrics().size(); ++b) {
      for (std::size_t m = 0; m < JudgedMetrics().size(); ++m) {
        const RealSeries& source = real[(b % kernels) * JudgedMetrics().size() + m];
        for (double& value : series) value = source.medians[pick(random)];
        const ChangeAnalysis analysis =
            FindChangePoints(series, OptionsFor(source.metric, source.traffic, series_tested));
        change = change || !analysis.changes.empty();
        practical = practical || analysis.PracticalChanges() > 0;
        time = time || (source.metric == counter::kRealTime && !analysis.changes.empty());
      }
    }
    alarms.any_change += change;
    alarms.any_practical += practical;
    alarms.any_time += time;
  }
  return alarms;
}

// 200 suites of 30 runs: at a true rate of 1%, 6 or more alarms have probability 1.6%
// (binomial); a rate of 5% gives 7 or more with probability 0.87. So at most 6 of 200.
// What counts is a practical change, as the gate counts a change beyond its threshold: the byte
// counters of the small kernels (KBs next to the 2 MiB floor, a few runs 5-10 times the others)
// give significant clusters, which no test at 1e-5 can tell from a step of 3-5 runs; they stay
// below the floor. Time, whose noise is continuous, must give none at all.
TEST(ChangePointsH200, IdenticalRerunsOfA250BenchmarkSuiteReportAChangeAtMostOnePercent) {
  const SuiteAlarms alarms = ResampledSuites(200, 30, kSuiteSeries);
  std::printf(
      "200 suites of 250 benchmarks x 4 metrics x 30 runs: %d with a practical change, %d with "
      "a change of real_time, %d with any change (practical or not)\n",
      alarms.any_practical, alarms.any_time, alarms.any_change);
  EXPECT_LE(alarms.any_practical, 6);
  EXPECT_LE(alarms.any_time, 6);
}

// The control: each series tested at the family's 1% (no suite-wide correction), the same suites
// report changes of time in most of them and practical changes in many (14 and 9 of 20 when
// written), against at most 3% above; so the test above can fail.
TEST(ChangePointsH200, WithoutTheSuiteWideLevelTheSameRerunsReportChanges) {
  const SuiteAlarms alarms = ResampledSuites(20, 30, 1);
  std::printf("20 suites, each series at 1%%: %d with a practical change, %d of real_time\n",
              alarms.any_practical, alarms.any_time);
  EXPECT_GE(alarms.any_practical, 5);
  EXPECT_GE(alarms.any_time, 10);
}

}  // namespace
}  // namespace gpubench::tools
