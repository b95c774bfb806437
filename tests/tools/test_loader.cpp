#include "tools/load/loader.hpp"

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"

namespace gpubench::tools {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string DataFile(const std::string& name) {
  return std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/" + name;
}

// The message of the failed Status for `path` (always kInvalidInput), or "" when it loads.
std::string LoadErrorFor(const std::string& path) {
  const auto loaded = LoadBenchmarkFile(path);
  if (loaded.ok()) return "";
  EXPECT_EQ(loaded.status().code(), gpubench::detail::Status::Code::kInvalidInput);
  return loaded.status().message();
}

std::string ParseErrorFor(const std::string& json) {
  const auto parsed = ParseBenchmarkJson(json, "inline.json");
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), gpubench::detail::Status::Code::kInvalidInput);
  return parsed.status().message();
}

TEST(Loader, EmptyFileSaysSoAndWhatIsExpected) {
  EXPECT_THAT(LoadErrorFor(DataFile("empty.json")),
              AllOf(HasSubstr("empty.json is empty"), HasSubstr("--benchmark_out_format=json")));
}

TEST(Loader, MissingFileNamesIt) {
  EXPECT_THAT(LoadErrorFor(DataFile("no_such_file.json")),
              AllOf(HasSubstr("cannot open"), HasSubstr("no_such_file.json")));
}

TEST(Loader, MalformedJsonGivesLineAndColumn) {
  EXPECT_THAT(
      LoadErrorFor(DataFile("malformed.json")),
      AllOf(HasSubstr("malformed.json is not valid JSON"), HasSubstr("line"), HasSubstr("column")));
}

TEST(Loader, ConsoleOutputIsRecognisedAsNotJson) {
  EXPECT_THAT(LoadErrorFor(DataFile("console_output.txt")),
              AllOf(HasSubstr("is not JSON"), HasSubstr("console or CSV")));
}

// A file an editor saved with a UTF-8 byte order mark loads as the same run (docs/compare.md).
TEST(Loader, AByteOrderMarkIsReadPast) {
  std::ifstream source(DataFile("h200/gate_a1.json"), std::ios::binary);
  std::stringstream text;
  text << source.rdbuf();
  const std::string path =
      ::testing::TempDir() + "/gpubench_bom_" + std::to_string(::getpid()) + ".json";
  std::ofstream(path, std::ios::binary) << "\xEF\xBB\xBF" << text.str();
  const auto with_mark = LoadBenchmarkFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(with_mark.ok()) << with_mark.status().message();
  const auto without = LoadBenchmarkFile(DataFile("h200/gate_a1.json"));
  ASSERT_TRUE(without.ok());
  ASSERT_EQ(with_mark.value().benchmarks.size(), without.value().benchmarks.size());
  EXPECT_EQ(with_mark.value().benchmarks.front().name, without.value().benchmarks.front().name);
}

