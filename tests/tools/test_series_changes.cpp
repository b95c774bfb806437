// gpubench-compare --changes (tools/gate/history/series_changes.hpp) and the history gate's last
// step, on real H200 series: tests/data/h200/series_gpu_84ba34e4 (GPU A) and series_gpu_8f0dca1c
// (GPU B), each 12 identical reruns of the gate suite and runs with real injected changes after
// them (their READMEs say what each injection does).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/history/series_changes.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {
namespace {

constexpr char kGpuA[] = "series_gpu_84ba34e4";
constexpr char kGpuB[] = "series_gpu_8f0dca1c";
constexpr char kCopyLarge[] = "Gate_Copy/268435456/manual_time";
constexpr char kFmaLong[] = "Gate_FmaLong/2112/manual_time";

BenchmarkFile Load(const std::string& folder, const std::string& name) {
  const std::string path =
      std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/h200/" + folder + "/" + name;
  detail::Result<BenchmarkFile> file = LoadBenchmarkFile(path);
  EXPECT_TRUE(file.ok()) << path;
  return std::move(file).value();
}

// Appends folder/prefix_1..count (two digits for "plain").
void Add(std::vector<BenchmarkFile>& runs, const std::string& folder, const std::string& prefix,
         int count) {
  for (int i = 1; i <= count; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, prefix == "plain" ? "%s_%02d.json" : "%s_%d.json",
                  prefix.c_str(), i);
    runs.push_back(Load(folder, name));
  }
}

std::vector<const BenchmarkFile*> Pointers(const std::vector<BenchmarkFile>& runs) {
  std::vector<const BenchmarkFile*> pointers;
  for (const BenchmarkFile& run : runs) pointers.push_back(&run);
  return pointers;
}

SeriesReport Analyse(const std::vector<BenchmarkFile>& runs) {
  return AnalyseSeries(Pointers(runs), SeriesOptions{});
}

// "benchmark metric kind@first_run" of every practical change.
std::vector<std::string> Found(const SeriesReport& report) {
  std::vector<std::string> found;
  for (const SeriesChange& change : report.changes) {
    if (!change.practical) continue;
    found.push_back(change.benchmark + " " + change.metric + " " +
                    SeriesChangeKindName(change.kind) + "@" + std::to_string(change.first_run));
  }
  return found;
}

const SeriesChange* Find(const SeriesReport& report, const std::string& benchmark,
                         const std::string& metric) {
  for (const SeriesChange& change : report.changes) {
    if (change.practical && change.benchmark == benchmark && change.metric == metric) {
      return &change;
    }
  }
  return nullptr;
}

