#include <gtest/gtest.h>

#include <gpubench/reporter.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "measure/process/process_state.hpp"
#include "schema/counter_table.hpp"

namespace gpubench {
namespace {

// Exposes the console printing for a synthetic run.
class TestableReporter : public CounterReporter {
 public:
  TestableReporter() : CounterReporter(OO_Tabular) {}
  std::string Print(const Run& run) {
    std::ostringstream out;
    SetOutputStream(&out);
    name_field_width_ = 20;
    PrintRunData(run);
    return out.str();
  }
};

// GB 1.8 replaced Run::error_occurred/error_message with skipped/skip_message.
template <class R>
auto MarkError(R& run, const std::string& message, int) -> decltype(run.skip_message, void()) {
  run.skipped = decltype(run.skipped)(2);  // internal::SkippedWithError
  run.skip_message = message;
}
template <class R>
auto MarkError(R& run, const std::string& message, long) -> decltype(run.error_message, void()) {
  run.error_occurred = true;
  run.error_message = message;
}

benchmark::BenchmarkReporter::Run CopyRun() {
  benchmark::BenchmarkReporter::Run run;
  run.run_name.function_name = "BM_Copy/268435456";
  run.run_name.time_type = "manual_time";
  run.iterations = 100;
  run.time_unit = benchmark::kMicrosecond;
  run.real_accumulated_time = 100 * 233e-6;
  run.cpu_accumulated_time = 100 * 240e-6;
  run.counters[counter::kBytesMoved] = benchmark::Counter(2147483648.0);
  run.counters[counter::kDramBandwidth] = benchmark::Counter(4.21e12);
  run.counters[counter::kGpuDuration] = benchmark::Counter(2.33e-4);
  run.counters[counter::kSmClockMhz] = benchmark::Counter(1980.0);
  run.counters[counter::kDramBandwidthPct] = benchmark::Counter(85.6);
  run.counters[counter::kSmClockThrottled] = benchmark::Counter(0.0);
  return run;
}

TEST(Reporter, PrintsGpuTimeAndCountersWithUnits) {
  TestableReporter reporter;
  const std::string line = reporter.Print(CopyRun());
  EXPECT_NE(line.find("BM_Copy/268435456/manual_time"), std::string::npos) << line;
  EXPECT_NE(line.find("233 us"), std::string::npos) << line;
  EXPECT_NE(line.find("bytes_moved=2.15 GB"), std::string::npos) << line;
  EXPECT_NE(line.find("dram_bandwidth=4.21 TB/s"), std::string::npos) << line;
  EXPECT_NE(line.find("gpu_duration=233 us"), std::string::npos) << line;
  EXPECT_NE(line.find("sm_clock_mhz=1980 MHz"), std::string::npos) << line;
  EXPECT_NE(line.find("dram_bandwidth_pct=85.6 %"), std::string::npos) << line;
  EXPECT_NE(line.find("sm_clock_throttled=no"), std::string::npos) << line;
  EXPECT_EQ(line.find("\033["), std::string::npos) << "no colour without OO_Color";
}

TEST(Reporter, MarksRowsOfASharedGpu) {
  TestableReporter reporter;
  benchmark::BenchmarkReporter::Run run = CopyRun();
  EXPECT_EQ(reporter.Print(run).find("GPU SHARED"), std::string::npos);
  run.counters[counter::kGpuShared] = benchmark::Counter(0.0);
  EXPECT_EQ(reporter.Print(run).find("GPU SHARED"), std::string::npos);
  run.counters[counter::kGpuShared] = benchmark::Counter(1.0);
  const std::string line = reporter.Print(run);
  EXPECT_NE(line.find("gpu_shared=yes"), std::string::npos) << line;
  EXPECT_NE(line.find("[GPU SHARED: another process used the GPU]"), std::string::npos) << line;
}

TEST(Reporter, PrintsErrorsInsteadOfNumbers) {
  TestableReporter reporter;
  benchmark::BenchmarkReporter::Run run = CopyRun();
  MarkError(run, "gpubench: no usable CUDA device: cudaErrorNoDevice", 0);
  const std::string line = reporter.Print(run);
  EXPECT_NE(line.find("ERROR OCCURRED: 'gpubench: no usable CUDA device: cudaErrorNoDevice'"),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find(counter::kBytesMoved), std::string::npos) << line;
}

// GB >= 1.8's deliberate skip (state.SkipWithMessage) is no error.
template <class R>
auto MarkSkipped(R& run, const std::string& message, int) -> decltype(run.skip_message, bool()) {
  run.skipped = decltype(run.skipped)(1);  // internal::SkippedWithMessage
  run.skip_message = message;
  return true;
}
template <class R>
bool MarkSkipped(R&, const std::string&, long) {
  return false;
}

// GB >= 1.8: a deliberate skip (SkipWithMessage) reads SKIPPED, as GB's own console says. GB < 1.8
// has no such skip: a benchmark can only skip with an error, which must read as one.
TEST(Reporter, ADeliberateSkipIsNotAnError) {
  TestableReporter reporter;
  benchmark::BenchmarkReporter::Run run = CopyRun();
  if (!MarkSkipped(run, "needs two GPUs", 0)) {
    MarkError(run, "needs two GPUs", 0);
    const std::string line = reporter.Print(run);
    EXPECT_NE(line.find("ERROR OCCURRED: 'needs two GPUs'"), std::string::npos) << line;
    EXPECT_EQ(line.find("SKIPPED"), std::string::npos) << line;
    return;
  }
  const std::string line = reporter.Print(run);
  EXPECT_NE(line.find("SKIPPED: 'needs two GPUs'"), std::string::npos) << line;
  EXPECT_EQ(line.find("ERROR OCCURRED"), std::string::npos) << line;
}

TEST(Reporter, LongNamesAreNeverCut) {
  TestableReporter reporter;
  benchmark::BenchmarkReporter::Run run = CopyRun();
  const std::string long_name = "BM_Templated<" + std::string(600, 'x') + ">/268435456";
  run.run_name.function_name = long_name;
  const std::string line = reporter.Print(run);
  EXPECT_NE(line.find(long_name + "/manual_time"), std::string::npos) << line.size();
  EXPECT_NE(line.find("233 us"), std::string::npos);
  MarkError(run, "gpubench: failed", 0);
  EXPECT_NE(reporter.Print(run).find(long_name + "/manual_time ERROR OCCURRED: 'gpubench: failed'"),
            std::string::npos);
}

TEST(Reporter, CoefficientOfVariationIsShownAsPercent) {
  TestableReporter reporter;
  benchmark::BenchmarkReporter::Run run = CopyRun();
  run.run_type = benchmark::BenchmarkReporter::Run::RT_Aggregate;
  run.aggregate_name = "cv";
  run.aggregate_unit = benchmark::kPercentage;
  // As GB writes a cv row of 10 repetitions of a benchmark timed in ns (the H200 examples):
  // the fraction itself, which must not be scaled by the time unit or the repetition count.
  run.iterations = 10;
  run.time_unit = benchmark::kNanosecond;
  run.real_accumulated_time = 0.012;
  run.cpu_accumulated_time = 0.25;
  run.counters.clear();
  run.counters[counter::kBytesMoved] = benchmark::Counter(0.001);
  run.counters[counter::kSmClockMhz] = benchmark::Counter(0.0005);  // every GPU row carries it
  const std::string line = reporter.Print(run);
  EXPECT_NE(line.find("  1.20 %"), std::string::npos) << line;
  EXPECT_NE(line.find("  25.00 %"), std::string::npos) << line;
  EXPECT_NE(line.find("bytes_moved=0.1 %"), std::string::npos) << line;
}

benchmark::BenchmarkReporter::Run CpuRun(const std::string& name) {
  benchmark::BenchmarkReporter::Run run;
  run.run_name.function_name = name;
  run.iterations = 1000;
  run.time_unit = benchmark::kNanosecond;
  run.real_accumulated_time = 1000 * 52e-9;
  run.cpu_accumulated_time = 1000 * 51e-9;
  return run;
}

// The header lines (the ones between dashed lines) and the rows, in order.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of('-') != std::string::npos) lines.push_back(line);
  }
  return lines;
}

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// GB averages every counter into its aggregate rows; a code averaged is no code (1 and 6 x 9 make
// a stop_reason of 5.5). The reporters keep codes in the repetitions' rows only.
TEST(Reporter, CodesAreNeverAveragedIntoAggregateRows) {
  std::vector<benchmark::BenchmarkReporter::Run> runs(2, CopyRun());
  runs[0].counters[counter::kStopReason] = benchmark::Counter(1.0);
  runs[0].counters[counter::kClockEventReasons] = benchmark::Counter(4.0);
  runs[1].run_type = benchmark::BenchmarkReporter::Run::RT_Aggregate;
  runs[1].aggregate_name = "mean";
  runs[1].counters[counter::kStopReason] = benchmark::Counter(5.5);
  runs[1].counters[counter::kClockEventReasons] = benchmark::Counter(2.0);
  runs[1].counters[counter::kPrecisionPct] = benchmark::Counter(0.1);
  std::ostringstream out;
  TestableReporter reporter;
  reporter.SetOutputStream(&out);
  reporter.ReportRuns(runs);
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_GE(lines.size(), 3u) << out.str();
  const std::string& repetition = lines[lines.size() - 2];
  const std::string& mean = lines.back();
  EXPECT_NE(repetition.find("stop_reason=precision"), std::string::npos) << repetition;
  EXPECT_NE(repetition.find("clock_event_reasons=sw_power_cap"), std::string::npos) << repetition;
  EXPECT_EQ(mean.find(counter::kStopReason), std::string::npos) << mean;
  EXPECT_EQ(mean.find(counter::kClockEventReasons), std::string::npos) << mean;
  EXPECT_NE(mean.find("precision_pct=0.1 %"), std::string::npos) << mean;
}

