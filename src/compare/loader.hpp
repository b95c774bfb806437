// Turns the bytes of a Google Benchmark JSON file into a BenchmarkFile.
#ifndef GPUBENCH_COMPARE_LOADER_H_
#define GPUBENCH_COMPARE_LOADER_H_

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "compare/model.hpp"

namespace gpubench::compare {

// Input that cannot be compared. The message names the file and, where it
// applies, the benchmark and field, and says what a valid file looks like.
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// GB writes non-finite doubles as bare NaN / Infinity (older versions: nan,
// inf), which strict JSON parsers reject. Returns a copy where every such
// token outside strings is quoted ("NaN", "Infinity", "-Infinity"), or
// nullopt when the input has none. Line numbers are unchanged.
std::optional<std::string> QuoteNonFiniteTokens(std::string_view json);

// Parses GB JSON. `source_name` (usually the path) prefixes every message.
// Uses RapidJSON where it was available at build time and falls back to
// nlohmann for any input that RapidJSON rejects or might read differently,
// so the result (or the LoadError message) is always the one
// ParseBenchmarkJsonWithNlohmann gives.
BenchmarkFile ParseBenchmarkJson(std::string_view bytes, const std::string& source_name);

// The reference parser alone (nlohmann-json); slower. For tests and fuzzing.
BenchmarkFile ParseBenchmarkJsonWithNlohmann(std::string_view bytes,
                                             const std::string& source_name);

// Whether ParseBenchmarkJson has its fast path (built with RapidJSON).
bool FastJsonParserAvailable();

// The fast path alone: nullopt where ParseBenchmarkJson would fall back to
// nlohmann (and always without RapidJSON). For tests and fuzzing.
std::optional<BenchmarkFile> ParseBenchmarkJsonFastPathOnly(std::string_view bytes,
                                                            const std::string& source_name);

// Reads and parses a file; throws LoadError for unreadable or invalid input.
BenchmarkFile LoadBenchmarkFile(const std::string& path);

}  // namespace gpubench::compare

#endif  // GPUBENCH_COMPARE_LOADER_H_
