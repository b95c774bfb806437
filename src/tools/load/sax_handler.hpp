// The SAX layer of the loader: turns the events of either JSON parser (nlohmann's or
// RapidJSON's, adapted in loader.cpp) into rows of Google Benchmark's "benchmarks" array and the
// file's context, and hands them to the model builder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.hpp"
#include "tools/load/gb_rows.hpp"
#include "tools/load/model.hpp"
#include "tools/load/model_builder.hpp"

namespace gpubench::tools {

/// Parser-neutral SAX events in, a BenchmarkFile out. A `false` return stops the parse; error()
/// then says why.
class GbSaxHandler {
 public:
  /// `source` (usually the path) starts every message.
  explicit GbSaxHandler(const std::string& source) : source_(source), builder_(source, keys_) {}

  bool Null() { return Scalar(ValueKind::kNull, 0, {}, false); }
  bool Boolean(bool value) { return Scalar(ValueKind::kBool, 0, {}, value); }
  bool Number(double value) { return Scalar(ValueKind::kNumber, value, {}, false); }
  bool String(std::string_view value) { return Scalar(ValueKind::kString, 0, value, false); }
  bool StartObject() { return StartContainer(true); }
  bool EndObject() { return EndContainer(); }
  bool StartArray() { return StartContainer(false); }
  bool EndArray() { return EndContainer(); }
  bool Key(std::string_view value) {
    if (skip_depth_ > 0) return true;
    if (depth_ == 3 && section_ == Section::kBenchmarks) {  // the hot path: a key of a row
      row_key_ = keys_.Intern(value);
      row_field_ = keys_.field(row_key_);
      return true;
    }
    return OuterKey(value);
  }

  /// The parser's own message for invalid JSON (nlohmann's "[json.exception...] " prefix is
  /// dropped).
  void ParseError(std::string_view what);
  /// Why the parse stopped; empty while it may go on.
  const std::string& error() const { return error_; }
  /// The file, once the parser has sent every event.
  detail::Result<BenchmarkFile> Finish() { return builder_.Finish(saw_benchmarks_); }

 private:
  enum class ValueKind { kNull, kBool, kNumber, kString };
  enum class Section { kNone, kContext, kBenchmarks };
  enum class TopKey { kNone, kContext, kBenchmarks, kOther };
  using Field = rows::Field;

  bool OuterKey(std::string_view value);
  void Fail(const std::string& message);
  void RowProblem(std::string problem);
  bool StartContainer(bool is_object);
  bool EndContainer();
  bool FinishRow();
  bool Scalar(ValueKind kind, double number, std::string_view text, bool flag);
  bool ContextScalar(ValueKind kind, double number, std::string_view text, bool flag);
  void RowScalar(ValueKind kind, double number, std::string_view text, bool flag);
  void RowCounter(ValueKind kind, double number, std::string_view text);
  void RowFlag(ValueKind kind, bool flag);
  void RowNumber(ValueKind kind, double number, std::string_view text);
  void RowString(ValueKind kind, std::string_view text);

  const std::string& source_;
  rows::RowKeys keys_;
  ModelBuilder builder_;
  std::string error_;
  int depth_ = 0;
  int skip_depth_ = 0;
  Section section_ = Section::kNone;
  TopKey top_key_ = TopKey::kNone;
  bool saw_benchmarks_ = false;
  std::string context_key_;
  std::uint32_t row_key_ = 0;  ///< id of the current key
  Field row_field_ = Field::kIgnored;
  std::size_t next_row_index_ = 0;
  rows::RowState row_;
};

}  // namespace gpubench::tools