bool Contains(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(),
                     [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

void EraseContext(std::vector<BenchmarkFile>& runs, const char* key) {
  for (BenchmarkFile& run : runs) run.context.erase(key);
}

TEST(SeriesChanges, TwelveIdenticalRerunsOnEachOfTwoH200sGiveNoChange) {
  for (const char* gpu : {kGpuA, kGpuB}) {
    std::vector<BenchmarkFile> runs;
    Add(runs, gpu, "plain", 12);
    const SeriesReport report = Analyse(runs);
    EXPECT_EQ(Found(report), std::vector<std::string>()) << gpu;
    EXPECT_EQ(report.gpus, 1u);
    EXPECT_TRUE(report.settings_changes.empty());
    EXPECT_GE(report.series_tested, 20u);  // 6 benchmarks x 4 judged metrics, less all-zero bytes
  }
}

TEST(SeriesChanges, ARealOnePercentBytesStepIsFoundAtItsRunAndCommitInItsBenchmarkOnly) {
  std::vector<BenchmarkFile> runs;
  Add(runs, kGpuB, "plain", 12);
  Add(runs, kGpuB, "bytes1", 4);
  const SeriesReport report = Analyse(runs);
  const std::vector<std::string> found = Found(report);
  ASSERT_FALSE(found.empty());
  for (const std::string& change : found) {
    EXPECT_EQ(change.rfind(std::string(kCopyLarge) + " ", 0), 0u) << change;
    EXPECT_EQ(change.substr(change.size() - 8), " step@12") << change;
  }
  const SeriesChange* bytes = Find(report, kCopyLarge, counter::kBytesMoved);
  ASSERT_NE(bytes, nullptr);
  EXPECT_NEAR(bytes->change_percent, 1.0, 0.05);
  EXPECT_EQ(bytes->direction, ChangeDirection::kRegression);
  EXPECT_EQ(report.runs[bytes->first_run].commit, "y1");
  EXPECT_NE(Find(report, kCopyLarge, counter::kRealTime), nullptr);  // +0.74%: its time too
}

TEST(SeriesChanges, ARealOnePercentComputeStepOnTheSecondGpuIsFoundAndNothingElse) {
  std::vector<BenchmarkFile> runs;
  Add(runs, kGpuB, "plain", 12);
  Add(runs, kGpuB, "fma1", 4);
  const SeriesReport report = Analyse(runs);
  EXPECT_EQ(Found(report), std::vector<std::string>{std::string(kFmaLong) + " real_time step@12"});
  const SeriesChange* step = Find(report, kFmaLong, counter::kRealTime);
  ASSERT_NE(step, nullptr);
  EXPECT_NEAR(step->change_percent, 1.06, 0.05);
  EXPECT_EQ(report.runs[step->first_run].commit, "h1");
}

TEST(SeriesChanges, RowsTakenBesideABusyProcessAreHeldOutWithANote) {
  // The run beside a busy process (every row gpu_shared, its times twice as long) three times at
  // the end: three runs after a "step" of +100%, were they evidence.
  std::vector<BenchmarkFile> runs;
  Add(runs, kGpuB, "plain", 12);
  for (int i = 0; i < 3; ++i) runs.push_back(Load(kGpuB, "shared_1.json"));
  const SeriesReport report = Analyse(runs);
  EXPECT_EQ(Found(report), std::vector<std::string>());
  EXPECT_TRUE(Contains(report.notes, "gpu_shared")) << ::testing::PrintToString(report.notes);
  EXPECT_TRUE(Contains(report.notes, "shared_1.json"));
  // The control: without the flag, those rows are a change in every benchmark.
  for (std::size_t r = 12; r < runs.size(); ++r) {
    for (BenchmarkRecord& record : runs[r].benchmarks) {
      for (MetricSeries& series : record.metrics) {
        if (series.name == counter::kGpuShared)
          std::fill(series.values.begin(), series.values.end(), 0);
      }
    }
  }
  EXPECT_GE(Found(Analyse(runs)).size(), 6u);
}

TEST(SeriesChanges, ASettingsChangeInTheMiddleIsASettingsChangeNotAPerformanceChange) {
  std::vector<BenchmarkFile> runs;
  Add(runs, kGpuA, "plain", 12);
  Add(runs, kGpuA, "keep", 3);  // --gpubench_cache=keep: another fingerprint, other times
  Add(runs, kGpuA, "fma1", 4);
  const SeriesReport report = Analyse(runs);
  ASSERT_EQ(report.settings_changes.size(), 2u);
  EXPECT_EQ(report.settings_changes[0].first_run, 12u);
  EXPECT_EQ(report.settings_changes[1].first_run, 15u);
  // The 1% step of Gate_FmaLong is found across the three runs of other settings.
  EXPECT_EQ(Found(report), std::vector<std::string>{std::string(kFmaLong) + " real_time step@15"});
  // The control: without fingerprints, the cache=keep runs at the end of a series are
  // performance changes (Gate_Tiny 2.9 -> 5.1 us, Gate_Fma -2%). (In the middle, a three-run
  // excursion that returns to its level is beyond binary segmentation's first split: the one
  // stretch of the tested kind it can miss; docs/change_points.md.)
  runs.resize(15);
  EXPECT_EQ(Found(Analyse(runs)), std::vector<std::string>());
  EraseContext(runs, context_key::kSettingsFingerprint);
  EXPECT_TRUE(Contains(Found(Analyse(runs)), "Gate_Tiny/manual_time real_time step@12"));
}

TEST(SeriesChanges, TwoPhysicalH200sShowTheirOffsetAsAGpuChangeNotARegression) {
  std::vector<BenchmarkFile> runs;
  Add(runs, kGpuA, "plain", 12);
  Add(runs, kGpuB, "plain", 12);
  const SeriesReport report = Analyse(runs);
  EXPECT_EQ(report.gpus, 2u);
  for (const SeriesChange& change : report.changes) {
    EXPECT_EQ(change.kind, SeriesChangeKind::kGpu) << change.benchmark << " " << change.metric;
    EXPECT_EQ(change.first_run, 12u);
  }
  const SeriesChange* copy = Find(report, kCopyLarge, counter::kRealTime);
  ASSERT_NE(copy, nullptr);
  EXPECT_NEAR(copy->change_percent, -2.03, 0.1);  // GPU B copies 1 GiB 2% faster, every run
  EXPECT_EQ(copy->direction, ChangeDirection::kGpuOffset);
  EXPECT_EQ(copy->gpu_before.rfind("GPU-84ba34e4", 0), 0u);
  EXPECT_EQ(copy->gpu_after.rfind("GPU-8f0dca1c", 0), 0u);
  const auto spread =
      std::find_if(report.gpu_spreads.begin(), report.gpu_spreads.end(), [](const GpuSpread& s) {
        return s.benchmark == kCopyLarge && s.metric == counter::kRealTime;
      });
  ASSERT_NE(spread, report.gpu_spreads.end());
  EXPECT_GT(spread->share_percent, 80);
  // The control: without the GPU's identity the offset is a step, an "improvement".
  EraseContext(runs, context_key::kGpuUuid);
  const SeriesReport blind = Analyse(runs);
  const SeriesChange* step = Find(blind, kCopyLarge, counter::kRealTime);
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->kind, SeriesChangeKind::kStep);
  EXPECT_EQ(step->direction, ChangeDirection::kImprovement);
}

TEST(SeriesChanges, APoolOfRunnersThatAlternatesGpusGivesNoChangeAndSaysWhatTheGpuExplains) {
  std::vector<BenchmarkFile> a, b, runs;
  Add(a, kGpuA, "plain", 12);
  Add(b, kGpuB, "plain", 12);
  for (std::size_t i = 0; i < 12; ++i) {
    runs.push_back(a[i]);
    runs.push_back(b[i]);
  }
  const SeriesReport report = Analyse(runs);
  EXPECT_EQ(Found(report), std::vector<std::string>());
  const auto spread =
      std::find_if(report.gpu_spreads.begin(), report.gpu_spreads.end(), [](const GpuSpread& s) {
        return s.benchmark == kCopyLarge && s.metric == counter::kRealTime;
      });
  ASSERT_NE(spread, report.gpu_spreads.end());
  EXPECT_GT(spread->share_percent, 99);
  ASSERT_EQ(spread->levels.size(), 2u);
  EXPECT_EQ(spread->levels[0].runs, 12u);
  EXPECT_NEAR(spread->offset_percent, -2.03, 0.1);
}

TEST(SeriesChanges, AStepOnTheSecondGpuIsFoundAfterTheGpuChange) {
  std::vector<BenchmarkFile> runs;
  Add(runs, kGpuA, "plain", 12);
  Add(runs, kGpuB, "plain", 12);
  Add(runs, kGpuB, "bytes1", 4);
  const SeriesReport report = Analyse(runs);
  const SeriesChange* bytes = Find(report, kCopyLarge, counter::kBytesMoved);
  ASSERT_NE(bytes, nullptr);
  EXPECT_EQ(bytes->kind, SeriesChangeKind::kStep);
  EXPECT_EQ(bytes->first_run, 24u);
  EXPECT_EQ(report.runs[bytes->first_run].commit, "y1");
  EXPECT_TRUE(Contains(Found(report), std::string(kCopyLarge) + " real_time gpu@12"));
}

TEST(SeriesChanges, ABenchmarkAddedPartWayIsAnalysedOverTheRunsThatHaveIt) {
  std::vector<BenchmarkFile> runs;
  Add(runs, kGpuB, "plain", 12);
  Add(runs, kGpuB, "fma1", 4);
  for (std::size_t r = 0; r < 4; ++r) {  // Gate_Tiny joins the suite at the fifth run
    auto& benchmarks = runs[r].benchmarks;
    benchmarks.erase(
        std::remove_if(benchmarks.begin(), benchmarks.end(),
                       [](const BenchmarkRecord& b) { return b.name == "Gate_Tiny/manual_time"; }),
        benchmarks.end());
    runs[r].index_by_name.clear();
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
      runs[r].index_by_name[benchmarks[i].name] = i;
    }
  }
  const SeriesReport report = Analyse(runs);
  EXPECT_EQ(Found(report), std::vector<std::string>{std::string(kFmaLong) + " real_time step@12"});
  EXPECT_TRUE(Contains(report.notes, "Gate_Tiny/manual_time: in 12 of 16 runs, added in"))
      << ::testing::PrintToString(report.notes);
}

