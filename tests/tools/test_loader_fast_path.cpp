// The fast loader (RapidJSON, in situ) must read every document exactly as
// the reference loader (nlohmann-json) does, or leave it to the reference.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "loader_agreement.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {
namespace {

using testing::LoadersDisagree;

std::string ReadDataFile(const std::string& name) {
  std::ifstream in(std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/" + name, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// A GB file with one row; `value` is the text of counter "c", `name` the
// text of the row's name (both inserted as they are).
std::string Row(const std::string& value, const std::string& name = "\"BM_A\"") {
  return R"({"context": {"gpu_name": "X", "caches": [{"size": 1}]}, "benchmarks": [
    {"name": )" +
         name + R"(, "run_name": "BM_A", "run_type": "iteration", "repetitions": 1,
     "repetition_index": 0, "threads": 1, "iterations": 10, "real_time": 1.5e+00,
     "cpu_time": 2, "time_unit": "ns", "c": )" +
         value + "}]}";
}

TEST(LoaderFastPath, IsBuiltWhereRapidJsonIsInstalled) {
#if defined(__has_include)
#if __has_include(<rapidjson/reader.h>)
  EXPECT_TRUE(FastJsonParserAvailable());
#endif
#endif
  if (!FastJsonParserAvailable()) GTEST_SKIP() << "built without RapidJSON";
}

TEST(LoaderFastPath, TakesGoogleBenchmarkOutputWithNanAndInfinity) {
  if (!FastJsonParserAvailable()) GTEST_SKIP() << "built without RapidJSON";
  EXPECT_TRUE(ParseBenchmarkJsonFastPathOnly(ReadDataFile("plain_gb.json"), "plain_gb.json"));
  for (const char* value : {"NaN", "-NaN", "Infinity", "-Infinity", "Inf", "-Inf"}) {
    EXPECT_TRUE(ParseBenchmarkJsonFastPathOnly(Row(value), "row.json")) << value;
  }
}

TEST(LoaderFastPath, LeavesWhatItMightReadDifferentlyToTheReference) {
  if (!FastJsonParserAvailable()) GTEST_SKIP() << "built without RapidJSON";
  // Spellings that GB writes no longer (nan, inf) or never (+inf): the
  // RapidJSON path leaves them to the reference (which quotes them first);
  // the simdjson path reads them as the reference does.
  for (const char* value : {"nan", "+inf", "-inf", "inf", "-nan"}) {
    EXPECT_EQ(ParseBenchmarkJsonFastPathOnly(Row(value), "row.json").has_value(),
              SimdjsonFastPathAvailable())
        << value;
    EXPECT_EQ(LoadersDisagree(Row(value)), "") << value;
  }
  const std::vector<std::string> declined = {
      Row("1e400"),                      // overflow: nlohmann's message
      Row("1"),                          // (sanity check below: accepted)
      Row("1", "\"\\udc00\""),           // lone low surrogate
      Row("1", "\"\xff\""),              // invalid UTF-8
      Row("1", "\"\xed\xa0\x80\""),      // encoded surrogate
      "\xEF\xBB\xBF" + Row("1"),         // byte order mark
      Row("1") + std::string("\0x", 2),  // NUL after the document
      Row("1") + "x",                    // garbage after the document
  };
  for (std::size_t i = 0; i < declined.size(); ++i) {
    const bool accepted = ParseBenchmarkJsonFastPathOnly(declined[i], "row.json").has_value();
    EXPECT_EQ(accepted, i == 1) << declined[i];
  }
}

TEST(LoaderFastPath, AgreesWithTheReferenceOnTestData) {
  for (const char* name :
       {"bad_time_unit.json", "console_output.txt", "duplicate_names.json", "empty.json",
        "malformed.json", "missing_real_time.json", "nan_inf_counters.json", "nan_real_time.json",
        "not_gb.json", "plain_gb.json", "zero_time_baseline.json", "zero_time_contender.json"}) {
    EXPECT_EQ(LoadersDisagree(ReadDataFile(name)), "") << name;
  }
}

TEST(LoaderFastPath, AgreesOnNumbers) {
  for (const char* value :
       {"0", "-0", "-0.0", "0.0", "1", "-1", "1.5", "1E5", "1e+5", "1.5E-3", "12345678901234567",
        "8.3694279335541025e+04",
        // More than 19 significant digits: simdjson 3.0.1's get_number()
        // returns 0 for these (found by the fuzzer in CI).
        "4.19566800000000000000e+03", "1.0000000000000000000001", "-0.00000000000000000000012345",
        "123456789012345678901.5",
        // 19 digits and a point: simdjson counts the point, takes the same path (CI's fuzzer).
        "1.797693134862315807e308", "1.234567890123456789", "-9.876543210987654321e-5",
        "0.1234567890123456789", "2.1474836480000000e+09", "9007199254740993",
        "18446744073709551615", "18446744073709551616", "-9223372036854775808",
        "-9223372036854775809", "123456789012345678901234567890", "1e-400", "4.9e-324",
        "2.4703282292062327e-324", "2.2250738585072011e-308", "1.7976931348623157e308",
        "1.7976931348623159e308", "1e400", "-1e400", "0e400", "1e-99999999999", "01", "1.", ".5",
        "1e", "-", "--1", "+1", "0x10", "NaN", "-NaN", "Infinity", "-Infinity", "Inf", "-Inf",
        "nan", "+inf", "INFINITY", "NaNa", "Infinit", "Infinityy", "-nan", "Nan", "\"NaN\"",
        "\"x\"", "true", "null", "[1, 2]", "{\"a\": 1}"}) {
    EXPECT_EQ(LoadersDisagree(Row(value)), "") << value;
  }
}

TEST(LoaderFastPath, AgreesOnStrings) {
  const std::vector<std::string> names = {
      // Escapes, UTF-8 and surrogates.
      R"("BM_A")", R"("a\"b\\c\/d\b\f\n\r\t")", R"("\u00e9")", "\"\xc3\xa9\"", R"("\ud83d\ude00")",
      "\"\xf0\x9f\x98\x80\"", R"("\udc00")", R"("\ud800")", R"("\ud800x")", R"("\ud800\u0041")",
      R"("\u0000")", R"("\x")", R"("\u12")", "\"unterminated",
      // Ill-formed UTF-8: invalid byte, overlong, encoded surrogate, above
      // U+10FFFF, truncated.
      "\"\xff\"", "\"\xc0\xaf\"", "\"\xe0\x80\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
      "\"\xe2\x82\"",
      // Control characters, raw (RapidJSON's SIMD scan misses 0x1A-0x1F) and
      // escaped.
      "\"\x01\"", "\"\x19\"", "\"\x1a\"", "\"\x1f\"", "\"0123456789abcdef\x1a\"", "\"tab\there\"",
      R"("\u001a")", R"("\n\t")", "\"\x7f\""};
  for (const std::string& name : names) {
    EXPECT_EQ(LoadersDisagree(Row("1", name)), "") << name;
  }
}

TEST(LoaderFastPath, AgreesOnStructure) {
  std::string deep = "{\"context\": {\"deep\": ";
  for (int i = 0; i < 100000; ++i) deep += '[';
  for (int i = 0; i < 100000; ++i) deep += ']';
  deep += "}, \"benchmarks\": []}";
  const std::vector<std::string> documents = {
      deep,
      "\xEF\xBB\xBF" + Row("1"),
      Row("1") + std::string("\0", 1),
      Row("1") + " \n\t\r",
      Row("1") + "x",
      Row("1") + "{}",
      R"({"benchmarks": [], "benchmarks": []})",
      R"({"benchmarks": [{"name": "A", "name": "B", "real_time": 1, "time_unit": "ns"}]})",
      R"({"benchmarks": [{}]})",
      R"({"benchmarks": [1]})",
      R"({"benchmarks": {}})",
      R"({"context": [], "benchmarks": []})",
      R"({"context": {"k": NaN, "n": 1.5, "b": true, "z": null}, "benchmarks": []})",
      R"({"benchmarks": [{"name": "A", "real_time": NaN, "time_unit": "ns"}]})",
      R"({"benchmarks": [{"name": "A", "real_time": 1, "time_unit": "ns", "c": -Infinity,)"
      R"( "d": Infinity, "e": NaN, "label": "NaN"}]})",
      R"([NaN])",
      R"({"a": 1,})",
      R"({"benchmarks": [}])",
      "{\"benchmarks\": [\n  {\"name\": \"A\",\n   \"real_time\": 1,\n   \"time_unit\": "
      "\"ns\"}\n]}",
      "  {\"benchmarks\": []}  ",
      "{\"benchmarks\": []}\n\n",
      // A key and colon inside an array (found by the fuzzer in CI, 2026-11-30).
      R"({"context": {"caches": [{"a": 1}, "num_sharing": 1}, {"b": 2}]}, "benchmarks": []})",
      R"({"context": {"caches": [{"a": 1}, "k": 1]}, "benchmarks": []})",
      R"({"benchmarks": [], "x": ["k": 1]})",
  };
  for (const std::string& document : documents) {
    EXPECT_EQ(LoadersDisagree(document), "") << document.substr(0, 200);
  }
}

// Rows whose counters change order, appear, disappear or repeat exercise the
// guesses of the fast loader's bookkeeping (key ids, series positions,
// previous benchmark).
TEST(LoaderFastPath, AgreesWhenRowsDifferInTheirKeys) {
  const std::string json = R"({"benchmarks": [
    {"name": "A", "run_name": "A", "repetitions": 3, "repetition_index": 0, "real_time": 1,
     "cpu_time": 1, "time_unit": "ns", "x": 1, "y": 2, "z": 3},
    {"name": "A", "run_name": "A", "repetitions": 3, "repetition_index": 1, "real_time": 1,
     "time_unit": "ns", "z": 4, "x": 5, "w": 6},
    {"name": "B", "run_name": "B", "repetitions": 2, "repetition_index": 0, "real_time": 2,
     "cpu_time": 1, "time_unit": "us", "y": 7, "y": 8},
    {"name": "A", "run_name": "A", "repetitions": 3, "repetition_index": 2, "real_time": 1,
     "cpu_time": 3, "time_unit": "ns", "x": "NaN", "y": "text", "z": true},
    {"name": "B", "run_name": "B", "repetitions": 2, "repetition_index": 1, "cpu_time": 1,
     "real_time": 2, "time_unit": "us", "y": 9},
    {"name": "C_median", "run_name": "C", "run_type": "aggregate", "aggregate_name": "median",
     "repetitions": 5, "real_time": 3, "time_unit": "ns", "q": 1},
    {"name": "C_mean", "run_name": "C", "run_type": "aggregate", "aggregate_name": "mean",
     "repetitions": 5, "real_time": 3, "time_unit": "ns", "q": 2}]})";
  EXPECT_EQ(LoadersDisagree(json), "");
  if (FastJsonParserAvailable()) {
    EXPECT_TRUE(ParseBenchmarkJsonFastPathOnly(json, "keys.json"));
  }
}

}  // namespace
}  // namespace gpubench::tools
