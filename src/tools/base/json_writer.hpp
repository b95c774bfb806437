// A streaming JSON writer whose text is byte-identical to what nlohmann-json writes for the same
// values with dump(2, ' ', false, error_handler_t::replace): two-space indentation, "key": value,
// shortest round-trip doubles ("3.0", "1e-05", "1e+300"), null for NaN and infinities, control
// characters as \u00XX, UTF-8 written as it is and invalid UTF-8 replaced by U+FFFD. Building a
// nlohmann DOM of a large report and dumping it took four times as long as the whole console
// report (a node allocation per value, then a second pass over them, then the whole text in one
// string); this appends the text directly to a buffer that the caller can hand on piece by piece.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace gpubench::tools {

// Each writer on its own 64-byte cache line: the report is written by two writers on two threads,
// and with both in one line (adjacent on the stack) every append by one invalidated the other's
// copy of the line (0.29-0.46 s instead of 0.24-0.31 s for a 200 MB report on two cores).
class alignas(64) JsonWriter {
 public:
  /// The text written since the last ClearText().
  std::string_view text() const { return std::string_view(buffer_.get(), size_); }
  /// Forgets the text written so far (the caller has handed it on); the memory is kept for what
  /// follows.
  void ClearText() { size_ = 0; }

  /// A writer whose values continue the array or object open in this one, after at least one
  /// value of it and at the same depth: for values written on another thread, whose text the
  /// caller puts after this writer's text before the container is closed here.
  JsonWriter Continuation() const {
    JsonWriter continuation;
    continuation.depth_ = depth_;
    continuation.empty_ = false;
    return continuation;
  }

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();

  /// Inside an object: the key of the value written next.
  JsonWriter& Key(std::string_view key);

  void Null();
  void Bool(bool value);
  void Double(double value);  ///< null when not finite, as nlohmann writes it
  void Integer(std::int64_t value);
  void Unsigned(std::uint64_t value);
  void String(std::string_view value);

  /// Writes `value` as the JSON type nlohmann gives its C++ type, so that what a nlohmann
  /// DOM built from the same C++ values would hold is written: bool -> true/false, signed
  /// integers -> integer ("3"), unsigned integers -> integer, float/double -> number ("3.0",
  /// null when not finite), strings -> string, nullptr -> null, std::optional -> its value or
  /// null, std::vector -> array.
  template <typename T>
  void Value(const T& value);

  /// Key(key) then Value(value): one member of an object, the usual way to add a field.
  template <typename T>
  void Member(std::string_view key, const T& value) {
    Key(key);
    Value(value);
  }

 private:
  template <typename T>
  struct IsOptional : std::false_type {};
  template <typename T>
  struct IsOptional<std::optional<T>> : std::true_type {};
  template <typename T>
  struct IsVector : std::false_type {};
  template <typename T, typename A>
  struct IsVector<std::vector<T, A>> : std::true_type {};
  template <typename T>
  static constexpr bool kNoJsonType = false;

  void BeginValue();
  void LineBreak(bool comma);
  void DeepLineBreak(bool comma);
  void AppendQuoted(std::string_view text);
  void AppendEscaped(std::string_view text);
  char* Room(std::size_t bytes);
  void Grow(std::size_t bytes);
  void Append(const char* bytes, std::size_t count);

  // The text is buffer_[0, size_) of capacity_ bytes. Appending the many small pieces of JSON
  // text with memcpy here costs half of what std::string::append costs.
  std::unique_ptr<char[]> buffer_;
  std::size_t size_ = 0, capacity_ = 0;
  int depth_ = 0;           // containers open
  bool empty_ = true;       // the innermost open container has no value yet
  bool after_key_ = false;  // Key() was written; the value follows on the same line
};

template <typename T>
void JsonWriter::Value(const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    Bool(value);
  } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
    Null();
  } else if constexpr (std::is_floating_point_v<T>) {
    Double(static_cast<double>(value));
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    Integer(static_cast<std::int64_t>(value));
  } else if constexpr (std::is_integral_v<T>) {
    Unsigned(static_cast<std::uint64_t>(value));
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    String(value);
  } else if constexpr (IsOptional<T>::value) {
    if (value) {
      Value(*value);
    } else {
      Null();
    }
  } else if constexpr (IsVector<T>::value) {
    BeginArray();
    for (const auto& element : value) Value(element);
    EndArray();
  } else {
    static_assert(kNoJsonType<T>, "JsonWriter::Value: no JSON type for this C++ type");
  }
}

}  // namespace gpubench::tools