TEST(SeriesChanges, RunsAreOrderedByDateOrByAnyKeyAndAMissingKeyIsNamed) {
  std::vector<BenchmarkFile> runs;
  Add(runs, kGpuA, "plain", 6);
  std::vector<const BenchmarkFile*> order = Pointers(runs);
  std::reverse(order.begin(), order.end());
  ASSERT_TRUE(OrderRunsBy(order, kRunDateKey).ok());
  EXPECT_EQ(order, Pointers(runs));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i].context["build"] = std::to_string(100 - 10 * i);  // 100, 90, ..., 50: numbers
  }
  ASSERT_TRUE(OrderRunsBy(order, "build").ok());
  EXPECT_EQ(order.front(), &runs.back());  // 50 before 100, which as text would sort first
  // GB's dates are local times with their offsets: in UTC order, not in the text's.
  const char* dates[] = {"2026-12-01T10:00:00+00:00",  "2026-12-01T09:30:00-01:00",
                         "2026-12-01T11:15:00+02:00",  "2026-12-01T10:45:00Z",
                         "2026-12-01T12:00:00.5+0000", "2026-12-02T00:30:00+13:00"};
  // UTC: 10:00, 10:30, 09:15, 10:45, 12:00:00.5, 11:30 (the day before's 11:30).
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i].context[kRunDateKey] = dates[i];
  ASSERT_TRUE(OrderRunsBy(order, kRunDateKey).ok());
  EXPECT_EQ(order, (std::vector<const BenchmarkFile*>{&runs[2], &runs[0], &runs[1], &runs[3],
                                                      &runs[5], &runs[4]}));
  runs[3].context.erase("build");
  const detail::Status missing = OrderRunsBy(order, "build");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("plain_04.json"), std::string::npos) << missing.message();
  EXPECT_NE(missing.message().find("'build'"), std::string::npos);
}

