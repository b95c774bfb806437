// libFuzzer target for the input parsing: any bytes must either load or be
// rejected with a failed Status, and whatever loads must compare and render
// without crashing. Any exception escapes and counts as a crash. The
// fast loader (simdjson, then RapidJSON) must agree with the reference loader (nlohmann):
// a disagreement aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "compare/comparison.hpp"
#include "compare/loader.hpp"
#include "compare/report_format.hpp"
#include "loader_agreement.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpubench::compare;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (const std::string disagreement = testing::LoadersDisagree(bytes); !disagreement.empty()) {
    std::fprintf(stderr, "fast and reference loaders disagree: %s\n", disagreement.c_str());
    std::abort();
  }
  const auto file = ParseBenchmarkJson(bytes, "fuzz-input.json");
  if (!file.ok()) return 0;  // rejected with a message: the expected outcome for bad input
  CompareOptions options;
  options.allow_settings_mismatch = true;
  const auto report = CompareFiles(file.value(), file.value(), options);
  if (!report.ok()) return 0;  // e.g. a gated metric that is NaN
  FormatConsole(report.value(), true);
  FormatMarkdown(report.value());
  FormatJson(report.value());
  return 0;
}
