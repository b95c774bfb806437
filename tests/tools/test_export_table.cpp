// gpubench-export --to csv's pieces: the split of a GB name, CSV fields and numbers, and the
// table of small files with failed benchmarks, uneven counters and aggregates only. The Python
// tests (tests/python) read whole tables of real H200 runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "schema/counter_table.hpp"
#include "tools/base/csv.hpp"
#include "tools/export/run_table.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {
namespace {

struct Split {
  std::string family, arguments;
  int gpu;  // -1: none
};

Split SplitOf(const std::string& name) {
  const BenchmarkNameParts parts = SplitBenchmarkName(name);
  return {parts.family, parts.arguments, parts.gpu ? *parts.gpu : -1};
}

TEST(SplitBenchmarkName, FamilyArgumentsAndDeviceWithoutGbsAttributes) {
  const auto expect = [](const std::string& name, const Split& want) {
    const Split got = SplitOf(name);
    EXPECT_EQ(got.family, want.family) << name;
    EXPECT_EQ(got.arguments, want.arguments) << name;
    EXPECT_EQ(got.gpu, want.gpu) << name;
  };
  expect("BM_Copy/1048576/gpu:1/manual_time", {"BM_Copy", "1048576", 1});
  expect("BM_TinyKernel/manual_time", {"BM_TinyKernel", "", -1});
  expect("BM_TinyKernel", {"BM_TinyKernel", "", -1});
  // A fixture's method belongs to the family; the first number starts the arguments.
  expect("AddDuringLoad<float>/Reduce_float/20480000",
         {"AddDuringLoad<float>/Reduce_float", "20480000", -1});
  expect("BM_X<std::pair<int, float>>/n:64/k:8/iterations:10/repeats:2/manual_time",
         {"BM_X<std::pair<int, float>>", "n:64/k:8", -1});
  expect("BM_T<a/b>/3/min_time:0.100/threads:2/real_time", {"BM_T<a/b>", "3", -1});
  expect("BM_Neg/-1/2.5e3/process_time", {"BM_Neg", "-1/2.5e3", -1});
  expect("BM_Copy/gpu:12/manual_time", {"BM_Copy", "", 12});
  expect("gpu:3", {"gpu:3", "", -1});                     // a name, not a tag
  expect("BM_Name/gpu:x/4", {"BM_Name/gpu:x", "4", -1});  // not a device number
}

TEST(Csv, FieldsAreQuotedOnlyWhereTheyMustBeAndNumbersReadBack) {
  const auto field = [](const std::string& text) {
    std::string out;
    AppendCsvField(out, text);
    return out;
  };
  EXPECT_EQ(field("BM_Copy/1048576"), "BM_Copy/1048576");
  EXPECT_EQ(field(""), "");
  EXPECT_EQ(field("a,b"), "\"a,b\"");
  EXPECT_EQ(field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(field("line\nbreak"), "\"line\nbreak\"");
  EXPECT_EQ(field("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(field(" padded"), "\" padded\"");
  EXPECT_EQ(field("semi;colon'"), "semi;colon'");
  const auto number = [](double value) {
    std::string out;
    AppendCsvNumber(out, value);
    return out;
  };
  EXPECT_EQ(number(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(number(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(number(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(number(0.1), "0.1");
  EXPECT_EQ(number(6355.963376357943), "6355.963376357943");
  EXPECT_EQ(std::stod(number(1.0 / 3.0)), 1.0 / 3.0);
  EXPECT_EQ(number(1e300), "1e+300");
}

BenchmarkFile Parse(const std::string& json) {
  const detail::Result<BenchmarkFile> file = ParseBenchmarkJson(json, "input.json");
  EXPECT_TRUE(file.ok()) << file.status().message();
  return file.ok() ? file.value() : BenchmarkFile{};
}

std::string Table(const BenchmarkFile& file, RunTableResult* result,
                  const ExportOptions& options = {}) {
  std::string text;
  const detail::Result<RunTableResult> written =
      WriteRunTable(file, options, [&](std::string_view piece) { text.append(piece); });
  EXPECT_TRUE(written.ok()) << written.status().message();
  if (written.ok()) *result = written.value();
  return text;
}

std::size_t Lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

const char* kTwoBenchmarks = R"({
  "context": {"gpubench_settings_fingerprint": "00ab", "gpubench_method_version": "4"},
  "benchmarks": [
    {"name": "BM_A/8/manual_time", "run_name": "BM_A/8/manual_time", "run_type": "iteration",
     "repetitions": 2, "repetition_index": 0, "real_time": 1.5, "cpu_time": 2.0,
     "time_unit": "us", "bytes_moved": 100, "my_counter": 7},
    {"name": "BM_A/8/manual_time", "run_name": "BM_A/8/manual_time", "run_type": "iteration",
     "repetitions": 2, "repetition_index": 1, "real_time": 1.7, "cpu_time": 2.0,
     "time_unit": "us", "bytes_moved": 101},
    {"name": "BM_A/8/manual_time_cv", "run_name": "BM_A/8/manual_time", "run_type": "aggregate",
     "repetitions": 2, "aggregate_name": "cv", "aggregate_unit": "percentage",
     "real_time": 0.088, "cpu_time": 0.0, "time_unit": "us", "bytes_moved": 0.007},
    {"name": "BM_Failed", "run_name": "BM_Failed", "run_type": "iteration", "repetitions": 1,
     "repetition_index": 0, "error_occurred": true, "error_message": "no GPU"}
  ]})";

TEST(RunTable, RowsOfRepetitionsAndAggregatesWithTheirUnitsAndNotesForWhatIsLeftOut) {
  RunTableResult result;
  const std::string text = Table(Parse(kTwoBenchmarks), &result);
  // real_time, cpu_time and bytes_moved of two repetitions, my_counter of one, and the cv row's
  // three values.
  EXPECT_EQ(result.rows, 2u * 3 + 1 + 3);
  EXPECT_EQ(Lines(text), result.rows + 1);
  EXPECT_EQ(result.benchmarks, 1u);
  EXPECT_NE(text.find("BM_A/8/manual_time,BM_A,8,,iteration,1,,real_time,1700,,ns,"
                      "lower_is_better,true,00ab,4,false,\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("BM_A/8/manual_time,BM_A,8,,aggregate,,cv,real_time,0.088,,ratio,"),
            std::string::npos)
      << text;
  // A counter in one of two repetitions: its row cannot name the repetition.
  EXPECT_NE(text.find(",iteration,,,my_counter,7,,,unknown,false,"), std::string::npos) << text;
  ASSERT_EQ(result.notes.size(), 2u);
  EXPECT_NE(result.notes[0].find("my_counter is in 1 of 2 repetitions"), std::string::npos);
  EXPECT_NE(result.notes[1].find("\"BM_Failed\" failed (no GPU)"), std::string::npos);
  EXPECT_EQ(text.find("BM_Failed"), std::string::npos);
}

// A repetition that failed takes nothing from the others: each keeps its rows and its index (GB's
// aggregates leave the failed one out too), and a note names the failed repetition.
TEST(RunTable, AFailedRepetitionLeavesTheOthersRowsWithTheirIndices) {
  const auto row = [](int index, const std::string& rest) {
    return R"({"name": "BM_B", "run_name": "BM_B", "run_type": "iteration", "repetitions": 4,
               "repetition_index": )" +
           std::to_string(index) + ", " + rest + "}";
  };
  const std::string ran = R"("real_time": 2, "cpu_time": 3, "time_unit": "ns")";
  const std::string json = R"({"context": {}, "benchmarks": [)" + row(0, ran) + "," +
                           row(2, R"("error_occurred": true, "error_message": "lost the GPU")") +
                           "," + row(3, ran) + "," + row(1, ran) + "]}";
  RunTableResult result;
  const std::string text = Table(Parse(json), &result);
  EXPECT_EQ(result.rows, 3u * 2) << text;
  for (const char* index : {"0", "1", "3"}) {
    EXPECT_NE(text.find(std::string("BM_B,BM_B,,,iteration,") + index + ",,real_time,2,"),
              std::string::npos)
        << index << "\n"
        << text;
  }
  EXPECT_EQ(text.find(",iteration,2,"), std::string::npos) << text;
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_EQ(result.notes[0],
            "benchmark \"BM_B\": repetition 2 failed (lost the GPU); the other 3 repetitions are "
            "exported");
  const std::string skipped = R"({"context": {}, "benchmarks": [)" + row(0, ran) + "," +
                              row(1, R"("skipped": true)") + "," + row(2, R"("skipped": true)") +
                              "]}";
  Table(Parse(skipped), &result);
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_EQ(result.notes[0],
            "benchmark \"BM_B\": repetitions 1 and 2 were skipped; the other repetition is "
            "exported");
}

TEST(RunTable, CountersCanBeChosenAndAnUnknownOneSaysWhatTheRunHas) {
  ExportOptions options;
  options.metrics = {"time"};
  RunTableResult result;
  const BenchmarkFile file = Parse(kTwoBenchmarks);
  const std::string text = Table(file, &result, options);
  EXPECT_EQ(result.rows, 3u);  // two repetitions and the cv
  options.metrics = {"nope"};
  const detail::Result<RunTableResult> refused =
      WriteRunTable(file, options, [](std::string_view) {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("no benchmark has the counter \"nope\"; the "
                                            "benchmarks have: real_time, cpu_time, bytes_moved"),
            std::string::npos)
      << refused.status().message();
}

TEST(RunTable, AFileOfAggregatesOnlyGivesItsAggregateRows) {
  const char* json = R"({"context": {}, "benchmarks": [
    {"name": "BM_A_mean", "run_name": "BM_A", "run_type": "aggregate", "repetitions": 3,
     "aggregate_name": "mean", "aggregate_unit": "time", "real_time": 2, "time_unit": "ms"},
    {"name": "BM_A_median", "run_name": "BM_A", "run_type": "aggregate", "repetitions": 3,
     "aggregate_name": "median", "aggregate_unit": "time", "real_time": 3, "time_unit": "ms"}]})";
  RunTableResult result;
  const std::string text = Table(Parse(json), &result);
  EXPECT_EQ(result.rows, 2u) << text;
  EXPECT_NE(text.find("BM_A,BM_A,,,aggregate,,mean,real_time,2e+06,,ns,"), std::string::npos)
      << text;
  EXPECT_NE(text.find("BM_A,BM_A,,,aggregate,,median,real_time,3e+06,,ns,"), std::string::npos)
      << text;
  EXPECT_EQ(text.find(",iteration,"), std::string::npos) << text;
}

// Three repetitions that stopped for three reasons, with GB's aggregates of the codes as GB 1.9
// writes them (a mean stop_reason of 3.67 and clock_event_reasons of 345.67).
const char* kCodes = R"({
  "context": {"gpubench_settings_fingerprint": "00ab", "gpubench_method_version": "5"},
  "benchmarks": [
    {"name": "BM_C/manual_time", "run_name": "BM_C/manual_time", "run_type": "iteration",
     "repetitions": 3, "repetition_index": 0, "real_time": 1, "cpu_time": 1, "time_unit": "us",
     "stop_reason": 1, "clock_event_reasons": 0},
    {"name": "BM_C/manual_time", "run_name": "BM_C/manual_time", "run_type": "iteration",
     "repetitions": 3, "repetition_index": 1, "real_time": 1, "cpu_time": 1, "time_unit": "us",
     "stop_reason": 2, "clock_event_reasons": 12},
    {"name": "BM_C/manual_time", "run_name": "BM_C/manual_time", "run_type": "iteration",
     "repetitions": 3, "repetition_index": 2, "real_time": 1, "cpu_time": 1, "time_unit": "us",
     "stop_reason": 8, "clock_event_reasons": 1025},
    {"name": "BM_C/manual_time_mean", "run_name": "BM_C/manual_time", "run_type": "aggregate",
     "repetitions": 3, "aggregate_name": "mean", "aggregate_unit": "time", "real_time": 1,
     "cpu_time": 1, "time_unit": "us", "stop_reason": 3.6666666666666665,
     "clock_event_reasons": 345.6666666666667}
  ]})";

TEST(RunTable, CodesAreWrittenInWordsAndNeverAsAggregates) {
  RunTableResult result;
  const std::string text = Table(Parse(kCodes), &result);
  const auto row = [](int repetition, const std::string& counter, const std::string& words,
                      const std::string& unit) {
    return "BM_C/manual_time,BM_C,,,iteration," + std::to_string(repetition) + ",," + counter +
           ",," + words + "," + unit + ",neither,false,00ab,5,false,\n";
  };
  EXPECT_NE(text.find(row(0, counter::kStopReason, "precision", "reason")), std::string::npos)
      << text;
  EXPECT_NE(text.find(row(1, counter::kStopReason, "max_seconds", "reason")), std::string::npos)
      << text;
  // A code this version does not know keeps its number, as text.
  EXPECT_NE(text.find(row(2, counter::kStopReason, "8", "reason")), std::string::npos) << text;
  EXPECT_NE(text.find(row(0, counter::kClockEventReasons, "none", "reasons")), std::string::npos)
      << text;
  EXPECT_NE(text.find(row(1, counter::kClockEventReasons, "sw_power_cap|hw_slowdown", "reasons")),
            std::string::npos)
      << text;
  // 0x401: gpu_idle and a bit without a name.
  EXPECT_NE(text.find(row(2, counter::kClockEventReasons, "gpu_idle|0x400", "reasons")),
            std::string::npos)
      << text;
  // The mean row keeps the times, not the codes.
  EXPECT_NE(text.find(",aggregate,,mean,real_time,1000,,ns,"), std::string::npos) << text;
  EXPECT_EQ(text.find(",aggregate,,mean,stop_reason,"), std::string::npos) << text;
  EXPECT_EQ(text.find(",aggregate,,mean,clock_event_reasons,"), std::string::npos) << text;
  EXPECT_EQ(result.rows, 3u * 4 + 2);  // four counters of three repetitions, two times' mean
}

TEST(DashboardExport, RefusesCodesAndDoesNotListThem) {
  const BenchmarkFile file = Parse(kCodes);
  ExportOptions options;
  options.metrics = {"time", counter::kStopReason};
  const detail::Result<ExportResult> bencher = ExportBencher(file, options);
  ASSERT_FALSE(bencher.ok());
  EXPECT_NE(bencher.status().message().find("stop_reason (unit reason) is a code"),
            std::string::npos)
      << bencher.status().message();
  options.metrics = {counter::kClockEventReasons};
  options.overrides.directions[counter::kClockEventReasons] = Direction::kLowerIsBetter;
  const detail::Result<ExportResult> action = ExportGithubActionBenchmark(file, options);
  ASSERT_FALSE(action.ok());
  EXPECT_NE(action.status().message().find("clock_event_reasons (unit reasons) is a code"),
            std::string::npos)
      << action.status().message();
  for (const BenchmarkFile* listed : {&file, static_cast<const BenchmarkFile*>(nullptr)}) {
    for (const BencherMeasure& measure : ListBencherMeasures(listed)) {
      EXPECT_NE(measure.metric, counter::kStopReason);
      EXPECT_NE(measure.metric, counter::kClockEventReasons);
    }
  }
}

}  // namespace
}  // namespace gpubench::tools
