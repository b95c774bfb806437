// The first fast path, simdjson's On-Demand API: it declines (and RapidJSON or nlohmann read)
// whatever it might read otherwise than nlohmann. Compiles to nothing without simdjson.
#include "tools/load/parsers.hpp"

#if GPUBENCH_COMPARE_HAVE_SIMDJSON

#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <simdjson.h>

#include "tools/load/gb_rows.hpp"
#include "tools/load/input_file.hpp"
#include "tools/load/sax_handler.hpp"

namespace gpubench::tools::parsers {

static_assert(kTextPadding >= simdjson::SIMDJSON_PADDING);

namespace {

using detail::Result;
using rows::ParseNonFiniteSpelling;

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

}  // namespace

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

}  // namespace gpubench::tools::parsers

#endif  // GPUBENCH_COMPARE_HAVE_SIMDJSON