// GB writes every user counter as a number; a field of another kind (a custom reporter's, a
// hand-edited file's) is no counter, and the file's warnings say so instead of the column
// missing from every tool's output without a word.
TEST(Loader, AFieldThatIsNoNumberIsNoCounterAndAWarningSaysSo) {
  const std::string json = R"({"context": {}, "benchmarks": [
    {"name": "a", "run_type": "iteration", "real_time": 1, "time_unit": "ns", "bytes": 8,
     "note": "fast", "ok": true, "gone": null, "shape": {"x": 1}, "list": [1, 2], "nan": "NaN"},
    {"name": "b", "run_type": "iteration", "real_time": 2, "time_unit": "ns", "bytes": 9,
     "note": "slow"}]})";
  for (const bool reference : {false, true}) {
    const auto parsed = reference ? ParseBenchmarkJsonWithNlohmann(json, "odd.json")
                                  : ParseBenchmarkJson(json, "odd.json");
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    const BenchmarkFile& file = parsed.value();
    ASSERT_EQ(file.warnings.size(), 1u) << "reference parser: " << reference;
    EXPECT_THAT(file.warnings[0],
                AllOf(HasSubstr("odd.json: field \"note\" is a string (in 2 rows)"),
                      HasSubstr("field \"ok\" is true or false (in 1 row)"),
                      HasSubstr("field \"gone\" is null"), HasSubstr("\"shape\" is an object"),
                      HasSubstr("\"list\" is an array"), HasSubstr("no counters")));
    EXPECT_THAT(file.warnings[0], ::testing::Not(HasSubstr("\"nan\"")));
    const BenchmarkRecord& a = file.benchmarks.at(0);
    EXPECT_NE(a.FindMetric("bytes"), nullptr);
    EXPECT_NE(a.FindMetric("nan"), nullptr);  // GB's spelling of a NaN counter
    EXPECT_EQ(a.FindMetric("note"), nullptr);
  }
  // Six or more such fields: five are named, the rest counted.
  std::string many = R"({"context": {}, "benchmarks": [{"name": "a", "real_time": 1, )"
                     R"("time_unit": "ns")";
  for (int i = 0; i < 7; ++i) many += ", \"s" + std::to_string(i) + "\": \"x\"";
  many += "}]}";
  const auto parsed = ParseBenchmarkJson(many, "many.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed.value().warnings.size(), 1u);
  EXPECT_THAT(parsed.value().warnings[0],
              AllOf(HasSubstr("\"s4\""), ::testing::Not(HasSubstr("\"s5\"")),
                    HasSubstr("and 2 more fields")));
}

// A time that is finite in its unit but not in nanoseconds is refused, not shown as "inf".
TEST(Loader, ATimeBeyondWhatNanosecondsHoldIsRefused) {
  for (const bool reference : {false, true}) {
    const std::string json = R"({"context": {}, "benchmarks": [{"name": "a", "real_time": 1e300,)"
                             R"( "cpu_time": 1, "time_unit": "s"}]})";
    const auto parsed = reference ? ParseBenchmarkJsonWithNlohmann(json, "huge.json")
                                  : ParseBenchmarkJson(json, "huge.json");
    ASSERT_FALSE(parsed.ok());
    EXPECT_THAT(parsed.status().message(),
                AllOf(HasSubstr("benchmark \"a\""), HasSubstr("\"real_time\" is 1"),
                      HasSubstr("e+300 s,"), HasSubstr("finite number of nanoseconds")));
  }
  EXPECT_EQ(ParseErrorFor(R"({"context": {}, "benchmarks": [{"name": "a", "real_time": 1e300,)"
                          R"( "time_unit": "ns"}]})"),
            "");
}

TEST(Loader, ANameWithANulByteIsRefused) {
  EXPECT_THAT(ParseErrorFor(R"({"context": {}, "benchmarks": [{"name": "a\u0000b", )"
                            R"("real_time": 1, "time_unit": "ns"}]})"),
              AllOf(HasSubstr("benchmark \"a?b\""), HasSubstr("NUL byte")));
}

