// The streamed JSON report (JsonWriter) against what nlohmann-json writes: byte for byte against
// the DOM builder the report used before (json_report_dom.hpp) on reports with awkward values and
// on the real H200 files, and each kind of value against nlohmann's own dump().
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "json_report_dom.hpp"
#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/base/halves.hpp"
#include "tools/base/json_writer.hpp"
#include "tools/compare/report_format.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {
namespace {

using dom_reference::FormatJsonWithDom;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// What nlohmann writes for one value as the report dumps it.
std::string NlohmannDump(const nlohmann::ordered_json& value) {
  return value.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// Equal texts, or where they first differ (gtest's own diff of two large texts takes too long).
::testing::AssertionResult SameText(const std::string& actual, const std::string& expected) {
  if (actual == expected) return ::testing::AssertionSuccess();
  std::size_t at = 0;
  while (at < actual.size() && at < expected.size() && actual[at] == expected[at]) ++at;
  const std::size_t from = at < 80 ? 0 : at - 80;
  return ::testing::AssertionFailure()
         << "the texts (" << actual.size() << " and " << expected.size()
         << " bytes) differ from byte " << at << ":\n--- written:\n"
         << actual.substr(from, 160) << "\n--- expected:\n"
         << expected.substr(from, 160);
}

template <typename T>
std::string WriterText(const T& value) {
  JsonWriter writer;
  writer.Value(value);
  return std::string(writer.text());
}

// Doubles that take every path of the writer: nlohmann's special cases (0, -0, non-finite), the
// whole-number fast path and its edges, and Grisu2's exponent and decimal-point layouts.
std::vector<double> AwkwardDoubles() {
  std::vector<double> values = {0.0,
                                -0.0,
                                kNaN,
                                -kNaN,
                                kInf,
                                -kInf,
                                0.1,
                                -0.1,
                                0.30000000000000004,
                                1.0 / 3,
                                3.0,
                                -3.0,
                                1.0,
                                1980.0,
                                1e-5,
                                1e-4,
                                1.5e-4,
                                0.001,
                                123456.789,
                                1e-300,
                                1e300,
                                -1e300,
                                5e-324,
                                2.2250738585072014e-308,
                                std::numeric_limits<double>::max(),
                                -std::numeric_limits<double>::max(),
                                999999999999999.0,
                                1e15,
                                1e15 + 2,
                                -999999999999999.0,
                                1e16,
                                9007199254740992.0,
                                9007199254740993.0,
                                4503599627370495.5,
                                999999999999999.9,
                                4.1752050594835004e+78,
                                1e21,
                                1e22,
                                1e23,
                                12345678901234567890.0,
                                0.5,
                                2.5,
                                -1e-5,
                                8.3694279335541025e+04};
  for (double power = 1; power < 1e300; power *= 10) {
    values.push_back(power);
    values.push_back(1 / power);
    values.push_back(std::nextafter(power, 0.0));
    values.push_back(std::nextafter(power, kInf));
  }
  for (int exponent = -1074; exponent <= 1023; exponent += 7) {
    values.push_back(std::ldexp(1.0, exponent));
    values.push_back(-std::ldexp(1.5, exponent));
  }
  return values;
}

// Strings that take every path of the writer: plain ASCII of every length around the 8-byte and
// 4-byte checks with a quote, backslash, control character or non-ASCII byte at each position,
// valid UTF-8 and the kinds of invalid UTF-8 nlohmann replaces.
std::vector<std::string> AwkwardStrings() {
  std::vector<std::string> strings = {"",
                                      "plain",
                                      "quote \" inside",
                                      "back\\slash",
                                      "control \x01\x1f and \x7f",
                                      std::string("nul \0 inside", 12),
                                      "\b\f\n\r\t",
                                      "é 日本 😀",
                                      "invalid \xff\xfe",
                                      "truncated \xe6\x97",
                                      "truncated at the end \xe6",
                                      "overlong \xc0\xaf",
                                      "surrogate \xed\xa0\x80",
                                      "beyond U+10FFFF \xf4\x90\x80\x80",
                                      "stray continuation \x80\xbf",
                                      "\xe2\x82",
                                      "\xf0\x9f\x98"};
  for (const char special : {'"', '\\', '\x01', '\x1f', '\x7f', '\x80', '\xc3', '\xff', ' ', '~'}) {
    for (std::size_t length = 1; length <= 20; ++length) {
      for (std::size_t position = 0; position < length; ++position) {
        std::string text(length, 'a');
        text[position] = special;
        strings.push_back(text);
      }
    }
  }
  return strings;
}

// A report with every kind of value the JSON report holds, with awkward numbers and strings.
ComparisonReport AwkwardReport() {
  const std::vector<double> doubles = AwkwardDoubles();
  const std::vector<std::string> strings = AwkwardStrings();
  ComparisonReport report;
  report.baseline_path = "base \"line\"\\\xff.json";
  report.contender_path = "contender\n\x01.json";
  report.baseline_benchmark_count = 3;
  report.contender_benchmark_count = 0;
  report.baseline_cut_off.push_back({"base.json", 12345, 6, 2});
  report.options.alpha = 0.05;
  report.options.overrides.thresholds = {{counter::kRealTime, 5.0},
                                         {counter::kCpuTime, std::nullopt},
                                         {"we\"ird\\\x02", 0.1},
                                         {"huge", 1e300},
                                         {"é", 3.0}};
  report.options.unconfirmed = UnconfirmedPolicy::kWarn;
  report.options.fail_on_missing = true;
  report.settings.baseline_fingerprint = "fp\x03";
  report.settings.mismatch = true;
  report.settings.differences = {{context_key::kTimer, "events", "cupti\t", true},
                                 {"gone \"key\"", std::nullopt, "\xc0", false},
                                 {"new", "x", std::nullopt, true}};
  report.settings.notes = {"note \"one\"", "", "\x7f"};
  report.device_differences = {{context_key::kGpuName, "H200", "H100 é", true},
                               {"gpu_odd\x04", std::nullopt, std::nullopt, false}};
  report.physical_gpu.physical_gpu = PhysicalGpu::kDifferent;
  report.warnings = {"warning\n", "plain"};
  report.summary.compared = 7;
  report.summary.failing = std::numeric_limits<std::size_t>::max();
  report.exit_code = kExitRegression;

  const BenchmarkStatus statuses[] = {BenchmarkStatus::kCompared,
                                      BenchmarkStatus::kMissing,
                                      BenchmarkStatus::kNew,
                                      BenchmarkStatus::kFailedInContender,
                                      BenchmarkStatus::kFailedInBaseline,
                                      BenchmarkStatus::kFailedInBoth};
  const Verdict verdicts[] = {Verdict::kRegression, Verdict::kImprovement, Verdict::kSame,
                              Verdict::kUnconfirmed, Verdict::kReportOnly};
  std::size_t next_double = 0, next_string = 0;
  auto some_double = [&] { return doubles[next_double++ % doubles.size()]; };
  auto some_string = [&] { return strings[next_string++ % strings.size()]; };
  for (int b = 0; b < 40; ++b) {
    BenchmarkComparison benchmark;
    benchmark.name = b == 0 ? "" : some_string();
    benchmark.status = statuses[b % 6];
    benchmark.verdict = verdicts[b % 5];
    benchmark.worse = b % 2 == 0;
    benchmark.fails_gate = b % 3 == 0;
    benchmark.baseline_repetitions = static_cast<std::size_t>(b);
    benchmark.contender_repetitions = b == 1 ? std::numeric_limits<std::size_t>::max() : 0;
    benchmark.throttled_baseline = b % 4 == 1;
    benchmark.throttled_contender = b % 5 == 2;
    benchmark.shared_baseline = b % 6 == 3;
    benchmark.shared_contender = b % 7 == 4;
    benchmark.failure_message = b % 3 == 1 ? some_string() : "";
    if (b % 4 != 3) benchmark.notes = {some_string(), some_string()};
    const int metrics = b % 6 == 5 ? 0 : 3;
    for (int m = 0; m < metrics; ++m) {
      MetricComparison metric;
      metric.name = some_string();
      metric.is_time = m == 0;
      metric.policy.unit = m == 1 ? some_string() : "";
      metric.policy.direction = static_cast<Direction>(m % 3);
      if (b % 2 == 0) metric.policy.threshold_percent = some_double();
      metric.policy.statistical = m != 2;
      metric.policy.rule = some_string();
      const int count = (b + m) % 4 == 0 ? 0 : 1 + (b + m) % 11;
      for (int v = 0; v < count; ++v) {
        metric.baseline_values.push_back(some_double());
        metric.contender_values.push_back(some_double());
      }
      metric.baseline_median = some_double();
      metric.contender_median = some_double();
      metric.change_percent = some_double();
      switch ((b + m) % 4) {
        case 0:
          break;  // no threshold
        case 1:
          metric.applied_threshold_percent = kInf;
          break;
        case 2:
          metric.applied_threshold_percent = kNaN;
          break;
        default:
          metric.applied_threshold_percent = some_double();
      }
      metric.applied_floor = some_double();
      metric.noise_percent = some_double();
      metric.threshold_source = some_string();
      if (b % 3 != 0) metric.p_value = some_double();
      if (b % 3 == 1) metric.test_method = MannWhitneyMethod::kExact;
      if (b % 3 == 2) metric.test_method = MannWhitneyMethod::kAsymptotic;
      metric.verdict = verdicts[(b + m) % 5];
      metric.worse = m == 1;
      metric.fails_gate = m == 2;
      if (m != 0) metric.notes = {some_string()};
      benchmark.metrics.push_back(std::move(metric));
    }
    report.benchmarks.push_back(std::move(benchmark));
  }
  return report;
}

TEST(JsonReport, AwkwardValuesAsTheDomBuilderWroteThem) {
  const ComparisonReport report = AwkwardReport();
  const std::string expected = FormatJsonWithDom(report);
  EXPECT_TRUE(SameText(FormatJson(report), expected));
  std::ostringstream streamed;
  WriteJson(report, streamed);
  EXPECT_TRUE(SameText(streamed.str(), expected));
}

TEST(JsonReport, EmptyAndRefusedReportsAsTheDomBuilderWroteThem) {
  ComparisonReport report;
  EXPECT_TRUE(SameText(FormatJson(report), FormatJsonWithDom(report)));
  report.refused_for_settings = true;
  report.exit_code = kExitSettingsMismatch;
  report.settings.mismatch = true;
  report.settings.differences = {{context_key::kTimer, "events", "cupti", true}};
  EXPECT_TRUE(SameText(FormatJson(report), FormatJsonWithDom(report)));
}

// Enough benchmarks for the rounds of two halves on two threads, with an uneven last round.
TEST(JsonReport, LargeReportWrittenInRoundsAsTheDomBuilderWroteIt) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> time(1e3, 1e6);
  ComparisonReport report;
  for (int b = 0; b < 4 * static_cast<int>(kItemsWorthAThread) + 77; ++b) {
    BenchmarkComparison benchmark;
    benchmark.name = "BM_Large/" + std::to_string(b);
    benchmark.baseline_repetitions = benchmark.contender_repetitions = 3;
    for (const char* name : {counter::kRealTime, counter::kDramReadBytes}) {
      MetricComparison metric;
      metric.name = name;
      for (int v = 0; v < 3; ++v) {
        metric.baseline_values.push_back(time(random));
        metric.contender_values.push_back(std::round(time(random)));
      }
      metric.baseline_median = metric.baseline_values[1];
      metric.change_percent = time(random) / 1e4;
      metric.p_value = 0.1;
      benchmark.metrics.push_back(std::move(metric));
    }
    report.benchmarks.push_back(std::move(benchmark));
  }
  const std::string expected = FormatJsonWithDom(report);
  EXPECT_TRUE(SameText(FormatJson(report), expected));
  std::ostringstream streamed;
  WriteJson(report, streamed);
  EXPECT_TRUE(SameText(streamed.str(), expected));
}

// The real runs, each against the first of its suite and a rerun against a cut-off file.
TEST(JsonReport, RealH200ComparisonsAsTheDomBuilderWroteThem) {
  const std::string dir = std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/h200/";
  const std::pair<const char*, const char*> pairs[] = {
      {"gate_a1.json", "gate_a2.json"},
      {"gate_a1.json", "gate_inject_time.json"},
      {"gate_b1.json", "gate_inject_bytes.json"},
      {"examples_a1.json", "examples_b1.json"},
      {"shared/alone.json", "shared/shared_a.json"},
      {"x2/devices_all.json", "x2/devices_1.json"},
      {"x2/arch_old1.json", "x2/arch_new1.json"},
      {"short/method1_profiling_off.json", "short/method2.json"},
      {"gate_a2.json", "cutoff/gate_a1_cut_30150.json"},
      {"cutoff/gate_a1_cut_35000.json", "cutoff/killed_sigterm.json"}};
  for (const auto& [baseline_name, contender_name] : pairs) {
    SCOPED_TRACE(std::string(baseline_name) + " vs " + contender_name);
    const auto baseline = LoadBenchmarkFile(dir + baseline_name);
    const auto contender = LoadBenchmarkFile(dir + contender_name);
    ASSERT_TRUE(baseline.ok()) << baseline.status().message();
    ASSERT_TRUE(contender.ok()) << contender.status().message();
    for (const bool allow_mismatch : {false, true}) {
      CompareOptions options;
      options.allow_settings_mismatch = allow_mismatch;
      options.overrides.thresholds = {{counter::kRealTime, 3.0},
                                      {counter::kDramWriteBytes, std::nullopt}};
      const auto report = CompareFiles(baseline.value(), contender.value(), options);
      ASSERT_TRUE(report.ok()) << report.status().message();
      EXPECT_TRUE(SameText(FormatJson(report.value()), FormatJsonWithDom(report.value())));
    }
  }
}

// A history of real runs (gate_a*, gate_b*) against an injected file: the history's fields
// (baseline files, history_runs, between-run sd, the test's name) as the DOM builder writes them.
TEST(JsonReport, RealH200HistoryAsTheDomBuilderWritesIt) {
  const std::string dir = std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/h200/";
  std::vector<BenchmarkFile> runs;
  for (const char* name :
       {"gate_a1.json", "gate_a2.json", "gate_a3.json", "gate_b1.json", "gate_b2.json"}) {
    auto run = LoadBenchmarkFile(dir + name);
    ASSERT_TRUE(run.ok()) << run.status().message();
    runs.push_back(std::move(run).value());
  }
  std::vector<const BenchmarkFile*> history;
  for (const BenchmarkFile& run : runs) history.push_back(&run);
  const auto contender = LoadBenchmarkFile(dir + "gate_inject_time.json");
  ASSERT_TRUE(contender.ok());
  const auto report = CompareWithHistory(history, contender.value(), CompareOptions{});
  ASSERT_TRUE(report.ok()) << report.status().message();
  const std::string json = FormatJson(report.value());
  EXPECT_TRUE(SameText(json, FormatJsonWithDom(report.value())));
  EXPECT_NE(json.find("\"test\": \"history_prediction\""), std::string::npos);
  EXPECT_NE(json.find("\"history_runs\": 5,"), std::string::npos);
}

TEST(JsonWriter, DoublesAsNlohmannWritesThem) {
  for (const double value : AwkwardDoubles()) {
    EXPECT_EQ(WriterText(value), NlohmannDump(value))
        << "bits of a double: " << std::hexfloat << value;
  }
}

TEST(JsonWriter, RandomDoublesAsNlohmannWritesThem) {
  std::mt19937_64 random(42);
  std::uniform_int_distribution<std::int64_t> whole(-999999999999999, 999999999999999);
  int mismatches = 0;
  for (int i = 0; i < 100000 && mismatches < 10; ++i) {
    const std::uint64_t bits = random();
    double any;
    std::memcpy(&any, &bits, sizeof any);
    const double whole_number = static_cast<double>(whole(random));
    const double short_decimal = static_cast<double>(whole(random) % 100000) / 1000;
    for (const double value : {any, whole_number, short_decimal}) {
      const std::string written = WriterText(value);
      if (written != NlohmannDump(value)) {
        ++mismatches;
        ADD_FAILURE() << std::hexfloat << value << ": " << written << " != " << NlohmannDump(value);
      }
    }
  }
}

TEST(JsonWriter, IntegersAndBoolsAsNlohmannWritesThem) {
  EXPECT_EQ(WriterText(0), NlohmannDump(0));
  EXPECT_EQ(WriterText(-3), NlohmannDump(-3));
  EXPECT_EQ(WriterText(std::numeric_limits<std::int64_t>::min()),
            NlohmannDump(std::numeric_limits<std::int64_t>::min()));
  EXPECT_EQ(WriterText(std::numeric_limits<std::size_t>::max()),
            NlohmannDump(std::numeric_limits<std::size_t>::max()));
  EXPECT_EQ(WriterText(3.0), "3.0");  // a double stays a double
  EXPECT_EQ(WriterText(0.1f), NlohmannDump(0.1f));
  EXPECT_EQ(WriterText(true), "true");
  EXPECT_EQ(WriterText(false), "false");
  EXPECT_EQ(WriterText(nullptr), "null");
  EXPECT_EQ(WriterText(std::optional<double>()), "null");
  EXPECT_EQ(WriterText(std::optional<std::string>("x")), "\"x\"");
}

TEST(JsonWriter, StringsAsNlohmannWritesThem) {
  for (const std::string& text : AwkwardStrings()) {
    EXPECT_EQ(WriterText(text), NlohmannDump(text)) << text;
  }
  // Every byte, alone and before and after every other byte.
  for (int first = 0; first < 256; ++first) {
    for (int second = 0; second < 256; ++second) {
      const std::string text{static_cast<char>(first), static_cast<char>(second)};
      ASSERT_EQ(WriterText(text), NlohmannDump(text)) << first << " " << second;
    }
  }
}

// Empty and nested containers, keys that need escaping, and nesting deeper than the
// indentation the writer copies in one piece.
TEST(JsonWriter, ContainersAsNlohmannWritesThem) {
  JsonWriter writer;
  writer.BeginObject();
  writer.Key("empty object").BeginObject();
  writer.EndObject();
  writer.Key("empty array").BeginArray();
  writer.EndArray();
  writer.Key("k\"e\\y\x01 é \xff").BeginArray();
  writer.BeginArray();
  writer.EndArray();
  writer.BeginObject();
  writer.EndObject();
  writer.Value(std::vector<double>{1.0, kNaN, 0.5});
  writer.Value(std::vector<std::string>{});
  writer.EndArray();
  writer.Key("deep");
  for (int level = 0; level < 40; ++level) writer.BeginArray();
  writer.Value(1);
  for (int level = 0; level < 40; ++level) writer.EndArray();
  writer.Member("last", "value");
  writer.EndObject();

  nlohmann::ordered_json expected;
  expected["empty object"] = nlohmann::ordered_json::object();
  expected["empty array"] = nlohmann::ordered_json::array();
  expected["k\"e\\y\x01 é \xff"] = {nlohmann::ordered_json::array(),
                                    nlohmann::ordered_json::object(),
                                    {1.0, nullptr, 0.5},
                                    nlohmann::ordered_json::array()};
  nlohmann::ordered_json deep = 1;
  for (int level = 0; level < 40; ++level) deep = nlohmann::ordered_json::array({deep});
  expected["deep"] = deep;
  expected["last"] = "value";
  EXPECT_EQ(std::string(writer.text()), NlohmannDump(expected));
}

TEST(JsonWriter, ClearTextKeepsTheStructure) {
  JsonWriter writer;
  writer.BeginArray();
  writer.Value(1);
  const std::string first(writer.text());
  writer.ClearText();
  JsonWriter continuation = writer.Continuation();
  continuation.Value(2);
  writer.Value(3);  // as if after the continuation's values
  writer.EndArray();
  EXPECT_EQ(first + std::string(continuation.text()) + std::string(writer.text()),
            NlohmannDump({1, 2, 3}));
}

}  // namespace
}  // namespace gpubench::tools
