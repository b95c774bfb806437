// Turns the bytes of a Google Benchmark JSON file into a BenchmarkFile.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/status.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools {

/// GB writes non-finite doubles as bare NaN / Infinity (older versions: nan,
/// inf), which strict JSON parsers reject. Returns a copy where every such
/// token outside strings is quoted ("NaN", "Infinity", "-Infinity"), or
/// nullopt when the input has none. Line numbers are unchanged.
std::optional<std::string> QuoteNonFiniteTokens(std::string_view json);

/// Parses GB JSON. `source_name` (usually the path) prefixes every message.
/// Uses RapidJSON where it was available at build time and falls back to
/// nlohmann for any input that RapidJSON rejects or might read differently,
/// so the result (or the kInvalidInput message) is always the one
/// ParseBenchmarkJsonWithNlohmann gives.
/// A file cut off mid-write (a proper prefix of a valid document: a killed or
/// still running benchmark binary) gives the rows that are complete before the
/// cut, and BenchmarkFile::cut_off says so; cut before its first complete row,
/// it fails with a message that says that (see cut_off.hpp).
detail::Result<BenchmarkFile> ParseBenchmarkJson(std::string_view bytes,
                                                 const std::string& source_name);

/// The reference parser alone (nlohmann-json); slower. For tests and fuzzing.
detail::Result<BenchmarkFile> ParseBenchmarkJsonWithNlohmann(std::string_view bytes,
                                                             const std::string& source_name);

/// Whether ParseBenchmarkJson has its fast path (built with RapidJSON).
bool FastJsonParserAvailable();

/// Whether the fast path starts with simdjson (built with it and RapidJSON); RapidJSON then
/// parses only what simdjson declines.
bool SimdjsonFastPathAvailable();

/// The fast path alone: nullopt where ParseBenchmarkJson would fall back to
/// nlohmann (and always without RapidJSON). For tests and fuzzing.
std::optional<BenchmarkFile> ParseBenchmarkJsonFastPathOnly(std::string_view bytes,
                                                            const std::string& source_name);

/// Reads and parses a file; fails (kInvalidInput) for unreadable or invalid input. The message
/// names the file and, where it applies, the benchmark and field, and says what a valid file
/// looks like. A file cut off mid-write is read as ParseBenchmarkJson reads it.
detail::Result<BenchmarkFile> LoadBenchmarkFile(const std::string& path);

}  // namespace gpubench::tools
