#include "tools/gate/comparison.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/base/student_t.hpp"
#include "tools/base/text.hpp"
#include "tools/compare/report_format.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct FakeBenchmark {
  std::string name;
  std::vector<double> real_time_us;
  std::map<std::string, std::vector<double>> counters = {};
};

// Builds a GB-shaped file in memory and loads it through the real parser.
BenchmarkFile MakeFile(const std::string& path, const std::vector<FakeBenchmark>& benchmarks,
                       const std::map<std::string, std::string>& context = {}) {
  nlohmann::json doc;
  doc["context"] = context;
  doc["benchmarks"] = nlohmann::json::array();
  for (const FakeBenchmark& benchmark : benchmarks) {
    const int repetitions = static_cast<int>(benchmark.real_time_us.size());
    for (int r = 0; r < repetitions; ++r) {
      nlohmann::json row = {{"name", benchmark.name},
                            {"run_name", benchmark.name},
                            {"run_type", "iteration"},
                            {"repetitions", repetitions},
                            {"repetition_index", r},
                            {counter::kRealTime, benchmark.real_time_us[r]},
                            {counter::kCpuTime, benchmark.real_time_us[r]},
                            {"time_unit", "us"}};
      for (const auto& [counter, values] : benchmark.counters) row[counter] = values.at(r);
      doc["benchmarks"].push_back(row);
    }
  }
  return ParseBenchmarkJson(doc.dump(), path).value();
}

const MetricComparison& Metric(const ComparisonReport& report, const std::string& benchmark,
                               const std::string& metric) {
  for (const BenchmarkComparison& b : report.benchmarks) {
    if (b.name != benchmark) continue;
    for (const MetricComparison& m : b.metrics) {
      if (m.name == metric) return m;
    }
  }
  throw std::runtime_error("no metric " + metric + " for " + benchmark);
}

const BenchmarkComparison& Bench(const ComparisonReport& report, const std::string& name) {
  for (const BenchmarkComparison& b : report.benchmarks) {
    if (b.name == name) return b;
  }
  throw std::runtime_error("no benchmark " + name);
}

const std::vector<double> kFive = {100, 100.2, 99.8, 100.4, 99.6};
std::vector<double> Scaled(const std::vector<double>& values, double factor) {
  std::vector<double> out;
  for (double v : values) out.push_back(v * factor);
  return out;
}

