// The second fast path, RapidJSON's SAX reader, in situ: it declines (and nlohmann reads) whatever
// it might read otherwise than nlohmann. Compiles to nothing without RapidJSON.
#include "tools/load/parsers.hpp"

#if GPUBENCH_COMPARE_HAVE_RAPIDJSON

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

// SIMD scanning of whitespace and strings. It reads whole aligned 16-byte
// blocks, never past the one holding the terminating NUL: the parsed text is
// always followed by kTextPadding zero bytes (see TryParseInSitu).
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#include <rapidjson/reader.h>
#include <rapidjson/stream.h>

#include "tools/load/sax_handler.hpp"

namespace gpubench::tools::parsers {
namespace {

using detail::Result;

// RapidJSON's SAX events, translated so that GbSaxHandler sees exactly what
// the nlohmann path would give it for the same document. Anything that path
// might treat differently makes this one give up (return false), and the
// caller then parses with nlohmann: RapidJSON only ever speeds up documents
// that both parsers read the same way.
class RapidJsonEvents {
 public:
  explicit RapidJsonEvents(GbSaxHandler& handler) : handler_(handler) {}

  bool Null() { return handler_.Null(); }
  bool Bool(bool value) { return handler_.Boolean(value); }
  // kParseNumbersAsStringsFlag: numbers arrive as their text (in situ, so not
  // NUL-terminated), converted here as nlohmann does.
  bool RawNumber(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    const char* const end = text + length;
    const char lead = length > 0 && text[0] == '-' ? (length > 1 ? text[1] : '\0') : *text;
    if (lead == 'N' || lead == 'I') {
      // kParseNanAndInfFlag: NaN, -NaN, Inf, Infinity, -Inf, -Infinity. The
      // nlohmann path quotes them (QuoteNonFiniteTokens) and so sees these
      // strings.
      return handler_.String(lead == 'N' ? "NaN" : text[0] == '-' ? "-Infinity" : "Infinity");
    }
    // nlohmann: an integer that fits int64 (negative) or uint64 is read
    // exactly, then converted to double (so -0 is +0); other numbers go through
    // strtod. std::from_chars is correctly rounded like glibc's strtod and much
    // faster; strtod handles what it reports as out of range (denormals).
    if (std::find_if(text, end, [](char c) { return c == '.' || c == 'e' || c == 'E'; }) == end) {
      if (text[0] == '-') {
        std::int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(text, end, value);
        if (ec == std::errc() && ptr == end) return handler_.Number(static_cast<double>(value));
      } else {
        std::uint64_t value = 0;
        const auto [ptr, ec] = std::from_chars(text, end, value);
        if (ec == std::errc() && ptr == end) return handler_.Number(static_cast<double>(value));
      }
    }
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text, end, value);
    if (ec != std::errc() || ptr != end)
      value = std::strtod(std::string(text, end).c_str(), nullptr);
    if (!std::isfinite(value)) return false;  // nlohmann: "number overflow"
    return handler_.Number(value);
  }
  bool String(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    if (!IsPlainWellFormedUtf8(text, length)) return false;
    return handler_.String(std::string_view(text, length));
  }
  bool Key(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    if (!IsPlainWellFormedUtf8(text, length)) return false;
    return handler_.Key(std::string_view(text, length));
  }
  // RapidJSON's parser recurses once per nesting level; deeper documents
  // (GB writes 4 levels) are left to nlohmann, which does not recurse.
  static constexpr int kMaxNesting = 64;
  bool StartObject() { return ++nesting_ <= kMaxNesting && handler_.StartObject(); }
  bool EndObject(rapidjson::SizeType /*members*/) {
    --nesting_;
    return handler_.EndObject();
  }
  bool StartArray() { return ++nesting_ <= kMaxNesting && handler_.StartArray(); }
  bool EndArray(rapidjson::SizeType /*elements*/) {
    --nesting_;
    return handler_.EndArray();
  }
  // Never called under kParseNumbersAsStringsFlag.
  bool Int(int) { return false; }
  bool Uint(unsigned) { return false; }
  bool Int64(std::int64_t) { return false; }
  bool Uint64(std::uint64_t) { return false; }
  bool Double(double) { return false; }

 private:
  GbSaxHandler& handler_;
  int nesting_ = 0;
};

}  // namespace

// The common case, fast: nullopt when RapidJSON or GbSaxHandler rejects the
// document, or it may be read differently than by nlohmann.
// Parses `text` in situ (strings are decoded in place, so the text changes).
// text[size] and the kTextPadding - 1 bytes after it are zero.
std::optional<BenchmarkFile> TryParseInSitu(char* text, std::size_t size,
                                            const std::string& source_name) {
  GbSaxHandler handler(source_name);
  RapidJsonEvents events(handler);
  rapidjson::Reader reader;
  rapidjson::InsituStringStream stream(text);  // reads up to the NUL
  // Recursive parsing (faster than kParseIterativeFlag): RapidJsonEvents
  // bounds the depth.
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseNanAndInfFlag;
  const rapidjson::ParseResult result = reader.Parse<kFlags>(stream, events);
  // RapidJSON stops at a NUL byte as if the input ended there.
  if (result.IsError() || !handler.error().empty() || stream.Tell() != size) {
    return std::nullopt;
  }
  Result<BenchmarkFile> file = handler.Finish();
  if (!file.ok()) return std::nullopt;  // the nlohmann path fails with the same message
  return std::move(file).value();
}

}  // namespace gpubench::tools::parsers

#endif  // GPUBENCH_COMPARE_HAVE_RAPIDJSON
