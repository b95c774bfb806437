// The check for state.PauseTiming() inside gpubench::Loop: the comparison of GB's CPU time with
// gpubench's reading, the matching of readings to GB's rows, and the marking of the rows.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "frontend/hooks/paused_rows.hpp"
#include "frontend/hooks/self_timed_rows.hpp"
#include "measure/checks/paused_timing.hpp"
#include "measure/process/process_access.hpp"
#include "measure/process/process_state.hpp"
#include "schema/counter_table.hpp"

namespace gpubench::testing {
namespace {

using detail::ComparePausedTiming;
using detail::PausedTiming;
using Row = benchmark::BenchmarkReporter::Run;

TEST(ComparePausedTiming, ToleratesTheReadsOffsetAndFlagsEitherDirection) {
  // 200 us + 0.1%: 1 s of CPU tolerates 1.2 ms.
  EXPECT_EQ(ComparePausedTiming(1.0, 1.0 - 1.19e-3, false), PausedTiming::kConsistent);
  EXPECT_EQ(ComparePausedTiming(1.0, 1.0 - 1.21e-3, false), PausedTiming::kLower);
  EXPECT_EQ(ComparePausedTiming(1.0, 1.0 + 1.21e-3, false), PausedTiming::kHigher);
  // A short call: the 200 us dominate. The 51 us a 2-vCPU CI machine added to an unpaused 3 ms
  // call stay consistent; a pause of 300 us in each of 9 bodies does not.
  EXPECT_EQ(ComparePausedTiming(3.148e-3, 3.199e-3, false), PausedTiming::kConsistent);
  EXPECT_EQ(ComparePausedTiming(3.418e-3, 267.7e-6, false), PausedTiming::kLower);
  EXPECT_EQ(ComparePausedTiming(1e-3, 1.21e-3, false), PausedTiming::kHigher);
  EXPECT_EQ(ComparePausedTiming(1e-3, 0.79e-3, false), PausedTiming::kLower);
}

TEST(ComparePausedTiming, ProcessCpuTimeMayExceedTheThreadsWithoutAPause) {
  EXPECT_EQ(ComparePausedTiming(0.1, 0.5, true), PausedTiming::kConsistent);
  EXPECT_EQ(ComparePausedTiming(0.1, 0.05, true), PausedTiming::kLower);
}

TEST(ThreadCpuSeconds, AdvancesWithWorkOnThisThread) {
  const double start = detail::ThreadCpuSeconds();
  volatile double sink = 0;
  for (int i = 0; i < 20000000 && detail::ThreadCpuSeconds() - start < 2e-3; ++i) sink += i;
  EXPECT_GE(detail::ThreadCpuSeconds() - start, 2e-3);
}

TEST(CallReadings, ClaimKeepsTheRepetitionsAndDropsTheTrials) {
  detail::CallReadings readings;
  readings.Record("BM_A", 1, 0.001);   // GB's iteration-count trials
  readings.Record("BM_A", 100, 0.1);   // repetition 0 (the last trial)
  readings.Record("BM_B", 10, 0.5);    // another instance, interleaved
  readings.Record("BM_A", 100, 0.11);  // repetition 1
  const auto& a = readings.Claim("BM_A");
  EXPECT_EQ(a.iterations, 100);
  EXPECT_EQ(a.seconds, (std::vector<double>{0.1, 0.11}));
  // The file reporter sees the same rows after the display: the same claim.
  EXPECT_EQ(readings.Claim("BM_A").seconds, (std::vector<double>{0.1, 0.11}));
  EXPECT_EQ(readings.Claim("BM_B").seconds, (std::vector<double>{0.5}));
  // The name runs again (a second registration): its new call replaces the old claim.
  readings.Record("BM_A", 50, 0.2);
  EXPECT_EQ(readings.Claim("BM_A").iterations, 50);
  EXPECT_EQ(readings.Claim("BM_A").seconds, (std::vector<double>{0.2}));
  EXPECT_TRUE(readings.Claim("BM_C").seconds.empty());
}

Row GpuRow(const std::string& family, const std::string& args, int64_t iterations,
           double cpu_seconds) {
  Row run;
  run.run_name.function_name = family;
  run.run_name.args = args;
  run.run_name.time_type = "manual_time";
  run.iterations = iterations;
  run.cpu_accumulated_time = cpu_seconds;
  run.counters[counter::kSmClockMhz] = 1980;
  return run;
}

Row Aggregate(Row run, const std::string& name, int repetitions) {
  run.run_type = Row::RT_Aggregate;
  run.aggregate_name = name;
  // GB's aggregates: the iteration count is the repetition count, and the accumulated time is
  // scaled by repetitions / iterations of a repetition.
  run.cpu_accumulated_time *=
      static_cast<double>(repetitions) / static_cast<double>(run.iterations);
  run.iterations = repetitions;
  return run;
}

class MarkPausedTimingTest : public ::testing::Test {
 protected:
  void SetUp() override { process_.ResetForTesting(); }
  void TearDown() override { process_.ResetForTesting(); }
  detail::ProcessState& process_ = detail::ProcessState::Get();
};

TEST_F(MarkPausedTimingTest, NamesMatchGbsRowsWithNamedArgumentsAndDeviceTags) {
  Row run = GpuRow("BM_Copy", "n:1048576/8", 1, 0);
  EXPECT_EQ(detail::InstanceNameOfRun(run), "BM_Copy/1048576/8");
  run.run_name.args = "";
  EXPECT_EQ(detail::InstanceNameOfRun(run), "BM_Copy");

  // One device of a --gpubench_devices run: the loop tagged its name, the row is not yet.
  process_.tagged_device = 1;
  process_.timed_cpu.Record("BM_Copy/4/gpu:1", 10, 0.010);
  std::vector<Row> rows = {GpuRow("BM_Copy", "4", 10, 0.004)};
  ::testing::internal::CaptureStderr();
  detail::MarkPausedTiming(&rows, process_.timed_cpu, process_.tagged_device);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rows[0].counters.count(counter::kTimingPaused), 1u);
  EXPECT_NE(err.find("gpubench: BM_Copy/4/gpu:1: GB's CPU time"), std::string::npos) << err;
}

TEST_F(MarkPausedTimingTest, AggregatesOnlyAreJudgedThroughTheirMean) {
  // --benchmark_display_aggregates_only: the display sees the aggregates first, the file
  // reporter the repetitions after them.
  for (double cpu : {0.10, 0.12, 0.11}) process_.timed_cpu.Record("BM_X", 100, cpu);
  const Row rep0 = GpuRow("BM_X", "", 100, 0.05);
  std::vector<Row> aggregates = {Aggregate(GpuRow("BM_X", "", 100, 0.05), "mean", 3),
                                 Aggregate(GpuRow("BM_X", "", 100, 0.05), "median", 3)};
  ::testing::internal::CaptureStderr();
  detail::MarkPausedTiming(&aggregates, process_.timed_cpu, process_.tagged_device);
  std::vector<Row> repetitions = {rep0, GpuRow("BM_X", "", 100, 0.12), rep0};
  for (int i = 0; i < 3; ++i) repetitions[i].repetition_index = i;
  detail::MarkPausedTiming(&repetitions, process_.timed_cpu, process_.tagged_device);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(aggregates[0].counters.count(counter::kTimingPaused), 1u);
  EXPECT_EQ(aggregates[1].counters.count(counter::kTimingPaused), 1u);
  EXPECT_EQ(repetitions[0].counters.count(counter::kTimingPaused), 1u);
  EXPECT_EQ(repetitions[1].counters.count(counter::kTimingPaused), 0u);  // 0.12 s as read
  EXPECT_EQ(repetitions[2].counters.count(counter::kTimingPaused), 1u);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "said once: " << err;
}

TEST_F(MarkPausedTimingTest, RowsWithoutAReadingOrNotGpuTimedPassUnchanged) {
  process_.timed_cpu.Record("BM_Gpu", 10, 0.5);
  Row cpu_row = GpuRow("BM_Gpu", "", 10, 0.1);
  cpu_row.counters.clear();  // GB's own benchmark of the same name: not timed by gpubench
  std::vector<Row> rows = {cpu_row, GpuRow("BM_Other", "", 10, 0.1), GpuRow("BM_Gpu", "", 10, 0.5)};
  ::testing::internal::CaptureStderr();
  detail::MarkPausedTiming(&rows, process_.timed_cpu, process_.tagged_device);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  for (const Row& row : rows) EXPECT_EQ(row.counters.count(counter::kTimingPaused), 0u);
}

// The reporters' entry point takes the readings and the device tag from the process state, and
// its messages share the process's once-only record (process_access.hpp).
TEST_F(MarkPausedTimingTest, ReportedRowsAreCheckedAgainstTheProcesssReadingsAndTag) {
  process_.tagged_device = 1;
  process_.timed_cpu.Record("BM_Copy/4/gpu:1", 10, 0.010);
  EXPECT_EQ(detail::TaggedDevice(), std::optional<int>(1));
  EXPECT_EQ(&detail::TimedCpuReadings(), &process_.timed_cpu);
  EXPECT_EQ(&detail::TimedGpuReadings(), &process_.timed_gpu);
  std::vector<Row> rows = {GpuRow("BM_Copy", "4", 10, 0.004)};
  ::testing::internal::CaptureStderr();
  detail::CheckReportedRows(&rows);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rows[0].counters.count(counter::kTimingPaused), 1u);
  EXPECT_FALSE(detail::FirstTime("timing_paused:BM_Copy/4/gpu:1")) << "said already";
  EXPECT_TRUE(detail::FirstTime("another message"));
  EXPECT_FALSE(process_.policy.FirstTime("another message"));
}

}  // namespace
}  // namespace gpubench::testing