// A run that aborted in a benchmark under GPUBENCH_MAIN() (written by the unit test
// AbortTest.TheRowsBeforeAreKeptAndTheAbortingBenchmarkIsAnErrorRowOfAValidJson, fake device):
// the rows before it, then gpubench's error row for it and the JSON's end. It loads whole; the
// aborted benchmark is a failed one, the others as usual.
TEST(Loader, ARunThatAbortedLoadsWithTheAbortingBenchmarkFailed) {
  const auto loaded = LoadBenchmarkFile(DataFile("aborted_run.json"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const BenchmarkFile& file = loaded.value();
  EXPECT_TRUE(file.cut_off.empty());
  ASSERT_EQ(file.benchmarks.size(), 3u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(file.benchmarks[i].failed) << file.benchmarks[i].name;
    EXPECT_FALSE(file.benchmarks[i].metrics.empty()) << file.benchmarks[i].name;
  }
  const BenchmarkRecord& aborted = file.benchmarks[2];
  EXPECT_EQ(aborted.name, "AbortTest_Terminates/7/manual_time");
  EXPECT_TRUE(aborted.failed);
  EXPECT_FALSE(aborted.skipped);
  EXPECT_THAT(aborted.failure_message,
              HasSubstr("gpubench: the process aborted (SIGABRT) in the benchmark "
                        "AbortTest_Terminates/7/manual_time"));
}

TEST(Loader, JsonThatIsNotGoogleBenchmarkOutput) {
  EXPECT_THAT(LoadErrorFor(DataFile("not_gb.json")),
              AllOf(HasSubstr("not Google Benchmark output"), HasSubstr("\"benchmarks\" array")));
  EXPECT_THAT(ParseErrorFor("[1, 2]"), HasSubstr("top level is an array"));
  EXPECT_THAT(ParseErrorFor("{\"benchmarks\": {}}"), HasSubstr("expected an array"));
  EXPECT_THAT(ParseErrorFor("{\"benchmarks\": [3]}"), HasSubstr("entry 0 of \"benchmarks\""));
}

TEST(Loader, DuplicateNamesAreRejectedWithBothPositions) {
  EXPECT_THAT(LoadErrorFor(DataFile("duplicate_names.json")),
              AllOf(HasSubstr("benchmark \"BM_Copy/64\" (entry 2"), HasSubstr("duplicate"),
                    HasSubstr("entry 0"), HasSubstr("unique")));
}

TEST(Loader, DuplicateRepetitionIndexIsRejected) {
  const std::string row =
      R"({"name": "A", "run_name": "A", "run_type": "iteration", "repetitions": 3,
          "repetition_index": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ns"})";
  EXPECT_THAT(ParseErrorFor("{\"benchmarks\": [" + row + "," + row + "]}"),
              AllOf(HasSubstr("duplicate"), HasSubstr("repetition_index 1")));
}

// Repetitions in any order load, each index once; a duplicate is found wherever it comes.
TEST(Loader, RepetitionsOutOfOrderLoadAndTheirDuplicatesAreFound) {
  const auto rep = [](int index) {
    return R"({"name": "A", "run_name": "A", "run_type": "iteration", "repetitions": 4, )"
           R"("repetition_index": )" +
           std::to_string(index) + R"(, "real_time": )" + std::to_string(10 + index) +
           R"(, "time_unit": "ns"})";
  };
  const auto file = [&](std::initializer_list<int> order) {
    std::string json = "{\"benchmarks\": [";
    for (int index : order) json += (json.back() == '[' ? "" : ",") + rep(index);
    return json + "]}";
  };
  const auto parsed = ParseBenchmarkJson(file({0, 2, 1, 3}), "order.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed.value().benchmarks.at(0).seen_repetition_indices,
            (std::vector<int>{0, 2, 1, 3}));
  EXPECT_THAT(ParseErrorFor(file({0, 2, 1, 2})),
              AllOf(HasSubstr("duplicate"), HasSubstr("repetition_index 2")));
  EXPECT_THAT(ParseErrorFor(file({3, 0, 3})),
              AllOf(HasSubstr("duplicate"), HasSubstr("repetition_index 3")));
  EXPECT_THAT(ParseErrorFor(file({1, 0, 0})),
              AllOf(HasSubstr("duplicate"), HasSubstr("repetition_index 0")));
  EXPECT_EQ(ParseErrorFor(file({3, 2, 1, 0})), "");
}

TEST(Loader, MissingAndInvalidFieldsAreNamed) {
  EXPECT_THAT(LoadErrorFor(DataFile("missing_real_time.json")),
              AllOf(HasSubstr("BM_NoTime"), HasSubstr("\"real_time\" is missing")));
  EXPECT_THAT(LoadErrorFor(DataFile("bad_time_unit.json")),
              AllOf(HasSubstr("BM_Minutes"), HasSubstr("\"min\""), HasSubstr("\"ns\"")));
  EXPECT_THAT(ParseErrorFor(R"({"benchmarks": [{"real_time": 1, "time_unit": "ns"}]})"),
              HasSubstr("has no \"name\""));
  EXPECT_THAT(
      ParseErrorFor(R"({"benchmarks": [{"name": "A", "real_time": "fast", "time_unit": "ns"}]})"),
      AllOf(HasSubstr("benchmark \"A\""), HasSubstr("\"real_time\" must be a number")));
  EXPECT_THAT(
      ParseErrorFor(R"({"benchmarks": [{"name": "A", "real_time": -1, "time_unit": "ns"}]})"),
      HasSubstr("negative"));
}

TEST(Loader, BareNanAndInfinityCountersAreParsed) {
  const BenchmarkFile file = LoadBenchmarkFile(DataFile("nan_inf_counters.json")).value();
  ASSERT_EQ(file.benchmarks.size(), 1u);
  const BenchmarkRecord& record = file.benchmarks[0];
  EXPECT_TRUE(std::isnan(record.FindMetric("hit_ratio")->values.at(0)));
  EXPECT_EQ(record.FindMetric("peak")->values.at(0), INFINITY);
  EXPECT_EQ(record.FindMetric("trough")->values.at(0), -INFINITY);
  EXPECT_TRUE(std::isnan(record.FindMetric("old_style_nan")->values.at(0)));
  EXPECT_EQ(record.FindMetric("old_style_inf")->values.at(0), -INFINITY);
  EXPECT_EQ(record.label, "NaN in a label stays text");
  EXPECT_DOUBLE_EQ(record.FindMetric(counter::kRealTime)->values.at(0), 1500.0);  // us -> ns
}

TEST(Loader, NanTimeIsRejected) {
  EXPECT_THAT(
      LoadErrorFor(DataFile("nan_real_time.json")),
      AllOf(HasSubstr("BM_Rates/8"), HasSubstr("\"real_time\" is nan"), HasSubstr("finite")));
}

TEST(Loader, QuotingLeavesStringsAndOtherTokensAlone) {
  EXPECT_FALSE(QuoteNonFiniteTokens(R"({"a": "NaN Infinity", "b": [true, false, null, 1e5]})"));
  EXPECT_EQ(*QuoteNonFiniteTokens(R"({"a\"NaN": NaN, "b": [-Infinity, inf]})"),
            R"({"a\"NaN": "NaN", "b": ["-Infinity", "Infinity"]})");
}

