#include "tools/base/json_writer.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include <nlohmann/json.hpp>

namespace gpubench::tools {
namespace {

constexpr std::uint64_t kEveryByte = 0x0101010101010101;  // times a byte: that byte in each lane
constexpr std::uint64_t kHighBits = 0x8080808080808080;

// The high bit of some byte lane is set if some byte of `word` is zero (exact only as a whole).
std::uint64_t ZeroByteBits(std::uint64_t word) { return (word - kEveryByte) & ~word & kHighBits; }

// Whether the 8 bytes of `word` are printable ASCII other than '"' and '\\'. Bytes >= 0x80 set
// their high bit; if all are below 0x80, subtracting 0x20 from every lane borrows (setting a high
// bit) exactly when some byte is below 0x20; a quote or backslash is a zero byte after XOR.
bool IsPlainWord(std::uint64_t word) {
  return ((word | (word - 0x20 * kEveryByte) | ZeroByteBits(word ^ ('"' * kEveryByte)) |
           ZeroByteBits(word ^ ('\\' * kEveryByte))) &
          kHighBits) == 0;
}

// Printable ASCII other than '"' and '\\': written between quotes as it is. Anything else (a
// quote, a backslash, a control character, UTF-8, invalid UTF-8) is rare in a report (benchmark
// and metric names, units and notes are ASCII) and goes through nlohmann's own serializer. Keys
// and strings are checked 8 bytes at a time: every key of the report is checked.
bool IsPlain(std::string_view text) {
  const char* bytes = text.data();
  std::size_t left = text.size();
  std::uint64_t word;
  if (left >= 8) {
    for (; left > 8; bytes += 8, left -= 8) {
      std::memcpy(&word, bytes, 8);
      if (!IsPlainWord(word)) return false;
    }
    std::memcpy(&word, bytes + left - 8, 8);  // the last 8 bytes, some of them checked already
    return IsPlainWord(word);
  }
  if (left >= 4) {  // two 4-byte halves that may overlap
    std::uint32_t low, high;
    std::memcpy(&low, bytes, 4);
    std::memcpy(&high, bytes + left - 4, 4);
    word = low | std::uint64_t{high} << 32;
  } else if (left > 0) {  // the first, middle and last byte, the other lanes a plain 'a'
    word = ('a' * kEveryByte) << 24 | std::uint64_t{static_cast<unsigned char>(bytes[0])} |
           std::uint64_t{static_cast<unsigned char>(bytes[left / 2])} << 8 |
           std::uint64_t{static_cast<unsigned char>(bytes[left - 1])} << 16;
  } else {
    return true;
  }
  return IsPlainWord(word);
}

// ",\n" and the indentation of up to kMaxFastIndent / 2 levels (nlohmann indents by two spaces),
// and one space more, so that kLineBreakCopy bytes can be copied from the comma or the newline.
constexpr std::size_t kMaxFastIndent = 64;
constexpr std::size_t kLineBreakCopy = 2 + kMaxFastIndent;
const std::string kCommaBreakSpaces = ",\n" + std::string(kMaxFastIndent + 1, ' ');

}  // namespace

void JsonWriter::BeginObject() {
  BeginValue();
  Append("{", 1);
  ++depth_;
  empty_ = true;
}

void JsonWriter::BeginArray() {
  BeginValue();
  Append("[", 1);
  ++depth_;
  empty_ = true;
}

// nlohmann writes "{}" and "[]" for empty containers, else the closing bracket on its own line.
void JsonWriter::EndObject() {
  --depth_;
  if (!empty_) LineBreak(false);
  Append("}", 1);
  empty_ = false;  // the container just closed is a value of the one around it
}

void JsonWriter::EndArray() {
  --depth_;
  if (!empty_) LineBreak(false);
  Append("]", 1);
  empty_ = false;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  LineBreak(!empty_);
  empty_ = false;
  AppendQuoted(key);
  Append(": ", 2);
  after_key_ = true;
  return *this;
}

void JsonWriter::Null() {
  BeginValue();
  Append("null", 4);
}

void JsonWriter::Bool(bool value) {
  BeginValue();
  if (value) {
    Append("true", 4);
  } else {
    Append("false", 5);
  }
}

void JsonWriter::Double(double value) {
  BeginValue();
  if (!std::isfinite(value)) return Append("null", 4);
  if (value != 0 && std::fabs(value) < 1e15 &&
      static_cast<double>(static_cast<std::int64_t>(value)) == value) {
    // A whole number below 10^15 (byte counts, clocks, 0/1 flags: a fifth of the doubles of a
    // report on gpubench's counters): no other number within half an ulp of it has as few
    // digits, so Grisu2's shortest digits are its own, which nlohmann writes as "1980.0".
    // std::to_chars of the integer is several times faster. (Zero stays with nlohmann, which
    // writes -0.0 as "-0.0".)
    constexpr std::size_t kRoom = 24;
    char* begin = Room(kRoom);
    char* end = std::to_chars(begin, begin + kRoom, static_cast<std::int64_t>(value)).ptr;
    end[0] = '.';
    end[1] = '0';
    size_ += static_cast<std::size_t>(end + 2 - begin);
    return;
  }
  // nlohmann's own Grisu2 conversion, which its serializer calls for every double. std::to_chars
  // is no substitute: its shortest digits differ from Grisu2's for about 1 in 700 random doubles
  // (e.g. 4.1752050594835e+78 against 4.1752050594835004e+78), and it writes 3.0 as "3".
  constexpr std::size_t kRoom = 64;  // the serializer's buffer
  char* begin = Room(kRoom);
  size_ +=
      static_cast<std::size_t>(nlohmann::detail::to_chars(begin, begin + kRoom, value) - begin);
}

void JsonWriter::Integer(std::int64_t value) {
  BeginValue();
  constexpr std::size_t kRoom = 24;
  char* begin = Room(kRoom);
  size_ += static_cast<std::size_t>(std::to_chars(begin, begin + kRoom, value).ptr - begin);
}

void JsonWriter::Unsigned(std::uint64_t value) {
  BeginValue();
  constexpr std::size_t kRoom = 24;
  char* begin = Room(kRoom);
  size_ += static_cast<std::size_t>(std::to_chars(begin, begin + kRoom, value).ptr - begin);
}

void JsonWriter::String(std::string_view value) {
  BeginValue();
  AppendQuoted(value);
}

// Inside an array every value starts a line; inside an object Key() has started it.
void JsonWriter::BeginValue() {
  if (after_key_) {
    after_key_ = false;
  } else if (depth_ > 0) {
    LineBreak(!empty_);
    empty_ = false;
  }
}

// The comma after the previous value of a container (not before its first value nor its closing
// bracket), the line break and the indentation of the current depth. This is the most frequent
// piece of the text, so it is copied in one fixed-size block.
void JsonWriter::LineBreak(bool comma) {
  const std::size_t indent = 2 * static_cast<std::size_t>(depth_);
  const std::size_t skip = comma ? 0 : 1;
  if (indent > kMaxFastIndent) return DeepLineBreak(comma);
  std::memcpy(Room(kLineBreakCopy), kCommaBreakSpaces.data() + skip, kLineBreakCopy);
  size_ += 2 - skip + indent;
}

[[gnu::noinline]] void JsonWriter::DeepLineBreak(bool comma) {
  const std::string spaces(2 * static_cast<std::size_t>(depth_), ' ');
  Append(comma ? ",\n" : "\n", comma ? 2 : 1);
  Append(spaces.data(), spaces.size());
}

void JsonWriter::AppendQuoted(std::string_view text) {
  if (!IsPlain(text)) return AppendEscaped(text);
  char* out = Room(text.size() + 2);
  out[0] = '"';
  std::memcpy(out + 1, text.data(), text.size());
  out[text.size() + 1] = '"';
  size_ += text.size() + 2;
}

// Escapes (\" \\ \n \u0001 ...), UTF-8 as it is, each invalid UTF-8 sequence replaced by U+FFFD
// exactly where nlohmann's decoder gives up: its serializer decides, on a one-string document.
void JsonWriter::AppendEscaped(std::string_view text) {
  const std::string quoted = nlohmann::json(std::string(text))
                                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  Append(quoted.data(), quoted.size());
}

// Where `bytes` more bytes of text can be written; they become text when size_ is advanced.
char* JsonWriter::Room(std::size_t bytes) {
  if (capacity_ - size_ < bytes) Grow(bytes);
  return buffer_.get() + size_;
}

// Not inlined into Room(), whose callers are the writer's hot paths: they then need no stack
// frame of their own.
[[gnu::noinline]] void JsonWriter::Grow(std::size_t bytes) {
  // Not std::string::resize: that would fill the new memory (and fault its pages in) up front.
  capacity_ = std::max(2 * capacity_, size_ + bytes + 4096);
  auto larger = std::unique_ptr<char[]>(new char[capacity_]);
  if (size_ > 0) std::memcpy(larger.get(), buffer_.get(), size_);
  buffer_ = std::move(larger);
}

void JsonWriter::Append(const char* bytes, std::size_t count) {
  std::memcpy(Room(count), bytes, count);
  size_ += count;
}

}  // namespace gpubench::tools
