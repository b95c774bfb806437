// The reference parser, nlohmann-json: GB's bare NaN / Infinity quoted first, the events sent to
// GbSaxHandler, and the recovery of files cut off mid-write.
#include "tools/load/parsers.hpp"

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tools/load/cut_off.hpp"
#include "tools/load/gb_rows.hpp"
#include "tools/load/loader.hpp"
#include "tools/load/sax_handler.hpp"

namespace gpubench::tools {
namespace {

using parsers::IsAsciiLetter;
using rows::ParseNonFiniteSpelling;

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

namespace parsers {
namespace {

using detail::Result;
using detail::Status;

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

// Whether the reference parser, reading `text`, runs out of input before the document ends,
// having found every token acceptable where it stood.
bool ReferenceParserRunsPastTheEnd(std::string_view text) {
  const std::optional<std::string> quoted = QuoteNonFiniteTokens(text);
  const std::string_view input = quoted ? std::string_view(*quoted) : text;
  SyntaxOnlyEvents events;
  nlohmann::json::sax_parse(input.data(), input.data() + input.size(), &events);
  return events.syntax_error_at() && *events.syntax_error_at() > input.size();
}

}  // namespace

Result<BenchmarkFile> ParseCompleteWithNlohmann(std::string_view bytes,
                                                const std::string& source_name) {
  return ParseWithNlohmann(bytes, source_name, nullptr);
}

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

}  // namespace parsers
}  // namespace gpubench::tools