TEST(Loader, NormalisesTimeUnits) {
  const char* json = R"({"benchmarks": [
      {"name": "ns", "real_time": 5, "cpu_time": 5, "time_unit": "ns"},
      {"name": "us", "real_time": 5, "cpu_time": 5, "time_unit": "us"},
      {"name": "ms", "real_time": 5, "cpu_time": 5, "time_unit": "ms"},
      {"name": "s", "real_time": 5, "cpu_time": 5, "time_unit": "s"}]})";
  const BenchmarkFile file = ParseBenchmarkJson(json, "units.json").value();
  EXPECT_DOUBLE_EQ(file.Find("ns")->metrics[0].values[0], 5.0);
  EXPECT_DOUBLE_EQ(file.Find("us")->metrics[0].values[0], 5e3);
  EXPECT_DOUBLE_EQ(file.Find("ms")->metrics[0].values[0], 5e6);
  EXPECT_DOUBLE_EQ(file.Find("s")->metrics[0].values[0], 5e9);
}

TEST(Loader, GroupsRepetitionsAndIgnoresAggregates) {
  const char* json = R"({"context": {"gpu_name": "X", "num_cpus": 2}, "benchmarks": [
      {"name": "A", "run_name": "A", "run_type": "iteration", "repetitions": 2,
       "repetition_index": 0, "real_time": 1, "cpu_time": 1, "time_unit": "ns", "c": 1},
      {"name": "A", "run_name": "A", "run_type": "iteration", "repetitions": 2,
       "repetition_index": 1, "real_time": 3, "cpu_time": 3, "time_unit": "ns", "c": 2},
      {"name": "A_mean", "run_name": "A", "run_type": "aggregate", "repetitions": 2,
       "aggregate_name": "mean", "aggregate_unit": "time", "real_time": 2, "cpu_time": 2,
       "time_unit": "ns", "c": 1.5},
      {"name": "A_cv", "run_name": "A", "run_type": "aggregate", "repetitions": 2,
       "aggregate_name": "cv", "aggregate_unit": "percentage", "real_time": 0.5,
       "cpu_time": 0.5, "time_unit": "ns"}]})";
  const BenchmarkFile file = ParseBenchmarkJson(json, "reps.json").value();
  ASSERT_EQ(file.benchmarks.size(), 1u);
  EXPECT_EQ(file.benchmarks[0].RepetitionCount(), 2u);
  EXPECT_EQ(file.benchmarks[0].FindMetric("c")->values, (std::vector<double>{1, 2}));
  EXPECT_EQ(*file.ContextValue(context_key::kGpuName), "X");
  EXPECT_EQ(*file.ContextValue("num_cpus"), "2");
}

