// The parsers behind ParseBenchmarkJson and LoadBenchmarkFile (loader.cpp): the entry point of
// each (parse_nlohmann.cpp, parse_rapidjson.cpp, parse_simdjson.cpp) and the checks they share.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.hpp"
#include "tools/load/model.hpp"

// RapidJSON (Debian: rapidjson-dev) parses the common case several times
// faster; nlohmann stays the reference for everything else (see
// ParseBenchmarkJson). CMake sets this; a plain compile detects the header.
#ifndef GPUBENCH_COMPARE_HAVE_RAPIDJSON
#if __has_include(<rapidjson/reader.h>)
#define GPUBENCH_COMPARE_HAVE_RAPIDJSON 1
#else
#define GPUBENCH_COMPARE_HAVE_RAPIDJSON 0
#endif
#endif
// simdjson (Debian: libsimdjson-dev) is faster still: its On-Demand API is
// the first fast path, RapidJSON the second (for what simdjson declines).
#ifndef GPUBENCH_COMPARE_HAVE_SIMDJSON
#define GPUBENCH_COMPARE_HAVE_SIMDJSON 0
#endif

namespace gpubench::tools::parsers {

/// An ASCII letter: the words NaN, Infinity and their other spellings are made of them.
inline bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/// Whether a string decoded by a fast parser is well-formed UTF-8 without control characters
/// 0x1A-0x1F, which nlohmann rejects and the fast parsers let through; else they decline.
bool IsPlainWellFormedUtf8(const char* text, std::size_t length);

/// Fails when `bytes` does not even start like JSON: empty, or not '{' or '[' first.
detail::Status CheckLooksLikeJson(std::string_view bytes, const std::string& source_name);

/// The reference parser (nlohmann-json) on a complete document.
detail::Result<BenchmarkFile> ParseCompleteWithNlohmann(std::string_view bytes,
                                                        const std::string& source_name);

/// A parser of complete documents: the fast path with the reference behind it, or the reference
/// alone.
using CompleteDocumentParser = detail::Result<BenchmarkFile> (*)(std::string_view,
                                                                 const std::string&);

/// The reference parse of `bytes`, or where the file was cut off mid-write, `parse_complete` of
/// its complete rows (parse_nlohmann.cpp says when a file counts as cut off).
detail::Result<BenchmarkFile> ParseOrRecoverCutOff(std::string_view bytes,
                                                   const std::string& source_name,
                                                   CompleteDocumentParser parse_complete);

#if GPUBENCH_COMPARE_HAVE_RAPIDJSON
/// RapidJSON on `text`, in situ (the text changes); text[size] and the kTextPadding - 1 bytes
/// after it are zero. nullopt where it rejects the document or might read it otherwise than
/// nlohmann.
std::optional<BenchmarkFile> TryParseInSitu(char* text, std::size_t size,
                                            const std::string& source_name);
#endif

#if GPUBENCH_COMPARE_HAVE_SIMDJSON
/// simdjson's On-Demand API on `text`, unchanged; text[size] and the kTextPadding - 1 bytes
/// after it are readable. nullopt where it rejects the document or might read it otherwise than
/// nlohmann.
std::optional<BenchmarkFile> TryParseWithSimdjson(const char* text, std::size_t size,
                                                  const std::string& source_name);
#endif

}  // namespace gpubench::tools::parsers