// 100 suites of 252 benchmarks (the six kernels 42 times over) x 30 runs, each benchmark's run
// drawn from GPU A's 12 identical reruns: the real noise, discreteness and shape of each
// kernel's metrics at a user's suite size. At a true rate of 1%, 5 or more of 100 suites with a
// change has probability 0.34%; a rate of 5% gives 4 or fewer with probability 0.44.
TEST(SeriesChanges, A252BenchmarkSuiteOfRealNoiseReportsAChangeAtMostOnePercent) {
  std::vector<BenchmarkFile> plain;
  Add(plain, kGpuA, "plain", 12);
  std::mt19937 random(50);
  std::uniform_int_distribution<std::size_t> pick(0, plain.size() - 1);
  int suites_with_change = 0;
  std::size_t tests = 0;
  for (int suite = 0; suite < 100; ++suite) {
    std::vector<BenchmarkFile> runs(30);
    for (BenchmarkFile& run : runs) {
      run.path = "run.json";
      run.context = plain.front().context;
      for (int copy = 0; copy < 42; ++copy) {
        for (std::size_t b = 0; b < plain.front().benchmarks.size(); ++b) {
          BenchmarkRecord record = plain[pick(random)].benchmarks[b];
          record.name += "#" + std::to_string(copy);
          run.index_by_name[record.name] = run.benchmarks.size();
          run.benchmarks.push_back(std::move(record));
        }
      }
    }
    const SeriesReport report = Analyse(runs);
    tests = report.tests;
    suites_with_change += report.PracticalChanges() > 0;
  }
  std::printf("100 suites of 252 benchmarks x 30 runs (%zu tests each): %d with a change\n", tests,
              suites_with_change);
  EXPECT_GE(tests, 900u);
  EXPECT_LE(suites_with_change, 4);
}

