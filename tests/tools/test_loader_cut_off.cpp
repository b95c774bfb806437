// Files cut off mid-write (a benchmark binary killed by a CI timeout, or still running): the
// loader keeps every complete row before the cut and nothing of a partial last row, or, cut
// before the first row, fails with a message that says so. Real H200 files are cut at a dense
// sample of byte offsets. Where their rows end is found here from the layout Google Benchmark's
// JSONReporter writes (each row closed by "\n    }"), not with the loader's own scan, and what
// the loader recovers is compared with a document made of the uncut file's first rows by
// nlohmann's DOM.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "loader_agreement.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {
namespace {

using ::testing::AllOf;
using testing::FileDifference;
using ::testing::HasSubstr;
using testing::LoadersDisagree;

constexpr const char* kCutBeforeAnyRow = "was cut off mid-write before any benchmark finished";

std::string DataPath(const std::string& name) {
  return std::string(GPUBENCH_COMPARE_TEST_DATA_DIR) + "/" + name;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Where each row of "benchmarks" ends (the index of its closing brace), from GB's layout.
std::vector<std::size_t> RowEnds(const std::string& text) {
  std::vector<std::size_t> ends;
  for (std::size_t at = text.find("\n    }"); at != std::string::npos;
       at = text.find("\n    }", at + 1)) {
    ends.push_back(at + 5);
  }
  return ends;
}

std::size_t RowsBefore(const std::vector<std::size_t>& row_ends, std::size_t bytes) {
  return static_cast<std::size_t>(std::count_if(row_ends.begin(), row_ends.end(),
                                                [&](std::size_t end) { return end < bytes; }));
}

// `text`'s first `rows` rows of "benchmarks", closed as a complete document by nlohmann's DOM
// (GB's bare NaN quoted first: the DOM takes strict JSON only).
std::string FirstRowsDocument(const std::string& text, std::size_t rows) {
  const std::optional<std::string> quoted = QuoteNonFiniteTokens(text);
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(quoted ? *quoted : text);
  nlohmann::ordered_json& benchmarks = document.at("benchmarks");
  benchmarks.erase(benchmarks.begin() + static_cast<std::ptrdiff_t>(rows), benchmarks.end());
  return document.dump(1);
}

// "" when `loaded` is what a file cut off after `rows` complete rows must give: `expected` (the
// document of those rows) and a record of the cut, else what is wrong.
std::string CheckRecovered(BenchmarkFile loaded, const BenchmarkFile& expected,
                           const std::string& name, std::size_t bytes, std::size_t rows) {
  const std::vector<CutOffFile> cut = {{name, bytes, rows, expected.benchmarks.size()}};
  if (loaded.cut_off != cut) {
    return "cut_off is " +
           (loaded.cut_off.empty()
                ? std::string("empty")
                : std::to_string(loaded.cut_off[0].rows_recovered) + " rows of " +
                      std::to_string(loaded.cut_off[0].benchmarks_recovered) + " at " +
                      std::to_string(loaded.cut_off[0].bytes)) +
           ", expected " + std::to_string(rows) + " rows of " +
           std::to_string(expected.benchmarks.size()) + " at " + std::to_string(bytes);
  }
  loaded.cut_off.clear();
  // Each benchmark of a cut file says it was recovered; otherwise the model is the first rows'.
  for (BenchmarkRecord& record : loaded.benchmarks) {
    if (!record.recovered) return "benchmark " + record.name + " is not marked recovered";
    record.recovered = false;
  }
  const std::string difference = FileDifference(loaded, expected);
  return difference.empty() ? "" : "differs from the uncut file's first rows: " + difference;
}

// A real GB file and the models of its first N rows, to check the loader on its prefixes.
class CutRealFile {
 public:
  explicit CutRealFile(const std::string& name)
      : name_(name), uncut_(ReadBytes(DataPath(name))), row_ends_(RowEnds(uncut_)) {
    document_end_ = uncut_.rfind('}');
  }

  const std::string& uncut() const { return uncut_; }
  const std::vector<std::size_t>& row_ends() const { return row_ends_; }
  std::size_t document_end() const { return document_end_; }

  // "" when the loader is right about the file's first `bytes` bytes, else what is wrong.
  std::string CheckCutAt(std::size_t bytes) {
    const std::string prefix = uncut_.substr(0, bytes);
    const std::size_t rows = RowsBefore(row_ends_, bytes);
    detail::Result<BenchmarkFile> loaded = ParseBenchmarkJson(prefix, name_);
    const std::string at = "cut at " + std::to_string(bytes) + ": ";
    if (bytes > document_end_) {  // only the final newline is missing: a complete document
      if (!loaded.ok()) return at + loaded.status().message();
      if (!loaded.value().cut_off.empty()) return at + "a complete document is marked cut off";
      const std::string difference = FileDifference(loaded.value(), Expected(row_ends_.size()));
      return difference.empty() ? "" : at + difference;
    }
    if (rows == 0) {
      if (loaded.ok()) return at + "loads, but no row is complete";
      const std::string& message = loaded.status().message();
      return message.find(kCutBeforeAnyRow) != std::string::npos ? "" : at + message;
    }
    if (!loaded.ok()) return at + loaded.status().message();
    const std::string problem =
        CheckRecovered(std::move(loaded).value(), Expected(rows), name_, bytes, rows);
    return problem.empty() ? "" : at + problem;
  }

 private:
  const BenchmarkFile& Expected(std::size_t rows) {
    auto it = expected_.find(rows);
    if (it == expected_.end()) {
      it = expected_
               .emplace(rows, ParseBenchmarkJson(FirstRowsDocument(uncut_, rows), name_).value())
               .first;
    }
    return it->second;
  }

  std::string name_;
  std::string uncut_;
  std::vector<std::size_t> row_ends_;
  std::size_t document_end_ = 0;
  std::map<std::size_t, BenchmarkFile> expected_;
};

// Offsets to cut at: every `first_row_step`th one in the first row, every one within `window`
// bytes of each row's end (after "}", after ",", inside the next row's first line) and of the
// file's end, every 13th in the context and every `stride`th in between. (Every offset of both
// files would take half a minute: each cut is parsed as a whole.)
std::vector<std::size_t> CutOffsets(const CutRealFile& file, std::size_t first_row_step,
                                    std::size_t window, std::size_t stride) {
  std::set<std::size_t> offsets;
  const std::size_t size = file.uncut().size();
  const std::size_t first_row_start = file.uncut().find("\n    {");
  for (std::size_t k = 1; k < first_row_start; k += 13) offsets.insert(k);
  for (std::size_t k = first_row_start; k <= file.row_ends().front(); k += first_row_step) {
    offsets.insert(k);
  }
  std::vector<std::size_t> ends = file.row_ends();
  ends.push_back(size);
  for (std::size_t end : ends) {
    for (std::size_t k = end - window; k <= std::min(size, end + window); ++k) offsets.insert(k);
  }
  for (std::size_t k = 1; k < size; k += stride) offsets.insert(k);
  return {offsets.begin(), offsets.end()};
}

TEST(LoaderCutOff, TheLayoutOracleFindsEveryRow) {
  for (const char* name : {"h200/examples_a1.json", "h200/gate_a1.json"}) {
    CutRealFile file(name);
    const nlohmann::json document =
        nlohmann::json::parse(QuoteNonFiniteTokens(file.uncut()).value());
    EXPECT_EQ(file.row_ends().size(), document.at("benchmarks").size()) << name;
  }
}

TEST(LoaderCutOff, RealFilesCutAtManyOffsetsKeepExactlyTheirCompleteRows) {
  for (const auto& [name, window, stride] :
       {std::tuple<const char*, std::size_t, std::size_t>{"h200/examples_a1.json", 10, 89},
        std::tuple<const char*, std::size_t, std::size_t>{"h200/gate_a1.json", 3, 211}}) {
    CutRealFile file(name);
    const std::vector<std::size_t> offsets = CutOffsets(file, 1, window, stride);
    ASSERT_GT(offsets.size(), 1000u);
    int failures = 0;
    for (std::size_t bytes : offsets) {
      const std::string problem = file.CheckCutAt(bytes);
      if (problem.empty()) continue;
      ADD_FAILURE() << name << ": " << problem;
      if (++failures == 10) break;
    }
  }
}

// The fast path (simdjson, RapidJSON) and the reference read the recovered rows alike.
TEST(LoaderCutOff, FastAndReferenceLoadersAgreeOnCutFiles) {
  CutRealFile file("h200/gate_a1.json");
  int failures = 0;
  for (std::size_t bytes : CutOffsets(file, 5, 2, 499)) {
    const std::string difference = LoadersDisagree(file.uncut().substr(0, bytes));
    if (difference.empty()) continue;
    ADD_FAILURE() << "cut at " << bytes << ": " << difference;
    if (++failures == 10) break;
  }
}

// Every prefix of a document that has every kind of token GB may write where a file can be cut:
// strings with escapes, surrogate pairs and 2-, 3- and 4-byte UTF-8, numbers with exponents,
// literals, bare non-finite words (which QuoteNonFiniteTokens quotes), nested arrays and
// objects in the context and in rows. Each prefix is a cut-off file: it loads with the rows
// complete before it or fails with the cut-before-any-row message, never as invalid JSON.
TEST(LoaderCutOff, EveryPrefixOfADocumentIsACutOffFile) {
  const std::string document =
      "{\n  \"context\": {\"host_name\": \"h\\u00e9\\\"\\n\", \"caches\": [{\"size\": 1e3}, "
      "[]], \"load_avg\": [0.5, -1.25E-2], \"flag\": true, \"none\": null, \"off\": false},\n"
      "  \"benchmarks\": [\n"
      "    {\"name\": \"BM_\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\ud83d\\ude00/1\", "
      "\"run_type\": \"iteration\", \"repetitions\": 2, \"repetition_index\": 0, \"real_time\": "
      "1.5e+00, \"cpu_time\": 2, \"time_unit\": \"ns\", \"a\": NaN, \"b\": -Infinity, \"c\": inf, "
      "\"d\": nan, \"e\": [1, {\"x\": [true]}], \"label\": \"\\\\\\/\"},\n"
      "    {\"name\": \"BM_\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\ud83d\\ude00/1\", "
      "\"run_type\": \"iteration\", \"repetitions\": 2, \"repetition_index\": 1, \"real_time\": "
      "-0.0, \"cpu_time\": 12345678901234567890, \"time_unit\": \"us\", \"a\": Infinity, "
      "\"b\": -nan, \"c\": +inf, \"d\": -Inf},\n"
      "    {\"name\": \"BM_B\", \"run_type\": \"iteration\", \"real_time\": 3, \"time_unit\": "
      "\"ms\", \"skipped\": false, \"error_occurred\": false}\n"
      "  ]\n}\n";
  ASSERT_TRUE(ParseBenchmarkJson(document, "doc.json").ok());
  // Where each row ends, for the expected count.
  const std::vector<std::size_t> row_ends = {document.find("\"},\n    {") + 1,
                                             document.find("-Inf},\n") + 4,
                                             document.find("false}\n") + 5};
  const std::size_t document_end = document.rfind('}');
  std::map<std::size_t, BenchmarkFile> expected;
  for (std::size_t rows = 1; rows <= 3; ++rows) {
    expected.emplace(rows,
                     ParseBenchmarkJson(FirstRowsDocument(document, rows), "doc.json").value());
  }
  for (std::size_t bytes = 1; bytes <= document.size(); ++bytes) {
    const std::string prefix = document.substr(0, bytes);
    ASSERT_EQ(LoadersDisagree(prefix), "") << "cut at " << bytes << ": " << prefix;
    detail::Result<BenchmarkFile> loaded = ParseBenchmarkJson(prefix, "doc.json");
    const std::size_t rows = RowsBefore(row_ends, bytes);
    if (bytes > document_end) {
      ASSERT_TRUE(loaded.ok() && loaded.value().cut_off.empty()) << bytes;
    } else if (rows == 0) {
      ASSERT_FALSE(loaded.ok()) << "cut at " << bytes;
      ASSERT_THAT(loaded.status().message(), HasSubstr(kCutBeforeAnyRow)) << bytes;
    } else {
      ASSERT_TRUE(loaded.ok()) << "cut at " << bytes << ": " << loaded.status().message();
      ASSERT_EQ(
          CheckRecovered(std::move(loaded).value(), expected.at(rows), "doc.json", bytes, rows), "")
          << "cut at " << bytes << ": " << prefix;
    }
  }
}

// Invalid JSON that is not a prefix of any valid document keeps the parser's own error (exit 2),
// even where the invalid part is the file's last token.
TEST(LoaderCutOff, GarbageIsNotACut) {
  const std::string head = R"({"context": {}, "benchmarks": [)"
                           R"({"name": "A", "real_time": 1, "time_unit": "ns"}, )"
                           R"({"name": "B", "real_time": 1, "time_unit": "ns"})";
  for (const std::string& tail : {
           std::string(" \"ab"),         // a string where "," or "]" belongs
           std::string(" tr"),           // a literal there
           std::string(" 1"),            // a number there
           std::string(", {\"c\": tx"),  // not a literal
           std::string(", {\"c\": Nb"),  // not a non-finite word
           std::string(", {\"c\": -Infix"),
           std::string(", {\"c\": 1.x"),  // not a number
           std::string(", {\"c\": 01"),
           std::string(", {\"c\": \"\\ud83d\\ud8"),  // no low surrogate can follow
           std::string(", {\"c\": \"\\x"),           // no such escape
           std::string(", {\"c\" 1"),                // no colon
           std::string(
               ", {\"name\": \"C\", \"real_time\": 1, \"time_unit\": \"ns\"}}"),  // "}" for "]"
           std::string(", {\"c\": \"\xff"),                                       // not UTF-8
           std::string("]} \"a"),  // after the document
           std::string("]}x"),
           std::string("]}{"),
       }) {
    const std::string text = head + tail;
    const detail::Result<BenchmarkFile> loaded = ParseBenchmarkJson(text, "bad.json");
    ASSERT_FALSE(loaded.ok()) << tail;
    EXPECT_THAT(loaded.status().message(), HasSubstr("bad.json is not valid JSON")) << tail;
    EXPECT_EQ(LoadersDisagree(text), "") << tail;
  }
  // A row that is not a valid GB row fails as before, cut off or not.
  const std::string bad_row = R"({"name": "C", "real_time": 1, "time_unit": "min"})";
  const detail::Result<BenchmarkFile> loaded =
      ParseBenchmarkJson(head + ", " + bad_row + ", {\"name\": ", "bad.json");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(), HasSubstr("\"min\""));
}

TEST(LoaderCutOff, CutBeforeAnyRowSaysWhereAndWhatAValidFileIs) {
  const std::string file = ReadBytes(DataPath("h200/gate_a1.json"));
  struct Case {
    std::size_t bytes;
    const char* where;
  } cases[] = {
      {1, "before the \"benchmarks\" array"},
      {600, "inside the \"context\" object"},
      {file.find("\"benchmarks\": [") + 15, "right after \"benchmarks\": [, before its first row"},
      {file.find("\"benchmarks\": [") + 100, "inside the first row of \"benchmarks\""},
  };
  for (const Case& c : cases) {
    const detail::Result<BenchmarkFile> loaded =
        ParseBenchmarkJson(file.substr(0, c.bytes), "gate.json");
    ASSERT_FALSE(loaded.ok()) << c.bytes;
    EXPECT_THAT(loaded.status().message(),
                AllOf(HasSubstr("gate.json was cut off mid-write before any benchmark finished"),
                      HasSubstr("it ends after " + std::to_string(c.bytes) + " bytes, " + c.where),
                      HasSubstr("the run was killed, or is still running"),
                      HasSubstr("{\"context\": {...}, \"benchmarks\": [{...}, ...]}"),
                      HasSubstr("--benchmark_out_format=json")))
        << c.bytes;
  }
}

TEST(LoaderCutOff, AFileWithoutItsLastBraceHasEveryRow) {
  const std::string file = ReadBytes(DataPath("h200/gate_a1.json"));
  const std::size_t bracket = file.rfind(']');
  const BenchmarkFile loaded = ParseBenchmarkJson(file.substr(0, bracket + 2), "g.json").value();
  ASSERT_EQ(loaded.cut_off.size(), 1u);
  EXPECT_EQ(loaded.cut_off[0].rows_recovered, 70u);
  EXPECT_EQ(loaded.cut_off[0].benchmarks_recovered, 5u);
  EXPECT_EQ(loaded.benchmarks.size(), 5u);
  EXPECT_TRUE(loaded.warnings.empty());
}

// --- Cut-off files on disk (LoadBenchmarkFile: the mapped file, every parser) -------------------

// Checks a file cut off mid-write as it lies on disk: it must load with the rows that are complete
// in it (GB's layout, see RowEnds) and the cut recorded. For the committed cut files and for any
// real killed run added to tests/data/h200/cutoff/.
void ExpectLoadsItsCompleteRows(const std::string& path, std::size_t expected_rows) {
  const std::string bytes = ReadBytes(path);
  const std::vector<std::size_t> row_ends = RowEnds(bytes);
  ASSERT_EQ(row_ends.size(), expected_rows) << path;
  const detail::Result<BenchmarkFile> loaded = LoadBenchmarkFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const std::string closed = bytes.substr(0, row_ends.back() + 1) + "\n  ]\n}\n";
  const BenchmarkFile expected =
      ParseBenchmarkJson(FirstRowsDocument(closed, expected_rows), path).value();
  EXPECT_EQ(CheckRecovered(loaded.value(), expected, path, bytes.size(), expected_rows), "");
  EXPECT_EQ(LoadersDisagree(bytes), "") << path;
}

TEST(LoaderCutOff, CommittedCutFilesLoadTheirCompleteRows) {
  // gate_a1.json cut after the last row of its second benchmark, and in the middle of a row of
  // its third (4 of its 10 repetitions complete).
  ExpectLoadsItsCompleteRows(DataPath("h200/cutoff/gate_a1_cut_30150.json"), 28);
  ExpectLoadsItsCompleteRows(DataPath("h200/cutoff/gate_a1_cut_35000.json"), 32);
  const BenchmarkFile partial =
      LoadBenchmarkFile(DataPath("h200/cutoff/gate_a1_cut_35000.json")).value();
  ASSERT_EQ(partial.benchmarks.size(), 3u);
  EXPECT_EQ(partial.benchmarks[2].RepetitionCount(), 4u);
  EXPECT_THAT(partial.warnings.at(0), AllOf(HasSubstr("Gate_Copy/268435456/manual_time"),
                                            HasSubstr("declares 10 repetitions but the file has 4"),
                                            HasSubstr("interrupted")));
  const detail::Result<BenchmarkFile> context_only =
      LoadBenchmarkFile(DataPath("h200/cutoff/gate_a1_cut_1200.json"));
  ASSERT_FALSE(context_only.ok());
  EXPECT_THAT(context_only.status().message(),
              AllOf(HasSubstr(kCutBeforeAnyRow), HasSubstr("inside the \"context\" object")));
}

// A run really killed with SIGTERM (see tests/data/h200/README.md).
TEST(LoaderCutOff, ARunKilledWithSigtermLoadsItsCompleteRows) {
  const std::string path = DataPath("h200/cutoff/killed_sigterm.json");
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is committed and must be there";
  const std::size_t rows = RowEnds(ReadBytes(path)).size();
  if (rows > 0) return ExpectLoadsItsCompleteRows(path, rows);
  // Killed before its first row was written.
  const detail::Result<BenchmarkFile> loaded = LoadBenchmarkFile(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(), HasSubstr(kCutBeforeAnyRow));
}

}  // namespace
}  // namespace gpubench::tools
