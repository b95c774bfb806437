// The loader's public API (loader.hpp): the parsers in order, fastest first (simdjson, RapidJSON,
// then the reference nlohmann-json), and the checks that all of them share.
#include "tools/load/loader.hpp"

#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "tools/load/gb_rows.hpp"
#include "tools/load/input_file.hpp"
#include "tools/load/parsers.hpp"

namespace gpubench::tools {
namespace parsers {

using detail::Status;
using rows::kExpectedInput;

// Checks a decoded string for what the fast parsers (RapidJSON, simdjson) let
// through and nlohmann rejects, nearly always in a fast pass over plain ASCII:
// - Strings that are not well-formed UTF-8 (Unicode table 3-7). RapidJSON
//   checks that only with kParseValidateEncodingFlag, which disables its
//   SIMD string scanning and validates byte by byte; and even then it lets
//   a \uDC00-\uDFFF escape without a high surrogate through (as ED B0-BF).
// - Unescaped control characters 0x1A-0x1F: RapidJSON's SIMD scan only
//   stops at bytes up to 0x19. Decoded, such a byte may also come from an
//   escape (\u001A), which nlohmann accepts; those are declined too.
bool IsPlainWellFormedUtf8(const char* text, std::size_t length) {
  const auto* p = reinterpret_cast<const unsigned char*>(text);
  const auto* const end = p + length;
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  constexpr std::uint64_t kSpaces = 0x2020202020202020ULL;
  while (p != end) {
    if (end - p >= 8) {
      std::uint64_t word;
      std::memcpy(&word, p, sizeof word);
      // No byte >= 0x80 and, for bytes < 0x80, none < 0x20.
      if (((word | ((word - kSpaces) & ~word)) & kHighBits) == 0) {
        p += 8;
        continue;
      }
    }
    const unsigned lead = *p;
    if (lead < 0x80) {
      if (lead >= 0x1A && lead < 0x20) return false;
      ++p;
      continue;
    }
    int tail = 0;
    unsigned low = 0x80, high = 0xBF;  // range of the first continuation byte
    if (lead >= 0xC2 && lead <= 0xDF) {
      tail = 1;
    } else if (lead == 0xE0) {
      tail = 2;
      low = 0xA0;
    } else if (lead == 0xED) {
      tail = 2;
      high = 0x9F;  // no UTF-16 surrogates
    } else if (lead >= 0xE1 && lead <= 0xEF) {
      tail = 2;
    } else if (lead == 0xF0) {
      tail = 3;
      low = 0x90;
    } else if (lead >= 0xF1 && lead <= 0xF3) {
      tail = 3;
    } else if (lead == 0xF4) {
      tail = 3;
      high = 0x8F;  // nothing above U+10FFFF
    } else {
      return false;
    }
    if (end - p <= tail || p[1] < low || p[1] > high) return false;
    for (int i = 2; i <= tail; ++i) {
      if (p[i] < 0x80 || p[i] > 0xBF) return false;
    }
    p += tail + 1;
  }
  return true;
}

Status CheckLooksLikeJson(std::string_view bytes, const std::string& source_name) {
  // A UTF-8 byte order mark (an editor's) is read past: the parsers take it (docs/compare.md).
  std::size_t first = bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (first < bytes.size() && (bytes[first] == ' ' || bytes[first] == '\n' ||
                                  bytes[first] == '\r' || bytes[first] == '\t')) {
    ++first;
  }
  if (first == bytes.size()) {
    return Status::InvalidInput(source_name + " is empty; " + kExpectedInput);
  }
  if (bytes[first] != '{' && bytes[first] != '[') {
    return Status::InvalidInput(source_name +
                                " is not JSON (it does not start with '{'); it may be console or "
                                "CSV output. " +
                                std::string(kExpectedInput));
  }
  return Status::Ok();
}

}  // namespace parsers

namespace {

using detail::Result;
using detail::Status;
using parsers::CheckLooksLikeJson;
using parsers::ParseCompleteWithNlohmann;
using parsers::ParseOrRecoverCutOff;
#if GPUBENCH_COMPARE_HAVE_RAPIDJSON
using parsers::TryParseInSitu;
#endif
#if GPUBENCH_COMPARE_HAVE_SIMDJSON
using parsers::TryParseWithSimdjson;
#endif

// `load`'s Result, or a failed Status for what the parsers or the allocator throw.
template <typename Load>
Result<BenchmarkFile> CatchingExceptions(const std::string& source_name, Load load) {
  try {
    return load();
  } catch (const std::bad_alloc&) {
    return Status::InvalidInput(source_name + ": out of memory while reading it");
  } catch (const std::exception& error) {
    return Status::InvalidInput(source_name + ": cannot be read: " + error.what());
  }
}

}  // namespace

std::optional<BenchmarkFile> ParseBenchmarkJsonFastPathOnly(std::string_view bytes,
                                                            const std::string& source_name) {
#if GPUBENCH_COMPARE_HAVE_RAPIDJSON
  std::string copy;  // parsed in situ
  copy.reserve(bytes.size() + kTextPadding);
  copy.append(bytes);
  copy.append(kTextPadding, '\0');
#if GPUBENCH_COMPARE_HAVE_SIMDJSON
  if (std::optional<BenchmarkFile> file =
          TryParseWithSimdjson(copy.data(), bytes.size(), source_name)) {
    return file;
  }
#endif
  return TryParseInSitu(copy.data(), bytes.size(), source_name);
#else
  static_cast<void>(bytes);
  static_cast<void>(source_name);
  return std::nullopt;
#endif
}

namespace {

// The fast path, and the reference for what it declines; no recovery of cut-off files (this
// parses what that recovery closed).
Result<BenchmarkFile> ParseCompleteFastFirst(std::string_view bytes,
                                             const std::string& source_name) {
  if (std::optional<BenchmarkFile> file = ParseBenchmarkJsonFastPathOnly(bytes, source_name)) {
    return std::move(*file);
  }
  return ParseCompleteWithNlohmann(bytes, source_name);
}

}  // namespace

// RapidJSON first, on a copy that it may change; for whatever it rejects or
// might read differently (invalid input, whose message names the line and
// column; spellings such as nan or +inf; a byte order mark; a file cut off
// mid-write), the reference parser on the original bytes.
Result<BenchmarkFile> ParseBenchmarkJson(std::string_view bytes, const std::string& source_name) {
  return CatchingExceptions(source_name, [&]() -> Result<BenchmarkFile> {
    GPUBENCH_RETURN_IF_ERROR(CheckLooksLikeJson(bytes, source_name));
    if (std::optional<BenchmarkFile> file = ParseBenchmarkJsonFastPathOnly(bytes, source_name)) {
      return std::move(*file);
    }
    return ParseOrRecoverCutOff(bytes, source_name, ParseCompleteFastFirst);
  });
}

Result<BenchmarkFile> ParseBenchmarkJsonWithNlohmann(std::string_view bytes,
                                                     const std::string& source_name) {
  return CatchingExceptions(source_name, [&] {
    return ParseOrRecoverCutOff(bytes, source_name, ParseCompleteWithNlohmann);
  });
}

bool FastJsonParserAvailable() { return GPUBENCH_COMPARE_HAVE_RAPIDJSON != 0; }

bool SimdjsonFastPathAvailable() {
  return GPUBENCH_COMPARE_HAVE_RAPIDJSON != 0 && GPUBENCH_COMPARE_HAVE_SIMDJSON != 0;
}

Result<BenchmarkFile> LoadBenchmarkFile(const std::string& path) {
  return CatchingExceptions(path, [&]() -> Result<BenchmarkFile> {
    InputFile file(path);
    GPUBENCH_RETURN_IF_ERROR(file.Open());
#if GPUBENCH_COMPARE_HAVE_SIMDJSON
    {
      Result<const char*> text = file.PaddedBytes();
      if (!text.ok()) return text.status();
      GPUBENCH_RETURN_IF_ERROR(
          CheckLooksLikeJson(std::string_view(text.value(), file.size()), path));
      if (std::optional<BenchmarkFile> parsed =
              TryParseWithSimdjson(text.value(), file.size(), path)) {
        return std::move(*parsed);
      }
      file.DropPaddedBytes();
    }
#endif
#if GPUBENCH_COMPARE_HAVE_RAPIDJSON
    Result<char*> text = file.WritableCopy();
    if (!text.ok()) return text.status();
    GPUBENCH_RETURN_IF_ERROR(CheckLooksLikeJson(std::string_view(text.value(), file.size()), path));
    if (std::optional<BenchmarkFile> parsed = TryParseInSitu(text.value(), file.size(), path)) {
      return std::move(*parsed);
    }
    file.DropWritableCopy();
#endif
    Result<std::string_view> bytes = file.Bytes();
    if (!bytes.ok()) return bytes.status();
    return ParseOrRecoverCutOff(bytes.value(), path, ParseCompleteFastFirst);
  });
}

}  // namespace gpubench::tools