// A suite that mixes plain CPU benchmarks with GPU ones: each time sits under a header that
// says what it is, and a new header comes whenever the kind of time changes.
TEST(Reporter, MixedRowsEachComeUnderTheirOwnTimeTitle) {
  for (auto options :
       {benchmark::ConsoleReporter::OO_Tabular, benchmark::ConsoleReporter::OO_None}) {
    CounterReporter reporter(options);
    std::ostringstream out;
    reporter.SetOutputStream(&out);
    reporter.SetErrorStream(&out);
    benchmark::BenchmarkReporter::Run failed = CopyRun();
    failed.run_name.function_name = "BM_Failed";
    failed.counters.clear();
    MarkError(failed, "gpubench: no usable CUDA device: cudaErrorNoDevice", 0);
    benchmark::BenchmarkReporter::Run cpu_with_counter = CpuRun("BM_HostCounter");
    cpu_with_counter.counters["items"] = benchmark::Counter(7.0);
    reporter.ReportRuns({CpuRun("BM_HostSort"), CopyRun(), failed, CopyRun(),
                         CpuRun("BM_HostParse"), cpu_with_counter});
    const std::vector<std::string> lines = Lines(out.str());
    ASSERT_EQ(lines.size(), options == benchmark::ConsoleReporter::OO_Tabular ? 10u : 9u)
        << out.str();
    size_t i = 0;
    auto expect_header = [&](bool gpu) {
      ASSERT_LT(i, lines.size());
      const std::string& line = lines[i++];
      EXPECT_TRUE(StartsWith(line, "Benchmark")) << line;
      EXPECT_EQ(line.find("GPU time") != std::string::npos, gpu) << line;
      EXPECT_EQ(line.find("GPU counters") != std::string::npos, gpu) << line;
      if (!gpu) EXPECT_NE(line.find(" Time "), std::string::npos) << line;
    };
    auto expect_row = [&](const std::string& name) {
      ASSERT_LT(i, lines.size());
      EXPECT_TRUE(StartsWith(lines[i++], name)) << lines[i - 1] << " is not " << name;
    };
    expect_header(false);
    expect_row("BM_HostSort");
    expect_header(true);
    expect_row("BM_Copy/268435456/manual_time");
    expect_row("BM_Failed");  // an error row has no time: no new header
    expect_row("BM_Copy/268435456/manual_time");
    expect_header(false);
    expect_row("BM_HostParse");
    // GB's tabular mode titles each counter column: a new GB header for new counters.
    if (options == benchmark::ConsoleReporter::OO_Tabular) expect_header(false);
    expect_row("BM_HostCounter");
    // The CPU rows are GB's own: GB's time format, no gpubench units.
    const std::string text = out.str();
    EXPECT_NE(text.find("BM_HostSort"), std::string::npos);
    EXPECT_NE(text.find("52.0 ns"), std::string::npos) << text;
  }
}