TEST(Compare, RegressionNeedsSignificanceAndThreshold) {
  const auto base = MakeFile("b.json", {{"slow", kFive}, {"tiny", kFive}});
  const auto cont =
      MakeFile("c.json", {{"slow", Scaled(kFive, 1.2)}, {"tiny", Scaled(kFive, 1.005)}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  const MetricComparison& slow = Metric(report, "slow", counter::kRealTime);
  EXPECT_EQ(slow.verdict, Verdict::kRegression);
  EXPECT_NEAR(slow.change_percent, 20.0, 1e-9);
  ASSERT_TRUE(slow.p_value.has_value());
  EXPECT_NEAR(*slow.p_value, 0.007936507936507936, 1e-12);  // exact, 5 vs 5 separated
  EXPECT_TRUE(slow.fails_gate);
  // Significant, but +0.5% is inside the 1.75% minimum.
  EXPECT_EQ(Metric(report, "tiny", counter::kRealTime).verdict, Verdict::kSame);
  EXPECT_EQ(report.exit_code, kExitRegression);
  EXPECT_EQ(report.summary.regressions, 1u);
}

TEST(Compare, ImprovementNeverFails) {
  const auto base = MakeFile("b.json", {{"fast", kFive}});
  const auto cont = MakeFile("c.json", {{"fast", Scaled(kFive, 0.5)}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_EQ(Metric(report, "fast", counter::kRealTime).verdict, Verdict::kImprovement);
  EXPECT_EQ(report.exit_code, kExitOk);
  EXPECT_EQ(report.summary.improvements, 1u);
}

TEST(Compare, OverlappingSamplesAreSameEvenBeyondThreshold) {
  // Medians differ by 11.6% but the samples overlap: scipy.stats.mannwhitneyu(
  // [100,130,90,125,95,128], [125,92,131,89,127,126]) gives p = 1.0.
  const auto base = MakeFile("b.json", {{"noisy", {100, 130, 90, 125, 95, 128}}});
  const auto cont = MakeFile("c.json", {{"noisy", {125, 92, 131, 89, 127, 126}}});
  CompareOptions options;
  options.overrides.thresholds[counter::kRealTime] = 5.0;  // as given: the noise does not raise it
  const ComparisonReport report = CompareFiles(base, cont, options).value();
  const MetricComparison& noisy = Metric(report, "noisy", counter::kRealTime);
  EXPECT_GT(std::fabs(noisy.change_percent), 5.0);
  EXPECT_EQ(noisy.verdict, Verdict::kSame);
  EXPECT_THAT(noisy.notes.at(0), HasSubstr("not significant"));
}

TEST(Compare, NoRepetitionsGivesUnconfirmedWhichFailsByDefault) {
  const auto base = MakeFile("b.json", {{"one", {100}}});
  const auto cont = MakeFile("c.json", {{"one", {120}}});
  CompareOptions options;
  ComparisonReport report = CompareFiles(base, cont, options).value();
  const MetricComparison& one = Metric(report, "one", counter::kRealTime);
  EXPECT_EQ(one.verdict, Verdict::kUnconfirmed);
  EXPECT_TRUE(one.worse);
  EXPECT_FALSE(one.p_value.has_value());
  EXPECT_THAT(one.notes.at(0), HasSubstr("--benchmark_repetitions=4"));
  EXPECT_EQ(report.exit_code, kExitRegression);
  EXPECT_EQ(report.summary.unconfirmed_regressions, 1u);

  options.unconfirmed = UnconfirmedPolicy::kWarn;
  report = CompareFiles(base, cont, options).value();
  EXPECT_EQ(report.exit_code, kExitOk);
}

TEST(Compare, TwoRepetitionsCannotReachSignificanceAndSaySo) {
  const auto base = MakeFile("b.json", {{"two", {100, 101}}});
  const auto cont = MakeFile("c.json", {{"two", {130, 131}}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  const MetricComparison& two = Metric(report, "two", counter::kRealTime);
  EXPECT_EQ(two.verdict, Verdict::kUnconfirmed);
  EXPECT_NEAR(*two.p_value, 1.0 / 3, 1e-12);
  EXPECT_THAT(two.notes.at(0), HasSubstr("p can never be < 0.05; needs >= 4 repetitions"));
}

TEST(Compare, DeterministicCountersAreJudgedOnMediansWithoutRepetitions) {
  const auto base = MakeFile("b.json", {{"k", {100}, {{counter::kDramWriteBytes, {1e9}}}}});
  const auto cont = MakeFile("c.json", {{"k", {100}, {{counter::kDramWriteBytes, {1.02e9}}}}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_EQ(Metric(report, "k", counter::kDramWriteBytes).verdict, Verdict::kRegression);
  EXPECT_EQ(report.exit_code, kExitRegression);
}

// dram_bandwidth is bytes_moved over one profiled range: its inputs are judged (bytes_moved,
// and the time through real_time), so it is reported; --threshold gates it, higher is better.
TEST(Compare, BandwidthIsReportedUnlessGivenAThresholdAndHigherIsBetter) {
  const std::vector<double> moved(5, 1e8);
  const auto base = MakeFile(
      "b.json", {{"k",
                  kFive,
                  {{counter::kDramBandwidth, Scaled(kFive, 1e9)}, {counter::kBytesMoved, moved}}}});
  const auto cont = MakeFile(
      "c.json",
      {{"k",
        kFive,
        {{counter::kDramBandwidth, Scaled(kFive, 0.8e9)}, {counter::kBytesMoved, moved}}}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  const MetricComparison& reported = Metric(report, "k", counter::kDramBandwidth);
  EXPECT_EQ(reported.verdict, Verdict::kReportOnly);
  EXPECT_NEAR(reported.change_percent, -20.0, 1e-9);
  EXPECT_EQ(report.exit_code, kExitOk);
  CompareOptions options;
  options.overrides.thresholds[counter::kDramBandwidth] = 5.0;
  const ComparisonReport gated = CompareFiles(base, cont, options).value();
  EXPECT_EQ(Metric(gated, "k", counter::kDramBandwidth).verdict, Verdict::kRegression);
  // The other way round it is an improvement: higher is better.
  EXPECT_EQ(Metric(CompareFiles(cont, base, options).value(), "k", counter::kDramBandwidth).verdict,
            Verdict::kImprovement);
}

TEST(Compare, UnknownCountersAreReportOnlyUnlessGivenAThreshold) {
  const auto base = MakeFile("b.json", {{"k", kFive, {{"warps", Scaled(kFive, 1)}}}});
  const auto cont = MakeFile("c.json", {{"k", kFive, {{"warps", Scaled(kFive, 2)}}}});
  CompareOptions options;
  EXPECT_EQ(Metric(CompareFiles(base, cont, options).value(), "k", "warps").verdict,
            Verdict::kReportOnly);
  options.overrides.thresholds["warps"] = 10.0;
  EXPECT_EQ(Metric(CompareFiles(base, cont, options).value(), "k", "warps").verdict,
            Verdict::kRegression);
  options.overrides.directions["warps"] = Direction::kHigherIsBetter;
  EXPECT_EQ(Metric(CompareFiles(base, cont, options).value(), "k", "warps").verdict,
            Verdict::kImprovement);
}

TEST(Compare, ThresholdOverrideChangesTheVerdict) {
  const auto base = MakeFile("b.json", {{"k", kFive}});
  const auto cont = MakeFile("c.json", {{"k", Scaled(kFive, 1.2)}});
  CompareOptions options;
  options.overrides.thresholds[counter::kRealTime] = 25.0;
  EXPECT_EQ(CompareFiles(base, cont, options).value().exit_code, kExitOk);
  options.overrides.thresholds[counter::kRealTime] = std::nullopt;
  EXPECT_EQ(Metric(CompareFiles(base, cont, options).value(), "k", counter::kRealTime).verdict,
            Verdict::kReportOnly);
}

TEST(Compare, MissingNewAndFailedBenchmarks) {
  const BenchmarkFile base = ParseBenchmarkJson(R"({"benchmarks": [
      {"name": "gone", "real_time": 1, "time_unit": "ns"},
      {"name": "breaks", "real_time": 1, "time_unit": "ns"},
      {"name": "was_broken", "error_occurred": true, "error_message": "old"}]})",
                                                "b.json")
                                 .value();
  const BenchmarkFile cont = ParseBenchmarkJson(R"({"benchmarks": [
      {"name": "breaks", "error_occurred": true, "error_message": "launch failed"},
      {"name": "was_broken", "real_time": 1, "time_unit": "ns"},
      {"name": "added", "real_time": 1, "time_unit": "ns"}]})",
                                                "c.json")
                                 .value();
  CompareOptions options;
  ComparisonReport report = CompareFiles(base, cont, options).value();
  EXPECT_EQ(Bench(report, "gone").status, BenchmarkStatus::kMissing);
  EXPECT_FALSE(Bench(report, "gone").fails_gate);
  EXPECT_EQ(Bench(report, "breaks").status, BenchmarkStatus::kFailedInContender);
  EXPECT_EQ(Bench(report, "breaks").failure_message, "error: launch failed");
  EXPECT_TRUE(Bench(report, "breaks").fails_gate);
  EXPECT_EQ(Bench(report, "was_broken").status, BenchmarkStatus::kFailedInBaseline);
  EXPECT_EQ(Bench(report, "added").status, BenchmarkStatus::kNew);
  EXPECT_EQ(report.exit_code, kExitRegression);
  EXPECT_EQ(report.summary.failing, 1u);

  options.fail_on_missing = true;
  report = CompareFiles(base, cont, options).value();
  EXPECT_TRUE(Bench(report, "gone").fails_gate);
  EXPECT_EQ(report.summary.failing, 2u);
}

TEST(Compare, ZeroBaselineTimeIsBadInputButZeroCountersAreInfiniteChange) {
  const BenchmarkFile base =
      LoadBenchmarkFile(std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/zero_time_baseline.json")
          .value();
  const BenchmarkFile cont =
      LoadBenchmarkFile(std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/zero_time_contender.json")
          .value();
  const auto refused = CompareFiles(base, cont, CompareOptions{});
  ASSERT_FALSE(refused.ok()) << "expected invalid input for the zero baseline time";
  EXPECT_EQ(refused.status().code(), gpubench::detail::Status::Code::kInvalidInput);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("zero_time_baseline.json: benchmark \"BM_NeverTimed\": real_time is 0"));
  CompareOptions options;
  options.overrides.thresholds[counter::kRealTime] = std::nullopt;  // as the message suggests
  const ComparisonReport report = CompareFiles(base, cont, options).value();
  const MetricComparison& bytes = Metric(report, "BM_Fine", counter::kDramReadBytes);
  EXPECT_TRUE(std::isinf(bytes.change_percent));
  // 0 -> 4096 bytes: an infinite relative change, but below the 2 MiB floor.
  EXPECT_EQ(bytes.verdict, Verdict::kSame);
  EXPECT_THAT(bytes.threshold_source, HasSubstr("floor 2 MiB"));
  EXPECT_TRUE(std::isinf(Metric(report, "BM_NeverTimed", counter::kRealTime).change_percent));
}

// A byte counter that was 0 and is now far above its floor is a regression (0 -> 100 MB of DRAM
// writes): the floor's share of a 0 baseline is infinite, and the absolute check decides.
TEST(Compare, AByteCounterFromZeroToFarAboveItsFloorFails) {
  const std::vector<double> zero(5, 0.0), written(5, 1e8), read(5, 1e8);
  const auto base =
      MakeFile("b.json",
               {{"k", kFive, {{counter::kDramWriteBytes, zero}, {counter::kDramReadBytes, read}}}});
  const auto cont = MakeFile(
      "c.json",
      {{"k", kFive, {{counter::kDramWriteBytes, written}, {counter::kDramReadBytes, read}}}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  const MetricComparison& writes = Metric(report, "k", counter::kDramWriteBytes);
  EXPECT_TRUE(std::isinf(writes.change_percent));
  EXPECT_EQ(writes.verdict, Verdict::kRegression);
  EXPECT_TRUE(writes.fails_gate);
  EXPECT_EQ(report.exit_code, kExitRegression);
  // Back to 0 is an improvement, not a failure.
  const ComparisonReport back = CompareFiles(cont, base, CompareOptions{}).value();
  EXPECT_EQ(Metric(back, "k", counter::kDramWriteBytes).verdict, Verdict::kImprovement);
  EXPECT_EQ(back.exit_code, kExitOk);
}

// A --threshold for a metric no benchmark has (a typo) changes nothing, and the report says so.
TEST(Compare, AThresholdForAMetricNoBenchmarkHasIsAWarning) {
  const auto base = MakeFile("b.json", {{"k", kFive}});
  const auto cont = MakeFile("c.json", {{"k", kFive}});
  CompareOptions options;
  options.overrides.thresholds["real_tme"] = 5.0;
  options.overrides.thresholds[counter::kRealTime] = 5.0;
  const ComparisonReport report = CompareFiles(base, cont, options).value();
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_THAT(report.warnings[0], HasSubstr("real_tme: no benchmark of the contender has"));
}

// Ten repetitions around `center` with a coefficient of variation of about `cv_percent`.
std::vector<double> Repetitions(double center, double cv_percent) {
  const double pattern[] = {-1.4, 1.1, -0.6, 0.3, 1.5, -1.2, 0.8, -0.2, 0.9, -1.0};
  std::vector<double> out;
  for (double p : pattern) out.push_back(center * (1 + p * cv_percent / 100));
  return out;
}

TEST(Compare, TwoPercentSlowerLowNoiseKernelFailsAtTheMinimum) {
  // 80 us kernel, repetitions vary by ~0.1%: the 1.75% minimum applies and +2% fails.
  const auto base = MakeFile("b.json", {{"fma", Repetitions(80, 0.1)}});
  const auto cont = MakeFile("c.json", {{"fma", Scaled(Repetitions(80, 0.1), 1.02)}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  const MetricComparison& time = Metric(report, "fma", counter::kRealTime);
  EXPECT_EQ(time.verdict, Verdict::kRegression);
  EXPECT_DOUBLE_EQ(*time.applied_threshold_percent, 1.75);
  EXPECT_THAT(time.threshold_source, HasSubstr("minimum; noise 0."));
  EXPECT_LT(time.noise_percent, 0.2);
  EXPECT_EQ(report.exit_code, kExitRegression);
}

TEST(Compare, FivePercentChangeWithinSevenPercentNoisePasses) {
  // 200 us, repetitions vary by ~7%: the threshold is 2 x the noise, +5% is inside it even
  // when a rank test would call it significant.
  const auto base = MakeFile("b.json", {{"launch", Repetitions(200, 7)}});
  const auto cont = MakeFile("c.json", {{"launch", Scaled(Repetitions(200, 7), 1.05)}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  const MetricComparison& time = Metric(report, "launch", counter::kRealTime);
  // A 14% threshold cannot tell a change from this noise: undecided, with what would narrow it.
  EXPECT_EQ(time.verdict, Verdict::kUndecided);
  EXPECT_GT(time.noise_percent, 6.0);
  EXPECT_NEAR(*time.applied_threshold_percent, 2 * time.noise_percent, 1e-9);
  EXPECT_THAT(time.threshold_source, HasSubstr("2 x noise"));
  EXPECT_THAT(time.notes.back(), HasSubstr("more samples per repetition"));
  EXPECT_EQ(report.summary.undecided, 1u);
  EXPECT_EQ(report.exit_code, kExitOk);
}

TEST(Compare, TimeChangesBelowTheFloorNeverFail) {
  // A 4 us kernel 10% slower (0.4 us) stays under the 500 ns floor; 20% (0.8 us) does not.
  const auto base =
      MakeFile("b.json", {{"tiny", Repetitions(4, 0.1)}, {"tiny2", Repetitions(4, 0.1)}});
  const auto cont = MakeFile("c.json", {{"tiny", Scaled(Repetitions(4, 0.1), 1.10)},
                                        {"tiny2", Scaled(Repetitions(4, 0.1), 1.20)}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  const MetricComparison& small = Metric(report, "tiny", counter::kRealTime);
  // Within a 12.5% threshold: not "same", but undecided, and a history would decide it.
  EXPECT_EQ(small.verdict, Verdict::kUndecided);
  EXPECT_NEAR(*small.applied_threshold_percent, 12.5, 0.01);  // 500 ns of 4 us
  EXPECT_THAT(small.threshold_source, HasSubstr("floor 500 ns"));
  EXPECT_THAT(small.notes.back(), HasSubstr("a history of 3 or more runs"));
  EXPECT_EQ(Metric(report, "tiny2", counter::kRealTime).verdict, Verdict::kRegression);
  // --threshold is used as given: no floor.
  CompareOptions options;
  options.overrides.thresholds[counter::kRealTime] = 5.0;
  EXPECT_EQ(Metric(CompareFiles(base, cont, options).value(), "tiny", counter::kRealTime).verdict,
            Verdict::kRegression);
}

TEST(Compare, ByteCountersHaveFloorsInBytesAndAgainstTraffic) {
  const std::vector<double> t = Repetitions(800, 0.01);
  auto same = [](double v) { return std::vector<double>(10, v); };
  // KB-scale changes of a compute kernel (seen between identical H200 reruns).
  const auto base = MakeFile(
      "b.json",
      {{"fma", t, {{counter::kDramReadBytes, same(4500)}, {counter::kBytesMoved, same(8900)}}},
       {"copy",
        t,
        {{counter::kDramReadBytes, same(1.0737e9)},
         {counter::kDramWriteBytes, same(5500)},
         {counter::kBytesMoved, same(1.0737e9)}}},
       {"mixed",
        t,
        {{counter::kDramReadBytes, same(4e9)},
         {counter::kDramWriteBytes, same(1e8)},
         {counter::kBytesMoved, same(4.1e9)}}}});
  const auto cont = MakeFile(
      "c.json",
      {{"fma", t, {{counter::kDramReadBytes, same(6100)}, {counter::kBytesMoved, same(23000)}}},
       {"copy",
        t,
        {{counter::kDramReadBytes, same(1.0737e9 * 1.02)},
         {counter::kDramWriteBytes, same(7200)},
         {counter::kBytesMoved, same(1.0737e9 * 1.02)}}},
       {"mixed",
        t,
        {{counter::kDramReadBytes, same(4e9)},
         {counter::kDramWriteBytes, same(1.02e8)},  // +2 MB of 4.1 GB traffic
         {counter::kBytesMoved, same(4.102e9)}}}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_EQ(Metric(report, "fma", counter::kDramReadBytes).verdict, Verdict::kSame);
  EXPECT_EQ(Metric(report, "fma", counter::kBytesMoved).verdict, Verdict::kSame);
  EXPECT_EQ(Metric(report, "copy", counter::kDramWriteBytes).verdict, Verdict::kSame);
  EXPECT_EQ(Metric(report, "copy", counter::kDramReadBytes).verdict, Verdict::kRegression);
  const MetricComparison& writes = Metric(report, "mixed", counter::kDramWriteBytes);
  EXPECT_EQ(writes.verdict, Verdict::kSame);  // +2% of the counter, 0.05% of the traffic
  EXPECT_THAT(writes.threshold_source, HasSubstr("of traffic"));
  EXPECT_EQ(Bench(report, "fma").fails_gate, false);
  EXPECT_EQ(Bench(report, "mixed").fails_gate, false);
  EXPECT_EQ(Bench(report, "copy").fails_gate, true);
}

TEST(Compare, AppliedThresholdIsInEveryFormat) {
  const auto base = MakeFile("b.json", {{"fma", Repetitions(80, 0.1)}});
  const auto cont = MakeFile("c.json", {{"fma", Scaled(Repetitions(80, 0.1), 1.02)}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_THAT(FormatConsole(report, false), HasSubstr("1.75% (minimum; noise"));
  EXPECT_THAT(FormatMarkdown(report), HasSubstr("1.75% (minimum; noise"));
  const nlohmann::json json = nlohmann::json::parse(FormatJson(report));
  const nlohmann::json& metric = json["benchmarks"][0]["metrics"][0];
  EXPECT_EQ(metric["name"], counter::kRealTime);
  EXPECT_DOUBLE_EQ(metric["threshold_percent"].get<double>(), 1.75);
  EXPECT_THAT(metric["threshold_source"].get<std::string>(), HasSubstr("minimum; noise"));
  EXPECT_LT(metric["noise_percent"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(metric["floor"].get<double>(), 500.0);
}

TEST(Compare, NonFiniteValuesInGatedMetricsAreBadInput) {
  const auto base = MakeFile("b.json", {{"k", {100}, {{counter::kDramReadBytes, {5}}}}});
  const BenchmarkFile cont =
      ParseBenchmarkJson(
          R"({"benchmarks": [{"name": "k", "real_time": 100, "time_unit": "us",
                          "dram_read_bytes": NaN, "extra": Infinity}]})",
          "c.json")
          .value();
  const auto refused = CompareFiles(base, cont, CompareOptions{});
  ASSERT_FALSE(refused.ok()) << "expected invalid input";
  EXPECT_EQ(refused.status().code(), gpubench::detail::Status::Code::kInvalidInput);
  EXPECT_THAT(refused.status().message(), HasSubstr("c.json: benchmark \"k\": metric "
                                                    "\"dram_read_bytes\" is nan in repetition 0"));
  CompareOptions options;
  options.overrides.thresholds[counter::kDramReadBytes] = std::nullopt;
  const ComparisonReport report = CompareFiles(base, cont, options).value();
  const MetricComparison& bytes = Metric(report, "k", counter::kDramReadBytes);
  EXPECT_EQ(bytes.verdict, Verdict::kReportOnly);
  EXPECT_THAT(bytes.notes.at(0), HasSubstr("non-finite value in the contender"));
}

const std::map<std::string, std::string> kSettings = {
    {context_key::kSettingsFingerprint, "00000000000000aa"},
    {context_key::kFingerprintKeys, "gpubench_timer,gpubench_cache,gpubench_metrics"},
    {context_key::kTimer, "cuda_event"},
    {context_key::kCache, "flush"},
    {context_key::kMetrics, "dram"},
    {context_key::kGpuName, "NVIDIA H100"},
    {context_key::kCudaDriverVersion, "550.54"}};

TEST(Compare, SettingsMismatchNamesEverySettingAndRefuses) {
  auto other = kSettings;
  other[context_key::kSettingsFingerprint] = "00000000000000bb";
  other[context_key::kTimer] = "cupti";
  other[context_key::kCache] = "warm";
  other[context_key::kFingerprintKeys] += ",gpubench_new_knob";
  other["gpubench_new_knob"] = "on";
  const auto base = MakeFile("b.json", {{"k", kFive}}, kSettings);
  const auto cont = MakeFile("c.json", {{"k", Scaled(kFive, 2)}}, other);
  CompareOptions options;
  ComparisonReport report = CompareFiles(base, cont, options).value();
  EXPECT_EQ(report.exit_code, kExitSettingsMismatch);
  EXPECT_TRUE(report.refused_for_settings);
  EXPECT_TRUE(report.benchmarks.empty());
  ASSERT_EQ(report.settings.differences.size(), 3u);
  EXPECT_EQ(report.settings.differences[0].key, context_key::kTimer);
  EXPECT_EQ(report.settings.differences[0].baseline, "cuda_event");
  EXPECT_EQ(report.settings.differences[0].contender, "cupti");
  EXPECT_EQ(report.settings.differences[1].key, context_key::kCache);
  EXPECT_EQ(report.settings.differences[2].key, "gpubench_new_knob");
  EXPECT_FALSE(report.settings.differences[2].baseline.has_value());

  options.allow_settings_mismatch = true;
  report = CompareFiles(base, cont, options).value();
  EXPECT_EQ(report.exit_code, kExitRegression);
  EXPECT_TRUE(report.settings.mismatch);
  EXPECT_THAT(FormatConsole(report, false), HasSubstr("SETTINGS MISMATCH (allowed"));
}

TEST(Compare, SettingsAreNotCheckedWithoutFingerprints) {
  const auto base = MakeFile("b.json", {{"k", kFive}}, kSettings);
  const auto cont = MakeFile("c.json", {{"k", kFive}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_EQ(report.exit_code, kExitOk);
  EXPECT_THAT(report.settings.notes.at(0), HasSubstr("only the baseline carries"));
}

TEST(Compare, DifferentGpuIsProminentButDoesNotFail) {
  auto other = kSettings;
  other[context_key::kGpuName] = "NVIDIA A100";
  other[context_key::kGpuComputeCapability] = "8.0";
  const auto base = MakeFile("b.json", {{"k", kFive}}, kSettings);
  const auto cont = MakeFile("c.json", {{"k", kFive}}, other);
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_EQ(report.exit_code, kExitOk);
  ASSERT_EQ(report.device_differences.size(), 2u);
  EXPECT_EQ(report.device_differences[0].key, context_key::kGpuName);
  EXPECT_TRUE(report.device_differences[0].prominent);
  EXPECT_EQ(report.device_differences[1].key, context_key::kGpuComputeCapability);
  EXPECT_FALSE(report.device_differences[1].prominent);
  const std::string console = FormatConsole(report, false);
  // The banner comes before the table.
  EXPECT_LT(console.find("DIFFERENT GPU: gpu_name baseline \"NVIDIA H100\", contender \"NVIDIA "
                         "A100\""),
            console.find("Benchmark"));
}

// --- The physical GPU (gpu_uuid): identity, never a reason to refuse or fail ------------------

constexpr char kUuidA[] = "GPU-aaaaaaaa-1111-2222-3333-444444444444";
constexpr char kUuidB[] = "GPU-bbbbbbbb-1111-2222-3333-444444444444";

// kSettings on the physical GPU `uuid`, as gpubench writes it since it records the GPU.
std::map<std::string, std::string> OnGpu(const std::string& uuid) {
  auto context = kSettings;
  context[context_key::kGpuUuid] = uuid;
  context[context_key::kGpuSerial] = "serial " + uuid;
  context[context_key::kGpuVbiosVersion] = "96.00.AF.00.01";
  context[context_key::kGpuDriverVersion] = "550.54.15";
  return context;
}

const ValueDifference* FindDifference(const ComparisonReport& report, const std::string& key) {
  for (const ValueDifference& difference : report.device_differences) {
    if (difference.key == key) return &difference;
  }
  return nullptr;
}

TEST(PhysicalGpu, AnotherGpuOfTheSameKindIsProminentButChangesNoVerdict) {
  const auto base = MakeFile("b.json", {{"k", kFive}, {"slow", kFive}}, OnGpu(kUuidA));
  const auto cont = MakeFile("c.json", {{"k", kFive}, {"slow", Scaled(kFive, 1.1)}}, OnGpu(kUuidB));
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_EQ(report.physical_gpu.physical_gpu, PhysicalGpu::kDifferent);
  const ValueDifference* uuid = FindDifference(report, context_key::kGpuUuid);
  ASSERT_NE(uuid, nullptr);
  EXPECT_TRUE(uuid->prominent);
  EXPECT_FALSE(FindDifference(report, context_key::kGpuSerial)->prominent);
  const std::string console = FormatConsole(report, false);
  EXPECT_LT(console.find("DIFFERENT PHYSICAL GPU: gpu_uuid baseline \"" + std::string(kUuidA) +
                         "\", contender \"" + kUuidB +
                         "\": two GPUs of the same kind (same gpu_name) can differ by a few "
                         "percent, so a change between these runs may come from the GPU, not the "
                         "code"),
            console.find("Benchmark"));
  EXPECT_THAT(console, Not(HasSubstr("DIFFERENT GPU:")));
  // The same verdicts and exit code as on one GPU.
  const auto same_gpu =
      MakeFile("c.json", {{"k", kFive}, {"slow", Scaled(kFive, 1.1)}}, OnGpu(kUuidA));
  const ComparisonReport one_gpu = CompareFiles(base, same_gpu, CompareOptions{}).value();
  EXPECT_EQ(one_gpu.physical_gpu.physical_gpu, PhysicalGpu::kSame);
  EXPECT_EQ(report.exit_code, kExitRegression);
  EXPECT_EQ(report.exit_code, one_gpu.exit_code);
  for (const char* name : {"k", "slow"}) {
    EXPECT_EQ(Bench(report, name).verdict, Bench(one_gpu, name).verdict) << name;
  }
  EXPECT_THAT(FormatConsole(one_gpu, false), Not(HasSubstr("PHYSICAL GPU")));
}

// Another kind of GPU is the gpu_name banner's: its UUID differs too, but that says nothing more.
TEST(PhysicalGpu, AnotherKindOfGpuIsTheGpuNameBannersAlone) {
  auto other = OnGpu(kUuidB);
  other[context_key::kGpuName] = "NVIDIA A100";
  const auto base = MakeFile("b.json", {{"k", kFive}}, OnGpu(kUuidA));
  const auto cont = MakeFile("c.json", {{"k", kFive}}, other);
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_EQ(report.physical_gpu.physical_gpu, PhysicalGpu::kDifferent);
  EXPECT_FALSE(FindDifference(report, context_key::kGpuUuid)->prominent);
  const std::string console = FormatConsole(report, false);
  EXPECT_THAT(console, HasSubstr("DIFFERENT GPU: gpu_name"));
  EXPECT_THAT(console, Not(HasSubstr("DIFFERENT PHYSICAL GPU")));
  EXPECT_THAT(console, HasSubstr("gpu_uuid \"" + std::string(kUuidA) + "\" -> \""));
}

// A file from before gpubench recorded the GPU: not a different GPU, not a list of "differing"
// keys, but one line saying which side cannot tell.
TEST(PhysicalGpu, AFileWithoutAUuidMakesItUnknownNotDifferent) {
  const auto old_file = MakeFile("old.json", {{"k", kFive}}, kSettings);
  const auto new_file = MakeFile("new.json", {{"k", kFive}}, OnGpu(kUuidA));
  for (const bool old_is_baseline : {true, false}) {
    const ComparisonReport report =
        old_is_baseline ? CompareFiles(old_file, new_file, CompareOptions{}).value()
                        : CompareFiles(new_file, old_file, CompareOptions{}).value();
    EXPECT_EQ(report.physical_gpu.physical_gpu, PhysicalGpu::kUnknown);
    EXPECT_EQ(report.physical_gpu.without_uuid, old_is_baseline ? "baseline" : "contender");
    for (const ValueDifference& difference : report.device_differences) {
      EXPECT_FALSE(difference.prominent) << difference.key;
    }
    const std::string console = FormatConsole(report, false);
    const std::string side = old_is_baseline ? "baseline" : "contender";
    EXPECT_THAT(console, HasSubstr("physical GPU unknown: the " + side +
                                   " records no gpu_uuid (a file from before gpubench recorded "
                                   "it, or its UUID was unknown), so whether both ran on the same "
                                   "GPU cannot be told"));
    EXPECT_THAT(console, Not(HasSubstr("device facts differ")));
    EXPECT_EQ(report.exit_code, kExitOk);
  }
  // Neither records one: nothing is said, as before.
  const ComparisonReport old_pair =
      CompareFiles(old_file, MakeFile("old2.json", {{"k", kFive}}, kSettings), CompareOptions{})
          .value();
  EXPECT_EQ(old_pair.physical_gpu.physical_gpu, PhysicalGpu::kNotRecorded);
  EXPECT_THAT(FormatConsole(old_pair, false), Not(HasSubstr("physical GPU")));
}

// gpubench writes "unknown: <why>" where it could not read a value: no UUID to compare.
TEST(PhysicalGpu, AnUnknownUuidIsNotADifferentGpu) {
  auto unknown = OnGpu(kUuidB);
  unknown[context_key::kGpuUuid] = "unknown: nvmlDeviceGetUUID failed (NVML error 999)";
  const auto base = MakeFile("b.json", {{"k", kFive}}, OnGpu(kUuidA));
  const auto cont = MakeFile("c.json", {{"k", kFive}}, unknown);
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_EQ(report.physical_gpu.physical_gpu, PhysicalGpu::kUnknown);
  EXPECT_EQ(report.physical_gpu.without_uuid, "contender");
  EXPECT_FALSE(FindDifference(report, context_key::kGpuUuid)->prominent);
}

// A driver update within one CUDA version (580.65 to 580.95, both "13.0") shows only in the
// driver's full version: a banner, like a change of cuda_driver_version.
TEST(PhysicalGpu, AnotherDriverOfTheSameCudaVersionIsProminent) {
  auto updated = OnGpu(kUuidA);
  updated[context_key::kGpuDriverVersion] = "550.90.07";
  const auto base = MakeFile("b.json", {{"k", kFive}}, OnGpu(kUuidA));
  const auto cont = MakeFile("c.json", {{"k", kFive}}, updated);
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_TRUE(FindDifference(report, context_key::kGpuDriverVersion)->prominent);
  EXPECT_THAT(FormatConsole(report, false),
              HasSubstr("DIFFERENT DRIVER: gpu_driver_version baseline \"550.54.15\", contender "
                        "\"550.90.07\""));
  // With cuda_driver_version changed too, that banner says it; the full version is listed.
  updated[context_key::kCudaDriverVersion] = "560.10";
  const ComparisonReport both =
      CompareFiles(base, MakeFile("c.json", {{"k", kFive}}, updated), CompareOptions{}).value();
  EXPECT_TRUE(FindDifference(both, context_key::kCudaDriverVersion)->prominent);
  EXPECT_FALSE(FindDifference(both, context_key::kGpuDriverVersion)->prominent);
}

// A --gpubench_devices file holds each device's UUID as gpu_<N>_uuid.
TEST(PhysicalGpu, EachDeviceOfADevicesRunIsCompared) {
  auto base_context = OnGpu(kUuidA), cont_context = OnGpu(kUuidA);
  base_context["gpu_1_name"] = cont_context["gpu_1_name"] = "NVIDIA H100";
  base_context["gpu_1_uuid"] = kUuidA;
  cont_context["gpu_1_uuid"] = kUuidB;
  const ComparisonReport report =
      CompareFiles(MakeFile("b.json", {{"k", kFive}}, base_context),
                   MakeFile("c.json", {{"k", kFive}}, cont_context), CompareOptions{})
          .value();
  ASSERT_NE(FindDifference(report, "gpu_1_uuid"), nullptr);
  EXPECT_TRUE(FindDifference(report, "gpu_1_uuid")->prominent);
  EXPECT_THAT(FormatConsole(report, false), HasSubstr("DIFFERENT PHYSICAL GPU: gpu_1_uuid"));
}

TEST(Compare, ThrottledRunsAreFlagged) {
  const auto base = MakeFile("b.json", {{"k", {100}, {{counter::kSmClockThrottled, {0}}}}});
  const auto cont = MakeFile("c.json", {{"k", {100}, {{counter::kSmClockThrottled, {1}}}}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_TRUE(Bench(report, "k").throttled_contender);
  EXPECT_EQ(report.summary.throttled, 1u);
  EXPECT_THAT(FormatConsole(report, false), HasSubstr("THROTTLED (contender)"));
}

TEST(Format, ColorOnlyWhenAsked) {
  const auto base = MakeFile("b.json", {{"k", kFive}});
  const auto cont = MakeFile("c.json", {{"k", Scaled(kFive, 2)}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_EQ(FormatConsole(report, false).find('\033'), std::string::npos);
  EXPECT_NE(FormatConsole(report, true).find("\033[1;31mregression"), std::string::npos);
}

TEST(Format, HumanReadableNumbers) {
  EXPECT_EQ(FormatTimeNs(12.5), "12.5 ns");
  EXPECT_EQ(FormatTimeNs(12345), "12.35 us");
  EXPECT_EQ(FormatTimeNs(2.5e9), "2.5 s");
  EXPECT_EQ(FormatQuantity(1048576), "1.049 M");
  EXPECT_EQ(FormatQuantity(512), "512");
  EXPECT_EQ(FormatChangePercent(12.345), "+12.35%");
  EXPECT_EQ(FormatChangePercent(INFINITY), "+inf%");
  EXPECT_EQ(FormatChangePercent(NAN), "n/a");
}

// Names may hold what their JSON escaped and a log anything: a console line or a page shows
// control characters as \xNN and bytes that are no UTF-8 as U+FFFD; valid UTF-8 stays as it is.
TEST(Format, ShowableTextEscapesControlsAndReplacesInvalidUtf8) {
  EXPECT_EQ(ShowableText("BM_Copy<float>/64\tx"), "BM_Copy<float>/64\tx");
  EXPECT_EQ(ShowableText(std::string("a\0b\x01\x1b[31m\x7f", 10)), "a\\x00b\\x01\\x1b[31m\\x7f");
  EXPECT_EQ(ShowableText("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  const std::string replaced = "\xef\xbf\xbd";
  EXPECT_EQ(ShowableText("\xff"), replaced);
  EXPECT_EQ(ShowableText("\xc0\xaf"), replaced + replaced);                 // overlong '/'
  EXPECT_EQ(ShowableText("\xed\xa0\x80"), replaced + replaced + replaced);  // a surrogate
  EXPECT_EQ(ShowableText("\xf4\x90\x80\x80"), replaced + replaced + replaced + replaced);
  EXPECT_EQ(ShowableText("x\xe2\x82"), "x" + replaced + replaced);  // cut short
}

// --- A baseline history -------------------------------------------------------------------

std::vector<const BenchmarkFile*> Runs(const std::vector<BenchmarkFile>& files) {
  std::vector<const BenchmarkFile*> runs;
  for (const BenchmarkFile& file : files) runs.push_back(&file);
  return runs;
}

// Baseline runs of one kernel: kFive's repetitions, each run scaled by its factor.
std::vector<BenchmarkFile> HistoryOf(
    const std::vector<double>& run_factors,
    const std::map<std::string, std::vector<double>>& counters = {}) {
  std::vector<BenchmarkFile> runs;
  for (std::size_t i = 0; i < run_factors.size(); ++i) {
    runs.push_back(MakeFile("run" + std::to_string(i + 1) + ".json",
                            {{"k", Scaled(kFive, run_factors[i]), counters}}, kSettings));
  }
  return runs;
}

double SampleSdPercent(const std::vector<double>& values) {
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1)) / mean * 100;
}

// A history that pools runs from before gpubench recorded the GPU with runs on another GPU: the
// other GPU is reported (the older runs hide nothing), and the runs' unknown GPUs are named.
TEST(History, SaysWhenARunRanOnAnotherPhysicalGpu) {
  const auto old_run = MakeFile("old.json", {{"k", kFive}}, kSettings);
  const auto run_a = MakeFile("a.json", {{"k", kFive}}, OnGpu(kUuidA));
  const auto run_b = MakeFile("b.json", {{"k", kFive}}, OnGpu(kUuidB));
  const auto contender = MakeFile("c.json", {{"k", kFive}}, OnGpu(kUuidA));
  const ComparisonReport mixed =
      CompareWithHistory({&old_run, &run_a, &run_b}, contender, CompareOptions{}).value();
  EXPECT_EQ(mixed.physical_gpu.physical_gpu, PhysicalGpu::kDifferent);
  ASSERT_NE(FindDifference(mixed, context_key::kGpuUuid), nullptr);
  EXPECT_TRUE(FindDifference(mixed, context_key::kGpuUuid)->prominent);
  EXPECT_EQ(FindDifference(mixed, context_key::kGpuUuid)->baseline, kUuidB);
  EXPECT_THAT(FormatConsole(mixed, false), HasSubstr("DIFFERENT PHYSICAL GPU: gpu_uuid"));

  const ComparisonReport unknown =
      CompareWithHistory({&run_a, &old_run}, contender, CompareOptions{}).value();
  EXPECT_EQ(unknown.physical_gpu.physical_gpu, PhysicalGpu::kUnknown);
  EXPECT_THAT(FormatConsole(unknown, false),
              HasSubstr("physical GPU unknown: the baseline run old.json records no gpu_uuid"));
}

TEST(History, OneBaselineIsExactlyTheTwoFileComparison) {
  const auto base = MakeFile("b.json", {{"k", kFive}}, kSettings);
  const auto cont = MakeFile("c.json", {{"k", Scaled(kFive, 1.03)}}, kSettings);
  const ComparisonReport two = CompareFiles(base, cont, CompareOptions{}).value();
  const ComparisonReport one = CompareWithHistory({&base}, cont, CompareOptions{}).value();
  EXPECT_EQ(FormatJson(one), FormatJson(two));
  EXPECT_EQ(FormatConsole(one, false), FormatConsole(two, false));
}

// Five runs whose medians spread by about 0.06%: a 1% slowdown fails, which the one-baseline
// rules (1.75% minimum) let pass.
TEST(History, FiveQuietRunsCatchAOnePercentSlowdown) {
  const std::vector<BenchmarkFile> runs = HistoryOf({1.0, 1.0005, 0.9995, 1.0008, 0.9993});
  const auto slower = MakeFile("c.json", {{"k", Scaled(kFive, 1.01)}}, kSettings);
  const ComparisonReport report = CompareWithHistory(Runs(runs), slower, CompareOptions{}).value();
  const MetricComparison& time = Metric(report, "k", counter::kRealTime);
  EXPECT_EQ(time.verdict, Verdict::kRegression);
  EXPECT_EQ(time.history_runs, 5u);
  EXPECT_LT(*time.applied_threshold_percent, 1.0);
  EXPECT_THAT(time.threshold_source, HasSubstr("history of 5 runs, between-run sd 0.0"));
  EXPECT_EQ(report.exit_code, kExitRegression);
  EXPECT_THAT(report.baseline_path, HasSubstr("5 runs: run1.json, run2.json"));
  EXPECT_EQ(report.baseline_paths.size(), 5u);

  const ComparisonReport one = CompareFiles(runs[0], slower, CompareOptions{}).value();
  EXPECT_EQ(Metric(one, "k", counter::kRealTime).verdict, Verdict::kSame);

  // Each run against the other four: no false alarm.
  for (std::size_t left_out = 0; left_out < runs.size(); ++left_out) {
    std::vector<const BenchmarkFile*> others;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (i != left_out) others.push_back(&runs[i]);
    }
    EXPECT_EQ(CompareWithHistory(others, runs[left_out], CompareOptions{}).value().exit_code,
              kExitOk)
        << left_out;
  }
}

// The threshold is the one-sided 99% prediction bound of a new run's median: t(0.99, n - 1) x
// sd x sqrt(1 + 1/n) of the runs' medians (here 2.96 x sd with 10 runs).
TEST(History, ThresholdIsThePredictionBoundOfTheRunsMedians) {
  const std::vector<double> factors = {1.00, 1.02, 0.99, 1.01, 0.98, 1.00, 1.03, 0.99, 1.01, 1.00};
  const std::vector<BenchmarkFile> runs = HistoryOf(factors);
  const auto same = MakeFile("c.json", {{"k", kFive}}, kSettings);
  const ComparisonReport report = CompareWithHistory(Runs(runs), same, CompareOptions{}).value();
  const MetricComparison& time = Metric(report, "k", counter::kRealTime);
  std::vector<double> medians;
  for (double f : factors) medians.push_back(Median(Scaled(kFive, f)));
  const double sd = SampleSdPercent(medians);
  EXPECT_NEAR(time.between_run_sd_percent, sd, 1e-9);
  const double factor = StudentTQuantileUpper(0.01, 9) * std::sqrt(1 + 1.0 / 10);
  EXPECT_NEAR(*time.applied_threshold_percent, factor * sd, 1e-9);
  EXPECT_LE(*time.applied_threshold_percent, 3 * sd);
  EXPECT_THAT(time.threshold_source, HasSubstr("2.96 x sd; history of 10 runs"));
  // The centre is the mean of the runs' medians; the p-value is the model's tail.
  double mean = 0;
  for (double m : medians) mean += m / 10;
  EXPECT_NEAR(time.baseline_median, mean * 1000, 1e-6);  // us in the file, ns compared
  ASSERT_TRUE(time.p_value.has_value());
  EXPECT_GT(*time.p_value, 0.1);
  EXPECT_FALSE(time.test_method.has_value());
}

TEST(History, FewerThanThreeRunsPoolTheirRepetitionsUnderTheUsualRules) {
  const std::vector<BenchmarkFile> runs = HistoryOf({1.0, 1.001});
  const auto cont = MakeFile("c.json", {{"k", Scaled(kFive, 1.01)}}, kSettings);
  const ComparisonReport report = CompareWithHistory(Runs(runs), cont, CompareOptions{}).value();
  const MetricComparison& time = Metric(report, "k", counter::kRealTime);
  EXPECT_EQ(time.history_runs, 0u);
  EXPECT_EQ(time.baseline_values.size(), 10u);
  EXPECT_THAT(time.threshold_source, HasSubstr("minimum; noise"));
  EXPECT_THAT(time.threshold_source, HasSubstr("2 runs pooled (a history needs 3)"));
  EXPECT_EQ(time.verdict, Verdict::kSame);
}

TEST(History, RunsOnASharedGpuOrTimedAnotherWayAreLeftOut) {
  std::vector<BenchmarkFile> runs =
      HistoryOf({1.0, 1.0005, 0.9995}, {{counter::kLaunchHeld, {1, 1, 1, 1, 1}}});
  runs.push_back(MakeFile(
      "shared.json",
      {{"k",
        Scaled(kFive, 3),
        {{counter::kGpuShared, {0, 1, 0, 0, 0}}, {counter::kLaunchHeld, {1, 0, 1, 1, 1}}}}},
      kSettings));
  runs.push_back(MakeFile("waits.json",
                          {{"k", Scaled(kFive, 2), {{counter::kLaunchHeld, {0, 0, 0, 0, 0}}}}},
                          kSettings));
  const auto cont =
      MakeFile("c.json", {{"k", kFive, {{counter::kLaunchHeld, {1, 1, 1, 1, 1}}}}}, kSettings);
  const ComparisonReport report = CompareWithHistory(Runs(runs), cont, CompareOptions{}).value();
  EXPECT_EQ(report.exit_code, kExitOk);
  const BenchmarkComparison& k = Bench(report, "k");
  EXPECT_EQ(Metric(report, "k", counter::kRealTime).history_runs, 3u);
  EXPECT_EQ(k.baseline_repetitions, 15u);
  EXPECT_THAT(k.notes, ::testing::Contains(HasSubstr(
                           "1 of 5 baseline runs left out (another process used the GPU")));
  EXPECT_THAT(k.notes, ::testing::Contains(HasSubstr("1 of 4 baseline runs left out (launch_held 0 "
                                                     "there, 1 in the contender")));
}

TEST(History, ARunWithOtherSettingsIsNamedAndRefused) {
  std::vector<BenchmarkFile> runs = HistoryOf({1.0, 1.0, 1.0});
  auto other = kSettings;
  other[context_key::kSettingsFingerprint] = "00000000000000bb";
  other[context_key::kCache] = "keep";
  runs[1] = MakeFile("run2.json", {{"k", kFive}}, other);
  const auto cont = MakeFile("c.json", {{"k", kFive}}, kSettings);
  ComparisonReport report = CompareWithHistory(Runs(runs), cont, CompareOptions{}).value();
  EXPECT_EQ(report.exit_code, kExitSettingsMismatch);
  EXPECT_EQ(report.settings.baseline_path, "run2.json");
  EXPECT_THAT(FormatConsole(report, false),
              HasSubstr("(baseline run run2.json; leave it out of the history)"));
  CompareOptions allow;
  allow.allow_settings_mismatch = true;
  report = CompareWithHistory(Runs(runs), cont, allow).value();
  EXPECT_EQ(report.exit_code, kExitOk);
}

// --- launch_held between baseline and contender ----------------------------------------------

TEST(LaunchHeld, OneToZeroFailsTheBenchmark) {
  const auto base =
      MakeFile("b.json", {{"k", kFive, {{counter::kLaunchHeld, {1, 1, 1, 1, 1}}}},
                          {"other", kFive, {{counter::kLaunchHeld, {1, 1, 1, 1, 1}}}}});
  const auto cont =
      MakeFile("c.json", {{"k", kFive, {{counter::kLaunchHeld, {1, 1, 0, 1, 1}}}},
                          {"other", kFive, {{counter::kLaunchHeld, {1, 1, 1, 1, 1}}}}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_EQ(report.exit_code, kExitRegression);
  const BenchmarkComparison& k = Bench(report, "k");
  EXPECT_EQ(k.status, BenchmarkStatus::kFailedInContender);
  EXPECT_TRUE(k.fails_gate);
  EXPECT_THAT(k.failure_message, HasSubstr("launch_held 1 -> 0: the loop body now waits"));
  EXPECT_EQ(Bench(report, "other").status, BenchmarkStatus::kCompared);
  EXPECT_EQ(report.summary.failing, 1u);
}

TEST(LaunchHeld, ZeroToOneLeavesTimesUnjudgedButNotBytes) {
  const std::vector<double> bytes = {1e9, 1e9, 1e9, 1e9, 1e9};
  const auto base = MakeFile(
      "b.json",
      {{"k", kFive, {{counter::kLaunchHeld, {0, 0, 0, 0, 0}}, {counter::kDramReadBytes, bytes}}}});
  const auto cont = MakeFile(
      "c.json",
      {{"k",
        Scaled(kFive, 0.5),
        {{counter::kLaunchHeld, {1, 1, 1, 1, 1}}, {counter::kDramReadBytes, Scaled(bytes, 1.1)}}}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  const MetricComparison& time = Metric(report, "k", counter::kRealTime);
  EXPECT_EQ(time.verdict, Verdict::kSame);
  EXPECT_THAT(time.notes.back(), HasSubstr("not judged (was improvement): launch_held 0 -> 1"));
  EXPECT_EQ(Metric(report, "k", counter::kDramReadBytes).verdict, Verdict::kRegression);
  EXPECT_EQ(report.exit_code, kExitRegression);
}

TEST(LaunchHeld, ASharedGpuExplainsTheChangeAndIsNotAFailure) {
  const auto base = MakeFile("b.json", {{"k", kFive, {{counter::kLaunchHeld, {1, 1, 1, 1, 1}}}}});
  const auto cont = MakeFile(
      "c.json",
      {{"k",
        Scaled(kFive, 2),
        {{counter::kLaunchHeld, {0, 0, 0, 0, 0}}, {counter::kGpuShared, {1, 1, 1, 1, 1}}}}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  EXPECT_EQ(Bench(report, "k").status, BenchmarkStatus::kCompared);
  EXPECT_EQ(report.exit_code, kExitOk);
}

// --- What the reports say (issue #47) -----------------------------------------------------

// A threshold that an absolute floor sets is said in the floor's unit: 2 MiB of a 4 KB counter is
// 49152% of it, and of a zero one inf%.
TEST(Format, AFloorIsSaidInItsUnit) {
  const std::vector<double> small = {4096, 4096, 4096, 4096, 4096}, zero = {0, 0, 0, 0, 0};
  const auto base = MakeFile("b.json", {{"k", kFive, {{counter::kDramReadBytes, small}}},
                                        {"z", kFive, {{counter::kDramWriteBytes, zero}}}});
  const ComparisonReport report = CompareFiles(base, base, CompareOptions{}).value();
  const MetricComparison& read = Metric(report, "k", counter::kDramReadBytes);
  EXPECT_TRUE(read.floor_decides);
  EXPECT_DOUBLE_EQ(*read.applied_threshold_percent, 2097152.0 / 4096 * 100);  // the JSON's share
  EXPECT_TRUE(Metric(report, "z", counter::kDramWriteBytes).floor_decides);
  EXPECT_FALSE(Metric(report, "k", counter::kRealTime).floor_decides);
  for (const std::string& text : {FormatConsole(report, false), FormatMarkdown(report)}) {
    EXPECT_THAT(text, HasSubstr("floor 2 MiB (noise 0%)"));
    EXPECT_THAT(text, ::testing::Not(HasSubstr("51200")));
    EXPECT_THAT(text, ::testing::Not(HasSubstr("inf%")));
    EXPECT_THAT(text, HasSubstr("4.1 kB"));  // the value with its unit
  }
}

// A code is shown by name, each distinct value of the repetitions, never with a change or a
// test, and only when all metrics are asked for; its median is a code that occurred (the median
// of stop reasons 1, 1, 6, 6 is 3.5, and of clock-event reasons 0 and 4 would name bit 0x2).
TEST(Format, CodesAreShownByNameAndNeverTested) {
  const auto base = MakeFile(
      "b.json",
      {{"k",
        {100, 100.2, 99.8, 100.4},
        {{counter::kStopReason, {1, 1, 6, 6}}, {counter::kClockEventReasons, {0, 4, 0, 4}}}}});
  const auto cont = MakeFile(
      "c.json",
      {{"k",
        {100, 100.2, 99.8, 100.4},
        {{counter::kStopReason, {2, 6, 6, 6}}, {counter::kClockEventReasons, {4, 4, 4, 4}}}}});
  const ComparisonReport report = CompareFiles(base, cont, CompareOptions{}).value();
  const MetricComparison& stop = Metric(report, "k", counter::kStopReason);
  EXPECT_EQ(stop.verdict, Verdict::kReportOnly);
  EXPECT_FALSE(stop.p_value.has_value());
  EXPECT_TRUE(std::isnan(stop.change_percent));
  EXPECT_EQ(stop.baseline_median, 1);  // of the tied 1 and 6, the smaller
  EXPECT_EQ(stop.contender_median, 6);
  EXPECT_EQ(Metric(report, "k", counter::kClockEventReasons).baseline_median, 0);
  const std::string all = FormatConsole(report, false, MetricRows::kAll);
  EXPECT_THAT(all, HasSubstr("precision, repetition"));
  EXPECT_THAT(all, HasSubstr("max_seconds, repetition"));
  EXPECT_THAT(all, HasSubstr("none, sw_power_cap"));
  EXPECT_THAT(all, ::testing::Not(HasSubstr("applications_clocks_setting")));
  EXPECT_THAT(FormatConsole(report, false), ::testing::Not(HasSubstr(counter::kStopReason)));
  EXPECT_THAT(FormatJson(report), HasSubstr("\"test\": \"none\""));
}

// Two empty files, or a baseline without benchmarks, compare nothing: exit 4, saying why.
TEST(Compare, NothingComparedIsNoPass) {
  const auto empty = MakeFile("empty.json", {});
  const auto some = MakeFile("some.json", {{"k", kFive}});
  ComparisonReport report = CompareFiles(empty, empty, CompareOptions{}).value();
  EXPECT_EQ(report.exit_code, kExitNothingCompared);
  EXPECT_EQ(report.nothing_compared, "neither the baseline nor the contender has a benchmark");
  EXPECT_THAT(FormatConsole(report, false), HasSubstr("NOTHING COMPARED (exit 4): neither"));
  EXPECT_THAT(FormatMarkdown(report), HasSubstr("NOTHING COMPARED (exit 4)"));
  report = CompareFiles(empty, some, CompareOptions{}).value();
  EXPECT_EQ(report.exit_code, kExitNothingCompared);
  EXPECT_EQ(report.nothing_compared, "the baseline has no benchmarks");
  report = CompareFiles(some, some, CompareOptions{}).value();
  EXPECT_EQ(report.exit_code, kExitOk);
  EXPECT_TRUE(report.nothing_compared.empty());
}

// HistoryAdvice names a number of runs only where that many runs bring the threshold under 5%,
// and says so where its search gives up.
TEST(History, TheAdviceNamesOnlyANumberOfRunsThatReachesTheTarget) {
  const double alpha = 0.01 / 24;
  for (const double sd : {0.8, 1.0, 1.2, 1.4}) {
    const std::string advice = HistoryAdvice(sd, 5, alpha);
    const std::size_t at = advice.find("a history of ");
    ASSERT_NE(at, std::string::npos) << advice;
    const std::size_t runs = std::stoul(advice.substr(at + 13));
    EXPECT_LE(HistoryFactor(alpha, runs) * sd, kGateUndecidedPercent) << advice;
    EXPECT_GT(HistoryFactor(alpha, runs - 1) * sd, kGateUndecidedPercent) << advice;
  }
  // Just under what infinitely many runs could reach: the search stops before finding it.
  const double barely = kGateUndecidedPercent / NormalQuantileUpper(alpha) * (1 - 1e-7);
  ASSERT_GT(HistoryFactor(alpha, kHistoryAdviceMaxRuns) * barely, kGateUndecidedPercent);
  const std::string gave_up = HistoryAdvice(barely, 10, alpha);
  EXPECT_THAT(gave_up, HasSubstr("not even a history of 100000 runs (now 10)"));
  EXPECT_THAT(gave_up, ::testing::Not(HasSubstr("would bring its threshold under 5% (a")));
  EXPECT_THAT(HistoryAdvice(3, 10, alpha), HasSubstr("no number of runs"));
}

}  // namespace
}  // namespace gpubench::tools
