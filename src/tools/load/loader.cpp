#include "tools/load/loader.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/load/cut_off.hpp"
#include "tools/load/gb_rows.hpp"
#include "tools/load/input_file.hpp"
#include "tools/load/sax_handler.hpp"

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
#if GPUBENCH_COMPARE_HAVE_SIMDJSON
#include <simdjson.h>
#endif
#if GPUBENCH_COMPARE_HAVE_RAPIDJSON
// SIMD scanning of whitespace and strings. It reads whole aligned 16-byte
// blocks, never past the one holding the terminating NUL: the parsed text is
// always followed by kTextPadding zero bytes (see TryParseInSitu).
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#include <rapidjson/reader.h>
#include <rapidjson/stream.h>
#endif

namespace gpubench::compare {
namespace {

using detail::Result;
using detail::Status;
using rows::kExpectedInput;
using rows::ParseNonFiniteSpelling;

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

std::optional<std::string> QuoteNonFiniteTokens(std::string_view json) {
  std::optional<std::string> rewritten;
  std::size_t copied_up_to = 0;  // json[0, copied_up_to) is already in *rewritten
  const std::size_t size = json.size();
  const char* const data = json.data();
  // Last character outside strings and whitespace; tells whether a word
  // stands where a value is expected (and not e.g. the e of "1e5").
  char previous_significant = '\0';
  std::size_t i = 0;
  while (i < size) {
    // Outside strings up to the next quote (memchr: most bytes are in strings).
    const void* quote = std::memchr(data + i, '"', size - i);
    const std::size_t outside_end =
        quote ? static_cast<std::size_t>(static_cast<const char*>(quote) - data) : size;
    for (; i < outside_end; ++i) {
      const char c = data[i];
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
      const bool value_position = previous_significant == ':' || previous_significant == ',' ||
                                  previous_significant == '[' || previous_significant == '\0';
      const bool signed_word =
          (c == '-' || c == '+') && i + 1 < outside_end && IsAsciiLetter(data[i + 1]);
      if (value_position && (IsAsciiLetter(c) || signed_word)) {
        std::size_t end = i + (signed_word ? 1 : 0);
        while (end < outside_end && IsAsciiLetter(data[end])) ++end;
        if (auto value = ParseNonFiniteSpelling(json.substr(i, end - i))) {
          if (!rewritten) {
            rewritten.emplace();
            rewritten->reserve(size + size / 8);
          }
          rewritten->append(json.substr(copied_up_to, i - copied_up_to));
          rewritten->append(std::isnan(*value) ? "\"NaN\""
                            : *value > 0       ? "\"Infinity\""
                                               : "\"-Infinity\"");
          copied_up_to = end;
        }
        previous_significant = 'a';
        i = end - 1;
        continue;
      }
      previous_significant = c;
    }
    if (i >= size) break;
    // Inside a string: find the closing quote that is not escaped.
    std::size_t j = i + 1;
    for (;;) {
      const void* next = j < size ? std::memchr(data + j, '"', size - j) : nullptr;
      if (!next) {
        j = size;
        break;
      }
      j = static_cast<std::size_t>(static_cast<const char*>(next) - data);
      std::size_t backslashes = 0;
      while (j - backslashes > i + 1 && data[j - backslashes - 1] == '\\') ++backslashes;
      if (backslashes % 2 == 0) break;
      ++j;
    }
    previous_significant = '"';
    i = j + 1;
  }
  if (rewritten) rewritten->append(json.substr(copied_up_to));
  return rewritten;
}

namespace {

// nlohmann's SAX interface on top of GbSaxHandler.
class NlohmannEvents final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit NlohmannEvents(GbSaxHandler& handler) : handler_(handler) {}

  bool null() override { return handler_.Null(); }
  bool boolean(bool value) override { return handler_.Boolean(value); }
  bool number_integer(number_integer_t value) override {
    return handler_.Number(static_cast<double>(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return handler_.Number(static_cast<double>(value));
  }
  bool number_float(number_float_t value, const string_t& /*text*/) override {
    return handler_.Number(value);
  }
  bool string(string_t& value) override { return handler_.String(value); }
  bool binary(binary_t& /*value*/) override { return handler_.Null(); }
  bool start_object(std::size_t /*elements*/) override { return handler_.StartObject(); }
  bool end_object() override { return handler_.EndObject(); }
  bool start_array(std::size_t /*elements*/) override { return handler_.StartArray(); }
  bool end_array() override { return handler_.EndArray(); }
  bool key(string_t& value) override { return handler_.Key(value); }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    syntax_error_at_ = position;
    handler_.ParseError(ex.what());
    return false;
  }

  /// Where the parser found the document's syntax invalid (bytes read, the failing one
  /// included): past the end of the input when the document ended too early.
  const std::optional<std::size_t>& syntax_error_at() const { return syntax_error_at_; }

 private:
  GbSaxHandler& handler_;
  std::optional<std::size_t> syntax_error_at_;
};

// nlohmann's SAX interface for the syntax alone: every value is welcome, and only where the
// parser stopped matters.
class SyntaxOnlyEvents final : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool /*value*/) override { return true; }
  bool number_integer(number_integer_t /*value*/) override { return true; }
  bool number_unsigned(number_unsigned_t /*value*/) override { return true; }
  bool number_float(number_float_t /*value*/, const string_t& /*text*/) override { return true; }
  bool string(string_t& /*value*/) override { return true; }
  bool binary(binary_t& /*value*/) override { return true; }
  bool start_object(std::size_t /*elements*/) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t /*elements*/) override { return true; }
  bool end_array() override { return true; }
  bool key(string_t& /*value*/) override { return true; }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& /*ex*/) override {
    syntax_error_at_ = position;
    return false;
  }

  const std::optional<std::size_t>& syntax_error_at() const { return syntax_error_at_; }

 private:
  std::optional<std::size_t> syntax_error_at_;
};

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