TEST(Reporter, GpuTimeIsRecognisedByGpubenchsClockCounters) {
  EXPECT_TRUE(CounterReporter::IsGpuTimed(CopyRun()));
  EXPECT_FALSE(CounterReporter::IsGpuTimed(CpuRun("BM_HostSort")));
  benchmark::BenchmarkReporter::Run failed = CopyRun();
  MarkError(failed, "gpubench: no usable CUDA device", 0);
  EXPECT_FALSE(CounterReporter::IsGpuTimed(failed));
}

TEST(Reporter, BannerNamesSettingsAndDevice) {
  Settings settings;
  settings.metrics = DefaultMetrics();
  detail::DeviceFacts facts;
  facts.available = true;
  facts.name = "NVIDIA H200";
  facts.compute_capability_major = 9;
  facts.sm_count = 132;
  facts.l2_bytes = 62914560;
  facts.sm_clock_rated_mhz = 1980;
  detail::ProcessState::Get().ResetForTesting();
  detail::ProcessState::Get().harness.Configure(settings, facts);
  CounterReporter reporter(benchmark::ConsoleReporter::OO_None);
  std::ostringstream out;
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&out);
  benchmark::BenchmarkReporter::Context context;
  reporter.ReportContext(context);
  detail::ProcessState::Get().ResetForTesting();
  const std::string text = out.str();
  EXPECT_NE(text.find("NVIDIA H200 (sm_90, 132 SMs"), std::string::npos) << text;
  EXPECT_NE(text.find("rated SM clock 1980 MHz"), std::string::npos) << text;
  EXPECT_NE(text.find("timer=events cache=flush clock_control=none"), std::string::npos) << text;
  EXPECT_NE(text.find("rows under a \"GPU time\" header: GPU time per iteration"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("under GB's \"Time\" header: GB's own time"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpubench
