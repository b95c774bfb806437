#include "tools/load/cut_off.hpp"

#include <cstring>
#include <initializer_list>

#include "tools/load/gb_rows.hpp"

namespace gpubench::tools::cut_off {
namespace {

constexpr std::size_t kNone = std::string_view::npos;

// The index of the quote that closes the string opened at `open`, or kNone when the text ends
// inside the string.
std::size_t ClosingQuote(std::string_view text, std::size_t open) {
  std::size_t j = open + 1;
  for (;;) {
    const void* quote =
        j < text.size() ? std::memchr(text.data() + j, '"', text.size() - j) : nullptr;
    if (!quote) return kNone;
    j = static_cast<std::size_t>(static_cast<const char*>(quote) - text.data());
    std::size_t backslashes = 0;
    while (j - backslashes > open + 1 && text[j - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return j;
    ++j;
  }
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;  // not hex: the parser has rejected the text before its end anyway
}

unsigned HexValue(std::string_view four_digits) {
  unsigned value = 0;
  for (char c : four_digits) value = value * 16 + static_cast<unsigned>(HexDigit(c));
  return value;
}

bool IsHighSurrogate(unsigned code) { return code >= 0xD800 && code <= 0xDBFF; }

// The rest of the escape `partial` ("\", "\u", "\uD8", ...) that a string ends in. After a
// \u escape of a high surrogate only the escape of a low surrogate may follow.
std::string CompleteEscape(std::string_view partial, bool after_high_surrogate) {
  if (after_high_surrogate) {
    constexpr std::string_view kLowSurrogate = "\\udc00";
    return std::string(kLowSurrogate.substr(partial.size()));
  }
  if (partial.size() == 1) return "n";
  const std::string digits(partial.substr(2));
  std::string rest(4 - digits.size(), '0');
  if (IsHighSurrogate(HexValue(digits + rest))) rest += "\\udc00";
  return rest;
}

// The bytes of a UTF-8 sequence of `length` bytes.
std::size_t Utf8Length(unsigned char lead) {
  return lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
}

// The continuation bytes that the UTF-8 sequence `partial` (lead byte first) lacks, each the
// smallest one the lead allows (Unicode table 3-7: E0 needs A0 next, F0 needs 90).
std::string CompleteUtf8(std::string_view partial) {
  const auto lead = static_cast<unsigned char>(partial[0]);
  std::string rest;
  for (std::size_t k = partial.size(); k < Utf8Length(lead); ++k) {
    const bool first = k == 1;
    rest += static_cast<char>(first && lead == 0xE0 ? 0xA0 : first && lead == 0xF0 ? 0x90 : 0x80);
  }
  return rest;
}

// The rest of a string, closing quote included, whose text after the opening quote is
// `content` and which the file ends in.
std::string CompleteString(std::string_view content) {
  bool after_high_surrogate = false;  // the last complete unit is \u of a high surrogate
  std::size_t i = 0;
  while (i < content.size()) {
    const auto c = static_cast<unsigned char>(content[i]);
    if (c == '\\') {
      const std::string_view escape = content.substr(i);
      const bool unicode = escape.size() >= 2 && escape[1] == 'u';
      if (escape.size() < 2 || (unicode && escape.size() < 6)) {
        return CompleteEscape(escape, after_high_surrogate) + "\"";
      }
      after_high_surrogate = unicode && IsHighSurrogate(HexValue(escape.substr(2, 4)));
      i += unicode ? 6 : 2;
      continue;
    }
    after_high_surrogate = false;
    const std::size_t length = Utf8Length(c);
    if (i + length > content.size()) return CompleteUtf8(content.substr(i)) + "\"";
    i += length;
  }
  return std::string(after_high_surrogate ? "\\udc00" : "") + "\"";
}

bool IsBareTokenChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
         c == '+' || c == '.';
}

bool StartsWithIgnoringCase(std::string_view word, std::string_view lower_case) {
  if (word.size() > lower_case.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    char c = word[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower_case[i]) return false;
  }
  return true;
}

// The rest of the number, literal or non-finite word (NaN, -Infinity, ...) that the text ends
// in; `token` is the text's trailing run of such characters. Empty when the token is complete or
// cannot be completed (the parser then rejects it as it is).
std::string CompleteBareToken(std::string_view token) {
  if (token.empty()) return "";
  const bool number =
      (token[0] >= '0' && token[0] <= '9') ||
      (token[0] == '-' && (token.size() == 1 || (token[1] >= '0' && token[1] <= '9')));
  if (number) {
    const char last = token.back();
    const bool needs_digit =
        last == '-' || last == '+' || last == '.' || last == 'e' || last == 'E';
    return needs_digit ? "0" : "";
  }
  for (std::string_view literal : {"true", "false", "null"}) {
    if (token.size() < literal.size() && literal.substr(0, token.size()) == token) {
      return std::string(literal.substr(token.size()));
    }
  }
  if (rows::ParseNonFiniteSpelling(token)) return "";  // "Inf" is complete
  std::string_view word = token;
  if (word[0] == '-' || word[0] == '+') word.remove_prefix(1);
  for (std::string_view spelling : {"infinity", "nan"}) {
    if (StartsWithIgnoringCase(word, spelling)) return std::string(spelling.substr(word.size()));
  }
  return "";
}

}  // namespace

Scan ScanCutOff(std::string_view text) {
  Scan scan;
  int depth = 0;
  // The last string that ended at depth 1: the key of the value that follows there (the top
  // level is an object, or the parser has stopped before).
  std::string_view key;
  bool in_benchmarks = false, in_context = false, benchmarks_seen = false;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t close = ClosingQuote(text, i);
      if (close == kNone) {
        scan.completion = CompleteString(text.substr(i + 1));
        break;
      }
      if (depth == 1) key = text.substr(i + 1, close - i - 1);
      i = close + 1;
      continue;
    }
    if (c == '{' || c == '[') {
      if (depth == 1) {
        in_benchmarks = c == '[' && key == "benchmarks";
        in_context = c == '{' && key == "context";
        benchmarks_seen = benchmarks_seen || in_benchmarks;
      }
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
      if (in_benchmarks && depth == 2 && c == '}') {
        ++scan.complete_rows;
        scan.keep = i + 1;
        scan.closers = "\n]\n}\n";
      } else if (depth == 1) {
        if (in_benchmarks) {
          scan.keep = i + 1;
          scan.closers = "\n}\n";
        }
        in_benchmarks = in_context = false;
      }
    }
    ++i;
  }
  if (i == text.size()) {  // not inside a string
    std::size_t start = text.size();
    while (start > 0 && IsBareTokenChar(text[start - 1])) --start;
    scan.completion = CompleteBareToken(text.substr(start));
  }
  scan.where = in_context                   ? "inside the \"context\" object"
               : in_benchmarks && depth > 2 ? "inside the first row of \"benchmarks\""
               : in_benchmarks              ? "right after \"benchmarks\": [, before its first row"
               : benchmarks_seen            ? "after an empty \"benchmarks\" array"
                                            : "before the \"benchmarks\" array";
  return scan;
}

std::string CutBeforeAnyRowMessage(const std::string& source_name, std::size_t bytes,
                                   const Scan& scan) {
  return source_name + " was cut off mid-write before any benchmark finished: it ends after " +
         std::to_string(bytes) + " bytes, " + scan.where +
         " (the run was killed, or is still running, before Google Benchmark wrote its first "
         "result row). A complete file is one JSON object, {\"context\": {...}, \"benchmarks\": "
         "[{...}, ...]}, closed by \"]\" and \"}\" after the last row; " +
         rows::kExpectedInput;
}

}  // namespace gpubench::tools::cut_off

namespace gpubench::tools {

std::string DescribeCutOff(const CutOffFile& cut) {
  return cut.path + " was cut off mid-write (the run was killed, or is still running): " +
         std::to_string(cut.rows_recovered) + " complete benchmark row(s) of " +
         std::to_string(cut.benchmarks_recovered) + " benchmark(s) were recovered from its " +
         std::to_string(cut.bytes) + " bytes; benchmarks after the cut are treated as missing";
}

}  // namespace gpubench::tools