TEST(Loader, AggregatesOnlyFilesUseTheMedian) {
  const char* json = R"({"benchmarks": [
      {"name": "A_mean", "run_name": "A", "run_type": "aggregate", "repetitions": 5,
       "aggregate_name": "mean", "aggregate_unit": "time", "real_time": 2, "cpu_time": 2,
       "time_unit": "us"},
      {"name": "A_median", "run_name": "A", "run_type": "aggregate", "repetitions": 5,
       "aggregate_name": "median", "aggregate_unit": "time", "real_time": 3, "cpu_time": 3,
       "time_unit": "us"}]})";
  const BenchmarkFile file = ParseBenchmarkJson(json, "aggregates.json").value();
  ASSERT_EQ(file.benchmarks.size(), 1u);
  EXPECT_TRUE(file.benchmarks[0].aggregates_only);
  EXPECT_EQ(file.benchmarks[0].metrics[0].values, (std::vector<double>{3000}));
}

TEST(Loader, ErroredAndSkippedRowsMarkTheBenchmarkFailed) {
  const char* json = R"({"benchmarks": [
      {"name": "E", "run_name": "E", "run_type": "iteration", "repetitions": 1,
       "repetition_index": 0, "error_occurred": true, "error_message": "boom",
       "real_time": 0, "cpu_time": 0, "time_unit": "ns"},
      {"name": "S", "run_name": "S", "run_type": "iteration", "repetitions": 1,
       "repetition_index": 0, "skipped": true, "skip_message": "no GPU"}]})";
  const BenchmarkFile file = ParseBenchmarkJson(json, "failed.json").value();
  EXPECT_TRUE(file.Find("E")->failed);
  EXPECT_FALSE(file.Find("E")->skipped);
  EXPECT_EQ(file.Find("E")->failure_message, "boom");
  EXPECT_TRUE(file.Find("S")->failed);
  EXPECT_TRUE(file.Find("S")->skipped);
}

TEST(Loader, ThousandsOfBenchmarks) {
  std::string json = "{\"benchmarks\": [";
  for (int i = 0; i < 5000; ++i) {
    json += (i ? "," : "") + std::string("{\"name\": \"BM_") + std::to_string(i) +
            "\", \"real_time\": " + std::to_string(i + 1) + ", \"time_unit\": \"ns\"}";
  }
  json += "]}";
  const BenchmarkFile file = ParseBenchmarkJson(json, "many.json").value();
  ASSERT_EQ(file.benchmarks.size(), 5000u);
  EXPECT_DOUBLE_EQ(file.Find("BM_4999")->metrics[0].values[0], 5000.0);
}

}  // namespace
}  // namespace gpubench::tools
