// libFuzzer target for the input parsing: any bytes must either load or be
// rejected with a failed Status, and whatever loads must compare and render
// without crashing. Any exception escapes and counts as a crash. The
// fast loader (simdjson, then RapidJSON) must agree with the reference loader (nlohmann):
// a disagreement aborts. Prefixes of whatever loads completely are files cut off mid-write:
// each must load as cut off (with some of the document's benchmarks) or be rejected as cut off
// before any row; anything else aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "loader_agreement.hpp"
#include "tools/compare/report_format.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/load/loader.hpp"

namespace {

using namespace gpubench::tools;

[[noreturn]] void Fail(const char* what, const std::string& detail, std::size_t length) {
  std::fprintf(stderr, "%s (prefix of %zu bytes): %s\n", what, length, detail.c_str());
  std::abort();
}

// The first `length` bytes of a document that loaded completely (`full`), as a run killed
// mid-write would leave it.
void CheckPrefix(std::string_view bytes, std::size_t length, const BenchmarkFile& full) {
  const std::string_view prefix = bytes.substr(0, length);
  if (const std::string disagreement = testing::LoadersDisagree(prefix); !disagreement.empty()) {
    Fail("fast and reference loaders disagree on a cut-off file", disagreement, length);
  }
  const auto loaded = ParseBenchmarkJson(prefix, "fuzz-input.json");
  if (!loaded.ok()) {
    const std::string& message = loaded.status().message();
    if (message.find("cut off mid-write before any benchmark finished") == std::string::npos &&
        message.find("fuzz-input.json is empty") == std::string::npos) {
      Fail("a prefix of a valid file is rejected as something else than cut off", message, length);
    }
    return;
  }
  const BenchmarkFile& file = loaded.value();
  if (file.cut_off.empty()) {
    // Only whitespace after the document may be missing.
    if (bytes.substr(length).find_first_not_of(" \t\r\n") != std::string_view::npos) {
      Fail("a prefix of a valid file loads without being marked cut off", "", length);
    }
    return;
  }
  if (file.cut_off.size() != 1 || file.cut_off[0].bytes != length ||
      file.cut_off[0].rows_recovered == 0 ||
      file.cut_off[0].benchmarks_recovered != file.benchmarks.size()) {
    Fail("a cut-off file's record is wrong", "", length);
  }
  for (const BenchmarkRecord& record : file.benchmarks) {
    if (!full.Find(record.name))
      Fail("a benchmark recovered from a prefix is not in the file", record.name, length);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (const std::string disagreement = testing::LoadersDisagree(bytes); !disagreement.empty()) {
    std::fprintf(stderr, "fast and reference loaders disagree: %s\n", disagreement.c_str());
    std::abort();
  }
  const auto file = ParseBenchmarkJson(bytes, "fuzz-input.json");
  if (!file.ok()) return 0;  // rejected with a message: the expected outcome for bad input
  if (file.value().cut_off.empty() && size > 1) {
    // Two cuts: the middle, and one that every mutation of the input moves (by the sum of its
    // bytes). More would slow the fuzzer down: each cut is parsed by both loaders.
    std::size_t sum = 0;
    for (std::size_t i = 0; i < size; ++i) sum += data[i];
    for (std::size_t length : {size / 2, 1 + sum % (size - 1)}) {
      if (length > 0) CheckPrefix(bytes, length, file.value());
    }
  }
  CompareOptions options;
  options.allow_settings_mismatch = true;
  const auto report = CompareFiles(file.value(), file.value(), options);
  if (!report.ok()) return 0;  // e.g. a gated metric that is NaN
  FormatConsole(report.value(), true);
  FormatMarkdown(report.value());
  FormatJson(report.value());
  return 0;
}