// Fails when `bytes` does not even start like JSON.
Status CheckLooksLikeJson(std::string_view bytes, const std::string& source_name) {
  std::size_t first = 0;
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

// How the reference parser rejected a document for its syntax (not for what GbSaxHandler found
// in it).
struct SyntaxError {
  bool found = false;
  bool past_the_end = false;  ///< it needed bytes after the last one: the text ended too early
};

// `syntax`, when given, says whether the document was rejected for its syntax, and whether
// the parser had run past the end of the text then.
Result<BenchmarkFile> ParseWithNlohmann(std::string_view bytes, const std::string& source_name,
                                        SyntaxError* syntax) {
  GPUBENCH_RETURN_IF_ERROR(CheckLooksLikeJson(bytes, source_name));
  const std::optional<std::string> quoted = QuoteNonFiniteTokens(bytes);
  const std::string_view text = quoted ? std::string_view(*quoted) : bytes;
  GbSaxHandler handler(source_name);
  NlohmannEvents events(handler);
  const bool ok = nlohmann::json::sax_parse(text.data(), text.data() + text.size(), &events);
  if (syntax && events.syntax_error_at()) {
    syntax->found = true;
    syntax->past_the_end = *events.syntax_error_at() > text.size();
  }
  if (!ok || !handler.error().empty()) {
    return Status::InvalidInput(handler.error().empty() ? source_name + " could not be parsed"
                                                        : handler.error());
  }
  return handler.Finish();
}

Result<BenchmarkFile> ParseCompleteWithNlohmann(std::string_view bytes,
                                                const std::string& source_name) {
  return ParseWithNlohmann(bytes, source_name, nullptr);
}

// Whether the reference parser, reading `text`, runs out of input before the document ends,
// having found every token acceptable where it stood.
bool ReferenceParserRunsPastTheEnd(std::string_view text) {
  const std::optional<std::string> quoted = QuoteNonFiniteTokens(text);
  const std::string_view input = quoted ? std::string_view(*quoted) : text;
  SyntaxOnlyEvents events;
  nlohmann::json::sax_parse(input.data(), input.data() + input.size(), &events);
  return events.syntax_error_at() && *events.syntax_error_at() > input.size();
}

// A parser of complete documents: the fast path with the reference behind it, or the reference
// alone.
using CompleteDocumentParser = Result<BenchmarkFile> (*)(std::string_view, const std::string&);

// The reference parse of `bytes`, and where it fails because the file was cut off mid-write (a
// killed or still running benchmark binary), the parse of its complete rows. A file is cut off
// when it is a proper prefix of a valid document: the reference parser, given the bytes and the
// rest of the token they end in, wants more input. Anything else it rejects (garbage in the
// middle, a GB row that is not valid) keeps its error. The complete rows, closed by "]" and "}",
// are parsed as any complete document by `parse_complete` (so the fast path and the reference
// keep agreeing on them); the partial last row is dropped.
Result<BenchmarkFile> ParseOrRecoverCutOff(std::string_view bytes, const std::string& source_name,
                                           CompleteDocumentParser parse_complete) {
  SyntaxError syntax;
  Result<BenchmarkFile> file = ParseWithNlohmann(bytes, source_name, &syntax);
  if (file.ok() || !syntax.found) return file;
  const cut_off::Scan scan = cut_off::ScanCutOff(bytes);
  const bool cut = scan.completion.empty()
                       ? syntax.past_the_end
                       : ReferenceParserRunsPastTheEnd(std::string(bytes) + scan.completion);
  if (!cut) return file;
  if (scan.complete_rows == 0) {
    return Status::InvalidInput(cut_off::CutBeforeAnyRowMessage(source_name, bytes.size(), scan));
  }
  std::string complete;
  complete.reserve(scan.keep + scan.closers.size());
  complete.append(bytes.substr(0, scan.keep)).append(scan.closers);
  Result<BenchmarkFile> recovered = parse_complete(complete, source_name);
  if (!recovered.ok()) return recovered;
  BenchmarkFile& value = recovered.value();
  value.cut_off.push_back({source_name, bytes.size(), scan.complete_rows, value.benchmarks.size()});
  for (BenchmarkRecord& record : value.benchmarks) record.recovered = true;
  return recovered;
}

#if GPUBENCH_COMPARE_HAVE_RAPIDJSON

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

#endif  // GPUBENCH_COMPARE_HAVE_RAPIDJSON

#if GPUBENCH_COMPARE_HAVE_SIMDJSON

static_assert(kTextPadding >= simdjson::SIMDJSON_PADDING);

// Walks simdjson's On-Demand view of a document and sends GbSaxHandler the
// events that the nlohmann path would send for it. Like RapidJsonEvents, it
// gives up (returns false) on anything that path might treat differently,
// and the caller then tries the next parser.
class SimdjsonWalker {
 public:
  SimdjsonWalker(GbSaxHandler& handler, simdjson::ondemand::document& document)
      : handler_(handler), document_(document) {}

  // `value` is an object or array (simdjson has no value for a scalar
  // document; CheckLooksLikeJson has ruled those out).
  bool Walk(simdjson::ondemand::value value, int nesting) {
    const std::string_view token = value.raw_json_token();
    if (token.empty()) return false;
    switch (token[0]) {
      case '{': {
        if (++nesting > kMaxNesting) return false;
        simdjson::ondemand::object object;
        if (value.get_object().get(object) != simdjson::SUCCESS) return false;
        if (!handler_.StartObject()) return false;
        for (auto field_or_error : object) {
          simdjson::ondemand::field field;
          if (std::move(field_or_error).get(field) != simdjson::SUCCESS) return false;
          std::string_view key = WithoutEscapes(field.key().raw());
          if (key.data() == nullptr) {
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
            if (!IsPlainWellFormedUtf8(key.data(), key.size())) return false;
          }
          if (!handler_.Key(key)) return false;
          simdjson::ondemand::value member = field.value();
          const std::string_view member_token = member.raw_json_token();
          if (!Walk(member, nesting) || !FollowedBy(member_token, '}')) return false;
        }
        return handler_.EndObject();
      }
      case '[': {
        if (++nesting > kMaxNesting) return false;
        simdjson::ondemand::array array;
        if (value.get_array().get(array) != simdjson::SUCCESS) return false;
        if (!handler_.StartArray()) return false;
        for (auto element_or_error : array) {
          simdjson::ondemand::value element;
          if (std::move(element_or_error).get(element) != simdjson::SUCCESS) return false;
          const std::string_view element_token = element.raw_json_token();
          if (!Walk(element, nesting) || !FollowedBy(element_token, ']')) return false;
        }
        return handler_.EndArray();
      }
      case '"': {
        // The token runs to the next structural character: the closing quote
        // is its last character but whitespace.
        std::size_t end = token.size();
        while (end > 1 && IsJsonSpace(token[end - 1])) --end;
        std::string_view text = token.substr(1, end - 2);
        if (std::memchr(text.data(), '\\', text.size()) != nullptr) {
          if (value.get_string().get(text) != simdjson::SUCCESS) return false;
          if (!IsPlainWellFormedUtf8(text.data(), text.size())) return false;
        }
        return handler_.String(text);
      }
      case 't':
      case 'f': {
        bool flag = false;
        if (value.get_bool().get(flag) != simdjson::SUCCESS) return false;
        return handler_.Boolean(flag);
      }
      case 'n': {
        bool is_null = false;
        if (value.is_null().get(is_null) == simdjson::SUCCESS && is_null) return handler_.Null();
        return NonFinite(token);  // nan
      }
      case '-':
        if (token.size() > 1 && IsAsciiLetter(token[1])) return NonFinite(token);
        return Number(value, token);
      default:
        if (token[0] >= '0' && token[0] <= '9') return Number(value, token);
        return NonFinite(token);
    }
  }

 private:
  static bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

  // On-Demand does not check everything between values: in an array it took `"k": 1}` for
  // elements (found by the fuzzer). After each member or element, only ',' or the container's
  // `close` may follow. A scalar's token runs to the next structural character; after a
  // container, the iterator stands on it.
  bool FollowedBy(std::string_view token, char close) {
    const char* next = nullptr;
    if (token[0] == '{' || token[0] == '[') {
      if (document_.current_location().get(next) != simdjson::SUCCESS) return false;
    } else {
      next = token.data() + token.size();
    }
    return *next == ',' || *next == close;
  }

  // The text of the string that starts after the opening quote at `start`, as
  // it is in the input, where it has no escapes (most do not: nothing is
  // copied then); a null view where it has some. simdjson's first stage has
  // checked that the string is closed, that the whole input is well-formed
  // UTF-8 (surrogates and overlong forms excluded) and that no string holds
  // a byte below 0x20: such text needs no IsPlainWellFormedUtf8; only
  // decoded escapes do.
  static std::string_view WithoutEscapes(const char* start) {
    const char* end = start;
    while (*end != '"' && *end != '\\') ++end;
    if (*end == '\\') return {};
    return std::string_view(start, static_cast<std::size_t>(end - start));
  }

  // Same depth limit as RapidJsonEvents: the walk recurses too.
  static constexpr int kMaxNesting = 64;

  // nlohmann: an integer that fits int64 (negative) or uint64 is read
  // exactly, then converted to double (so -0 is +0); other numbers are
  // correctly rounded, as simdjson rounds them. Out of range (1e400) is an
  // error for both.
  // The digits of a number's mantissa (before any exponent).
  static int SignificantDigits(std::string_view token) {
    int digits = 0;
    for (char c : token) {
      if (c == 'e' || c == 'E') break;
      if (c >= '0' && c <= '9') ++digits;
    }
    return digits;
  }

  bool Number(simdjson::ondemand::value& value, std::string_view token) {
    simdjson::ondemand::number number;
    if (value.get_number().get(number) != simdjson::SUCCESS) return false;
    double result = 0;
    switch (number.get_number_type()) {
      case simdjson::ondemand::number_type::signed_integer:
        result = static_cast<double>(number.get_int64());
        break;
      case simdjson::ondemand::number_type::unsigned_integer:
        result = static_cast<double>(number.get_uint64());
        break;
      default:
        result = number.get_double();
        // simdjson 3.0.1 (Debian 12) returns 0 from get_number() when it takes its slow path,
        // which it does above 19 digits, counting a decimal point inside the digits as one
        // (1.797693134862315807e308 has 19). Such rare tokens are converted from their text.
        if (SignificantDigits(token) >= 19) {
          const char* end = token.data() + token.size();
          const char* begin = token.data() + (token.front() == '+' ? 1 : 0);
          if (std::from_chars(begin, end, result).ec != std::errc()) return false;
        }
        if (result == 0 && std::signbit(result) &&
            token.find_first_of(".eE") == std::string_view::npos) {
          result = 0;  // -0 as an integer
        }
        break;
    }
    if (!std::isfinite(result)) return false;
    return handler_.Number(result);
  }

  // A bare word where a value belongs: GB's NaN / Infinity (and the other
  // spellings the nlohmann path quotes, see QuoteNonFiniteTokens), sent as
  // the string that path would see. `token` runs up to the next structural
  // character, whitespace included.
  bool NonFinite(std::string_view token) {
    std::size_t end = token.size();
    while (end > 0 && IsJsonSpace(token[end - 1])) --end;
    const std::string_view word = token.substr(0, end);
    const std::size_t letters_from = !word.empty() && (word[0] == '-' || word[0] == '+') ? 1 : 0;
    if (word.size() == letters_from) return false;
    for (std::size_t i = letters_from; i < word.size(); ++i) {
      if (!IsAsciiLetter(word[i])) return false;
    }
    const std::optional<double> value = ParseNonFiniteSpelling(word);
    if (!value) return false;
    return handler_.String(std::isnan(*value) ? "NaN" : *value > 0 ? "Infinity" : "-Infinity");
  }

  GbSaxHandler& handler_;
  simdjson::ondemand::document& document_;
};

// The first fast path: nullopt when simdjson or GbSaxHandler rejects the
// document, or it may be read differently than by nlohmann. `text` is not
// changed; text[size] and the kTextPadding - 1 bytes after it are readable.
std::optional<BenchmarkFile> TryParseWithSimdjson(const char* text, std::size_t size,
                                                  const std::string& source_name) {
  // As CheckLooksLikeJson requires (simdjson would skip a byte order mark).
  std::size_t first = 0;
  while (first < size && (text[first] == ' ' || text[first] == '\n' || text[first] == '\r' ||
                          text[first] == '\t')) {
    ++first;
  }
  if (first == size || (text[first] != '{' && text[first] != '[')) return std::nullopt;
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document document;
  if (parser.iterate(text, size, size + kTextPadding).get(document) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  simdjson::ondemand::value root;
  if (document.get_value().get(root) != simdjson::SUCCESS) return std::nullopt;
  GbSaxHandler handler(source_name);
  SimdjsonWalker walker(handler, document);
  if (!walker.Walk(root, 0) || !handler.error().empty()) return std::nullopt;
  // Nothing but whitespace may follow the top-level value.
  if (document.current_location().error() != simdjson::OUT_OF_BOUNDS) return std::nullopt;
  Result<BenchmarkFile> file = handler.Finish();
  if (!file.ok()) return std::nullopt;  // the nlohmann path fails with the same message
  return std::move(file).value();
}

#endif  // GPUBENCH_COMPARE_HAVE_SIMDJSON

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

}  // namespace gpubench::compare
