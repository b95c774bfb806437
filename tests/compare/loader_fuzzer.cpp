// libFuzzer target for the input parsing: any bytes must either load or be
// rejected with LoadError, and whatever loads must compare and render
// without crashing. Any other exception escapes and counts as a crash. The
// fast loader (RapidJSON) must agree with the reference loader (nlohmann):
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
  try {
    const BenchmarkFile file = ParseBenchmarkJson(bytes, "fuzz-input.json");
    CompareOptions options;
    options.allow_settings_mismatch = true;
    const ComparisonReport report = CompareFiles(file, file, options);
    FormatConsole(report, true);
    FormatMarkdown(report);
    FormatJson(report);
  } catch (const LoadError&) {
    // Rejected with a message: the expected outcome for bad input.
  }
  return 0;
}