// --- The history gate after a step --------------------------------------------------------------

const BenchmarkComparison* Row(const ComparisonReport& report, const std::string& name) {
  for (const BenchmarkComparison& row : report.benchmarks) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

Verdict TimeVerdict(const BenchmarkComparison& row) {
  for (const MetricComparison& metric : row.metrics) {
    if (metric.name == counter::kRealTime) return metric.verdict;
  }
  return Verdict::kReportOnly;
}

ComparisonReport Gate(const std::vector<BenchmarkFile>& history, const BenchmarkFile& contender,
                      bool whole_history) {
  CompareOptions options;
  options.whole_history = whole_history;
  detail::Result<ComparisonReport> report =
      CompareWithHistory(Pointers(history), contender, options);
  EXPECT_TRUE(report.ok());
  return std::move(report).value();
}

TEST(HistoryGate, AfterAStepIdenticalRerunsPassAndAFurtherOnePercentIsCaught) {
  // GPU B: 12 plain runs, then a deliberate +1.06% of Gate_FmaLong merged (fma1 x4).
  std::vector<BenchmarkFile> history;
  Add(history, kGpuB, "plain", 12);
  Add(history, kGpuB, "fma1", 3);
  const BenchmarkFile rerun = Load(kGpuB, "fma1_4.json");
  const ComparisonReport after_step = Gate(history, rerun, false);
  const BenchmarkComparison* row = Row(after_step, kFmaLong);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(TimeVerdict(*row), Verdict::kSame);
  EXPECT_EQ(after_step.exit_code, kExitOk);
  EXPECT_TRUE(Contains(row->notes, "history since run")) << ::testing::PrintToString(row->notes);
  EXPECT_TRUE(Contains(row->notes, "fma1_1.json (commit h1), 3 runs"));
  EXPECT_FALSE(Contains(Row(after_step, kCopyLarge)->notes, "history since"));

  // A further 1% (fma2: +1.05% over fma1) against the four runs since the step: caught.
  history.push_back(rerun);
  const BenchmarkFile further = Load(kGpuB, "fma2_1.json");
  const ComparisonReport caught = Gate(history, further, false);
  EXPECT_EQ(TimeVerdict(*Row(caught, kFmaLong)), Verdict::kRegression);
  EXPECT_EQ(caught.exit_code, kExitRegression);
  // The control: pooled with the runs before the step, the history's spread (0.45%) hides it.
  const ComparisonReport hidden = Gate(history, further, true);
  EXPECT_NE(TimeVerdict(*Row(hidden, kFmaLong)), Verdict::kRegression);
}

TEST(HistoryGate, AHistoryWithoutAChangeIsPooledWhole) {
  std::vector<BenchmarkFile> history;
  Add(history, kGpuA, "plain", 11);
  const ComparisonReport report = Gate(history, Load(kGpuA, "plain_12.json"), false);
  EXPECT_EQ(report.exit_code, kExitOk);
  for (const BenchmarkComparison& row : report.benchmarks) {
    EXPECT_FALSE(Contains(row.notes, "history since")) << row.name;
  }
}

}  // namespace
}  // namespace gpubench::tools
