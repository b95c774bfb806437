#include "compare/loader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

constexpr const char* kExpectedInput =
    "expected the JSON file written by a Google Benchmark binary run with "
    "--benchmark_out=FILE --benchmark_out_format=json";
// Guards against absurd repetition counts that would make us allocate a lot.
constexpr long long kMaxRepetitions = 1'000'000;
// Zero bytes that follow the text that RapidJSON parses.
constexpr std::size_t kTextPadding = 16;

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Parses the spellings of non-finite values that GB and other tools write.
std::optional<double> ParseNonFiniteSpelling(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (EqualsIgnoreCase(text, "nan")) return std::numeric_limits<double>::quiet_NaN();
  if (EqualsIgnoreCase(text, "inf") || EqualsIgnoreCase(text, "infinity")) {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

std::string Quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20) {
      out += '?';  // keep messages on one line
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

std::string FormatDouble(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

enum class Field : std::uint8_t {
  kName,
  kRunName,
  kRunType,
  kRepetitions,
  kRepetitionIndex,
  kAggregateName,
  kAggregateUnit,
  kErrorOccurred,
  kErrorMessage,
  kSkipped,
  kSkipMessage,
  kRealTime,
  kCpuTime,
  kTimeUnit,
  kLabel,
  kIgnored,  // GB bookkeeping that is neither compared nor validated
  kCounter,  // anything else: a user counter when numeric
};

// Hot path: called for every key of every row, so no hashing or allocation.
Field ClassifyRowKey(std::string_view key) {
  switch (key.size()) {
    case 4:
      if (key == "name") return Field::kName;
      break;
    case 5:
      if (key == "label") return Field::kLabel;
      break;
    case 7:
      if (key == "threads") return Field::kIgnored;
      if (key == "skipped") return Field::kSkipped;
      break;
    case 8:
      if (key == "run_name") return Field::kRunName;
      if (key == "run_type") return Field::kRunType;
      if (key == "cpu_time") return Field::kCpuTime;
      break;
    case 9:
      if (key == "real_time") return Field::kRealTime;
      if (key == "time_unit") return Field::kTimeUnit;
      break;
    case 10:
      if (key == "iterations") return Field::kIgnored;
      break;
    case 11:
      if (key == "repetitions") return Field::kRepetitions;
      break;
    case 12:
      if (key == "family_index") return Field::kIgnored;
      if (key == "skip_message") return Field::kSkipMessage;
      break;
    case 13:
      if (key == "error_message") return Field::kErrorMessage;
      break;
    case 14:
      if (key == "aggregate_name") return Field::kAggregateName;
      if (key == "aggregate_unit") return Field::kAggregateUnit;
      if (key == "error_occurred") return Field::kErrorOccurred;
      break;
    case 16:
      if (key == "repetition_index") return Field::kRepetitionIndex;
      if (key == "real_coefficient") return Field::kIgnored;
      break;
    case 15:
      if (key == "cpu_coefficient") return Field::kIgnored;
      break;
    case 25:
      if (key == "per_family_instance_index") return Field::kIgnored;
      break;
    default:
      break;
  }
  if (key == "big_o" || key == "rms") return Field::kIgnored;
  return Field::kCounter;
}

const char* FieldNameForMessage(Field field) {
  switch (field) {
    case Field::kName:
      return "name";
    case Field::kRunName:
      return "run_name";
    case Field::kRunType:
      return "run_type";
    case Field::kRepetitions:
      return "repetitions";
    case Field::kRepetitionIndex:
      return "repetition_index";
    case Field::kAggregateName:
      return "aggregate_name";
    case Field::kAggregateUnit:
      return "aggregate_unit";
    case Field::kErrorOccurred:
      return "error_occurred";
    case Field::kErrorMessage:
      return "error_message";
    case Field::kSkipped:
      return "skipped";
    case Field::kSkipMessage:
      return "skip_message";
    case Field::kRealTime:
      return "real_time";
    case Field::kCpuTime:
      return "cpu_time";
    case Field::kTimeUnit:
      return "time_unit";
    case Field::kLabel:
      return "label";
    case Field::kIgnored:
    case Field::kCounter:
      break;
  }
  return "?";
}

std::optional<double> NanosecondsPerUnit(std::string_view unit) {
  if (unit == "ns") return 1.0;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  return std::nullopt;
}

// Everything we keep from one element of the "benchmarks" array. Reused
// between rows so that parsing allocates little.
struct RowState {
  std::size_t index = 0;
  std::string name, run_name, run_type, aggregate_name, aggregate_unit, time_unit, message, label;
  bool has_name = false, has_run_name = false, has_run_type = false, has_aggregate_name = false,
       has_aggregate_unit = false, has_time_unit = false, has_label = false;
  bool error_occurred = false, skipped = false;
  bool has_real_time = false, has_cpu_time = false;
  double real_time = 0, cpu_time = 0;
  bool has_repetitions = false, has_repetition_index = false;
  double repetitions = 0, repetition_index = 0;
  // (key id, see GbSaxHandler::InternRowKey; value)
  std::vector<std::pair<std::uint32_t, double>> counters;
  std::size_t counter_count = 0;
  std::string first_problem;  // reported once the row's name is known

  void Reset(std::size_t row_index) {
    index = row_index;
    has_name = has_run_name = has_run_type = has_aggregate_name = has_aggregate_unit =
        has_time_unit = has_label = false;
    error_occurred = skipped = false;
    has_real_time = has_cpu_time = false;
    has_repetitions = has_repetition_index = false;
    counter_count = 0;
    message.clear();
    first_problem.clear();
  }
  void AddCounter(std::uint32_t name_id, double value) {
    if (counter_count == counters.size()) counters.emplace_back();
    counters[counter_count] = {name_id, value};
    ++counter_count;
  }
};

// A mean/median aggregate kept in case the file has no iteration rows for
// its benchmark (--benchmark_report_aggregates_only=true).
struct AggregateFallback {
  std::size_t row_index = 0;
  bool is_median = false;
  int repetitions = 0;
  std::string label;
  std::vector<MetricSeries> metrics;
};

// Turns the SAX events of either parser (nlohmann's or RapidJSON's, see the
// adapters below) into a BenchmarkFile. A `false` return stops the parse;
// error() then says why.
class GbSaxHandler {
 public:
  explicit GbSaxHandler(const std::string& source) : source_(source) { file_.path = source; }

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
    if (depth_ == 1) {
      top_key_ = value == "context"      ? TopKey::kContext
                 : value == "benchmarks" ? TopKey::kBenchmarks
                                         : TopKey::kOther;
    } else if (depth_ == 2 && section_ == Section::kContext) {
      context_key_ = value;
    } else if (depth_ == 3 && section_ == Section::kBenchmarks) {
      row_key_ = InternRowKey(value);
      row_field_ = row_keys_[row_key_].field;
    }
    return true;
  }

  void ParseError(const nlohmann::detail::exception& ex) {
    std::string detail = ex.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
    if (auto pos = detail.find("] ");
        !detail.empty() && detail[0] == '[' && pos != std::string::npos) {
      detail.erase(0, pos + 2);
    }
    Fail("is not valid JSON (" + detail + "); " + kExpectedInput);
  }

  const std::string& error() const { return error_; }

  Result<BenchmarkFile> Finish() {
    if (!saw_benchmarks_) {
      return Status::InvalidInput(source_ +
                                  " is JSON but not Google Benchmark output: it has no top-level "
                                  "\"benchmarks\" array; " +
                                  kExpectedInput);
    }
    for (AggregateFallback& fallback : fallbacks_) {
      const std::string& name = fallback_names_[&fallback - fallbacks_.data()];
      if (file_.index_by_name.count(name) != 0) continue;  // iteration rows exist
      BenchmarkRecord record;
      record.name = name;
      record.first_row = fallback.row_index;
      record.declared_repetitions = fallback.repetitions;
      record.aggregates_only = true;
      record.label = std::move(fallback.label);
      record.metrics = std::move(fallback.metrics);
      file_.index_by_name.emplace(name, file_.benchmarks.size());
      file_.benchmarks.push_back(std::move(record));
    }
    for (const BenchmarkRecord& record : file_.benchmarks) {
      if (!record.failed && !record.aggregates_only && record.declared_repetitions > 1 &&
          record.seen_repetition_indices.size() <
              static_cast<std::size_t>(record.declared_repetitions)) {
        file_.warnings.push_back(
            source_ + ": benchmark " + Quoted(record.name) + " declares " +
            std::to_string(record.declared_repetitions) + " repetitions but the file has " +
            std::to_string(record.seen_repetition_indices.size()) + " (was the run interrupted?)");
      }
    }
    return std::move(file_);
  }

 private:
  enum class ValueKind { kNull, kBool, kNumber, kString };
  enum class Section { kNone, kContext, kBenchmarks };
  enum class TopKey { kNone, kContext, kBenchmarks, kOther };

  // `message` continues a sentence that starts with the file name.
  void Fail(const std::string& message) {
    if (!error_.empty()) return;
    error_ = source_ + (message.rfind(":", 0) == 0 ? "" : " ") + message;
  }

  std::string RowLabel() const {
    std::string where = "entry " + std::to_string(row_.index) + " of \"benchmarks\"";
    if (row_.has_name) return "benchmark " + Quoted(row_.name) + " (" + where + ")";
    return where;
  }

  void RowProblem(std::string problem) {
    if (row_.first_problem.empty()) row_.first_problem = std::move(problem);
  }

  bool StartContainer(bool is_object) {
    if (skip_depth_ > 0) {
      ++skip_depth_;
      return true;
    }
    if (depth_ == 0) {
      if (!is_object) {
        Fail(
            "is JSON but not Google Benchmark output: the top level is an array, not an object "
            "with \"context\" and \"benchmarks\"; " +
            std::string(kExpectedInput));
        return false;
      }
      depth_ = 1;
      return true;
    }
    if (depth_ == 1) {
      if (top_key_ == TopKey::kBenchmarks) {
        if (is_object) {
          Fail("is not Google Benchmark output: \"benchmarks\" is an object, expected an array");
          return false;
        }
        saw_benchmarks_ = true;
        section_ = Section::kBenchmarks;
        depth_ = 2;
        return true;
      }
      if (top_key_ == TopKey::kContext && is_object) {
        section_ = Section::kContext;
        depth_ = 2;
        return true;
      }
      skip_depth_ = 1;
      return true;
    }
    if (depth_ == 2 && section_ == Section::kBenchmarks) {
      if (!is_object) {
        Fail("is not Google Benchmark output: entry " + std::to_string(next_row_index_) +
             " of \"benchmarks\" is an array, expected an object per benchmark run");
        return false;
      }
      row_.Reset(next_row_index_++);
      previous_key_slot_ = 0;
      depth_ = 3;
      return true;
    }
    if (depth_ == 3 && section_ == Section::kBenchmarks && row_field_ != Field::kCounter &&
        row_field_ != Field::kIgnored && row_field_ != Field::kLabel) {
      RowProblem(std::string("field \"") + FieldNameForMessage(row_field_) + "\" is " +
                 (is_object ? "an object" : "an array") + ", expected a scalar value");
    }
    // Nested values in the context (caches, load_avg) or rows are not needed.
    skip_depth_ = 1;
    return true;
  }

  bool EndContainer() {
    if (skip_depth_ > 0) {
      --skip_depth_;
      return true;
    }
    if (depth_ == 3) {
      depth_ = 2;
      return FinishRow();
    }
    if (depth_ == 2) {
      section_ = Section::kNone;
      depth_ = 1;
      return true;
    }
    depth_ = 0;
    return true;
  }

  bool Scalar(ValueKind kind, double number, std::string_view text, bool flag) {
    if (skip_depth_ > 0) return true;
    if (depth_ == 0) {
      Fail(
          "is JSON but not Google Benchmark output: the top level is a single value, not an "
          "object with \"context\" and \"benchmarks\"; " +
          std::string(kExpectedInput));
      return false;
    }
    if (depth_ == 1) {
      if (top_key_ == TopKey::kBenchmarks) {
        Fail("is not Google Benchmark output: \"benchmarks\" is not an array; " +
             std::string(kExpectedInput));
        return false;
      }
      return true;
    }
    if (depth_ == 2) {
      if (section_ == Section::kContext) {
        switch (kind) {
          case ValueKind::kString:
            file_.context[context_key_] = std::string(text);
            break;
          case ValueKind::kNumber:
            file_.context[context_key_] = FormatDouble(number);
            break;
          case ValueKind::kBool:
            file_.context[context_key_] = flag ? "true" : "false";
            break;
          case ValueKind::kNull:
            break;
        }
        return true;
      }
      Fail("is not Google Benchmark output: entry " + std::to_string(next_row_index_++) +
           " of \"benchmarks\" is a single value, expected an object per benchmark run");
      return false;
    }
    RowScalar(kind, number, text, flag);
    return true;
  }

  void RowScalar(ValueKind kind, double number, std::string_view text, bool flag) {
    const Field field = row_field_;
    switch (field) {
      case Field::kIgnored:
        return;
      case Field::kCounter:
        if (kind == ValueKind::kNumber) {
          row_.AddCounter(row_key_, number);
        } else if (kind == ValueKind::kString) {
          if (auto value = ParseNonFiniteSpelling(text)) row_.AddCounter(row_key_, *value);
        }
        return;  // other non-numeric extra fields are not counters
      case Field::kErrorOccurred:
      case Field::kSkipped:
        if (kind != ValueKind::kBool) {
          RowProblem(std::string("field \"") + FieldNameForMessage(field) +
                     "\" must be true or false");
          return;
        }
        (field == Field::kSkipped ? row_.skipped : row_.error_occurred) = flag;
        return;
      case Field::kRealTime:
      case Field::kCpuTime:
      case Field::kRepetitions:
      case Field::kRepetitionIndex: {
        double value = number;
        if (kind == ValueKind::kString) {
          auto non_finite = ParseNonFiniteSpelling(text);
          if (!non_finite) {
            RowProblem(std::string("field \"") + FieldNameForMessage(field) +
                       "\" must be a number, got the string " + Quoted(text));
            return;
          }
          value = *non_finite;
        } else if (kind != ValueKind::kNumber) {
          RowProblem(std::string("field \"") + FieldNameForMessage(field) +
                     "\" must be a number, got " +
                     (kind == ValueKind::kNull ? "null" : "a boolean"));
          return;
        }
        if (field == Field::kRealTime) {
          row_.real_time = value;
          row_.has_real_time = true;
        } else if (field == Field::kCpuTime) {
          row_.cpu_time = value;
          row_.has_cpu_time = true;
        } else if (field == Field::kRepetitions) {
          row_.repetitions = value;
          row_.has_repetitions = true;
        } else {
          row_.repetition_index = value;
          row_.has_repetition_index = true;
        }
        return;
      }
      default:
        break;
    }
    // The remaining fields are strings.
    if (kind != ValueKind::kString) {
      if (field == Field::kLabel || field == Field::kErrorMessage || field == Field::kSkipMessage) {
        return;  // free text; a wrong type there does not matter for comparing
      }
      RowProblem(std::string("field \"") + FieldNameForMessage(field) + "\" must be a string");
      return;
    }
    switch (field) {
      case Field::kName:
        row_.name.assign(text);
        row_.has_name = true;
        break;
      case Field::kRunName:
        row_.run_name.assign(text);
        row_.has_run_name = true;
        break;
      case Field::kRunType:
        row_.run_type.assign(text);
        row_.has_run_type = true;
        break;
      case Field::kAggregateName:
        row_.aggregate_name.assign(text);
        row_.has_aggregate_name = true;
        break;
      case Field::kAggregateUnit:
        row_.aggregate_unit.assign(text);
        row_.has_aggregate_unit = true;
        break;
      case Field::kTimeUnit:
        row_.time_unit.assign(text);
        row_.has_time_unit = true;
        break;
      case Field::kErrorMessage:
      case Field::kSkipMessage:
        if (row_.message.empty()) row_.message.assign(text);
        break;
      case Field::kLabel:
        row_.label.assign(text);
        row_.has_label = true;
        break;
      default:
        break;
    }
  }

  bool RowError(const std::string& problem) {
    Fail(": " + RowLabel() + ": " + problem);
    return false;
  }

  // Checks the time fields of a row with values and returns them in ns.
  bool NormalisedTimes(double* real_ns, double* cpu_ns) {
    if (!row_.has_time_unit) {
      return RowError(
          "field \"time_unit\" is missing; every timed row needs one of \"ns\", \"us\", "
          "\"ms\", \"s\"");
    }
    auto scale = NanosecondsPerUnit(row_.time_unit);
    if (!scale) {
      return RowError("field \"time_unit\" is " + Quoted(row_.time_unit) +
                      "; expected one of \"ns\", \"us\", \"ms\", \"s\"");
    }
    if (!row_.has_real_time) {
      return RowError(
          "field \"real_time\" is missing; every row that did not error needs a numeric "
          "real_time");
    }
    for (int i = 0; i < 2; ++i) {
      const bool is_real = i == 0;
      if (!is_real && !row_.has_cpu_time) continue;
      const double value = is_real ? row_.real_time : row_.cpu_time;
      const char* field = is_real ? "real_time" : "cpu_time";
      if (!std::isfinite(value)) {
        return RowError(std::string("field \"") + field + "\" is " + FormatDouble(value) +
                        "; a time must be a finite number (mark failed runs with "
                        "state.SkipWithError instead)");
      }
      if (value < 0) {
        return RowError(std::string("field \"") + field + "\" is negative (" + FormatDouble(value) +
                        "); a time must be >= 0");
      }
    }
    *real_ns = row_.real_time * *scale;
    *cpu_ns = row_.has_cpu_time ? row_.cpu_time * *scale : 0;
    return true;
  }

  bool FinishRow() {
    if (!row_.first_problem.empty()) return RowError(row_.first_problem);
    if (!row_.has_name) {
      return RowError("has no \"name\" string; every Google Benchmark row has a name");
    }
    const bool is_aggregate =
        row_.has_run_type ? row_.run_type == "aggregate" : row_.has_aggregate_name;
    if (row_.has_run_type && row_.run_type != "aggregate" && row_.run_type != "iteration") {
      return RowError("field \"run_type\" is " + Quoted(row_.run_type) +
                      "; expected \"iteration\" or \"aggregate\"");
    }
    if (!row_.has_run_name) {
      row_.run_name = row_.name;
      // Old GB versions: the aggregate's name is run_name + "_" + aggregate_name.
      const std::string suffix = "_" + row_.aggregate_name;
      if (is_aggregate && row_.has_aggregate_name && row_.name.size() > suffix.size() &&
          row_.name.compare(row_.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        row_.run_name.resize(row_.name.size() - suffix.size());
      }
    }
    if (row_.has_repetitions && (row_.repetitions < 1 || row_.repetitions > kMaxRepetitions ||
                                 row_.repetitions != std::floor(row_.repetitions))) {
      return RowError("field \"repetitions\" is " + FormatDouble(row_.repetitions) +
                      "; expected a whole number between 1 and " + std::to_string(kMaxRepetitions));
    }
    return is_aggregate ? FinishAggregateRow() : FinishIterationRow();
  }

  void AppendValues(std::vector<MetricSeries>& metrics, double real_ns, double cpu_ns) {
    if (metrics.empty()) {
      metrics.reserve(2 + row_.counter_count);
      metrics.push_back({std::string(kRealTime), {}});
      if (row_.has_cpu_time) metrics.push_back({std::string(kCpuTime), {}});
    }
    if (metrics.front().values.empty() && row_.has_repetitions && row_.repetitions <= 1000) {
      metrics.front().values.reserve(static_cast<std::size_t>(row_.repetitions));
    }
    metrics.front().values.push_back(real_ns);
    if (row_.has_cpu_time) FindOrAddSeries(metrics, kCpuTime).values.push_back(cpu_ns);
    // Rows of a benchmark usually list the same counters in the same order,
    // right after real_time and cpu_time: try that place first.
    const std::size_t first_counter = row_.has_cpu_time ? 2 : 1;
    for (std::size_t i = 0; i < row_.counter_count; ++i) {
      const std::string& name = row_keys_[row_.counters[i].first].name;
      const std::size_t guess = first_counter + i;
      MetricSeries& series = guess < metrics.size() && metrics[guess].name == name
                                 ? metrics[guess]
                                 : FindOrAddSeries(metrics, name);
      series.values.push_back(row_.counters[i].second);
    }
  }

  // A small number for each key of the rows of the file, so that every row
  // does not classify and copy its keys again. Rows list the same keys in the
  // same order, so the key that followed the previous one last time is
  // tried first.
  std::uint32_t InternRowKey(std::string_view key) {
    const std::uint32_t guess = successor_[previous_key_slot_];
    std::uint32_t id = guess;
    if (guess >= row_keys_.size() || row_keys_[guess].name != key) {
      auto [it, inserted] =
          row_key_ids_.try_emplace(std::string(key), static_cast<std::uint32_t>(row_keys_.size()));
      if (inserted) {
        row_keys_.push_back({std::string(key), ClassifyRowKey(key)});
        successor_.push_back(kNoKey);
      }
      id = it->second;
      successor_[previous_key_slot_] = id;
    }
    previous_key_slot_ = id + 1;
    return id;
  }

  MetricSeries& FindOrAddSeries(std::vector<MetricSeries>& metrics, std::string_view name) const {
    for (MetricSeries& series : metrics) {
      if (series.name == name) return series;
    }
    metrics.push_back({std::string(name), {}});
    // Avoid regrowing each series once per repetition.
    if (row_.has_repetitions && row_.repetitions <= 1000) {
      metrics.back().values.reserve(static_cast<std::size_t>(row_.repetitions));
    }
    return metrics.back();
  }

  // Index of the record named row_.run_name, or npos. Rows of a benchmark
  // are usually adjacent, so the previous row's record is tried first.
  std::size_t FindRecord() {
    if (last_record_ < file_.benchmarks.size() &&
        file_.benchmarks[last_record_].name == row_.run_name) {
      return last_record_;
    }
    auto it = file_.index_by_name.find(row_.run_name);
    if (it == file_.index_by_name.end()) return std::string::npos;
    return last_record_ = it->second;
  }

  bool FinishIterationRow() {
    std::size_t record_index = FindRecord();
    const bool inserted = record_index == std::string::npos;
    if (inserted) {
      record_index = file_.benchmarks.size();
      file_.index_by_name.emplace(row_.run_name, record_index);
      file_.benchmarks.emplace_back();
      file_.benchmarks.back().name = row_.run_name;
      file_.benchmarks.back().first_row = row_.index;
      last_record_ = record_index;
    }
    BenchmarkRecord& record = file_.benchmarks[record_index];
    const int repetitions = row_.has_repetitions ? static_cast<int>(row_.repetitions) : 0;
    constexpr const char* duplicate_hint =
        "; every benchmark name must be unique within a file (give each registration its own "
        "name or arguments, and do not concatenate outputs of several runs)";
    const std::size_t rows_so_far = record.seen_repetition_indices.size();
    if (!inserted && repetitions != record.declared_repetitions) {
      return RowError("appears again with " + std::to_string(repetitions) +
                      " repetitions after entry " + std::to_string(record.first_row) +
                      " declared " + std::to_string(record.declared_repetitions) + duplicate_hint);
    }
    record.declared_repetitions = repetitions;
    int index = static_cast<int>(rows_so_far);
    if (row_.has_repetition_index) {
      if (row_.repetition_index < 0 || row_.repetition_index != std::floor(row_.repetition_index) ||
          (repetitions > 0 && row_.repetition_index >= repetitions)) {
        return RowError("field \"repetition_index\" is " + FormatDouble(row_.repetition_index) +
                        "; expected a whole number from 0 to repetitions - 1");
      }
      index = static_cast<int>(row_.repetition_index);
    }
    const bool duplicate = repetitions <= 1
                               ? rows_so_far > 0
                               : (rows_so_far >= static_cast<std::size_t>(repetitions) ||
                                  (row_.has_repetition_index &&
                                   std::find(record.seen_repetition_indices.begin(),
                                             record.seen_repetition_indices.end(),
                                             index) != record.seen_repetition_indices.end()));
    if (duplicate) {
      return RowError("is a duplicate: the name already appeared at entry " +
                      std::to_string(record.first_row) +
                      (repetitions > 1 ? " with the same repetition_index " + std::to_string(index)
                                       : std::string(" and the file has no repetitions")) +
                      duplicate_hint);
    }
    record.seen_repetition_indices.push_back(index);
    if (row_.has_label && record.label.empty()) record.label = row_.label;
    if (row_.error_occurred || row_.skipped) {
      if (!record.failed) {
        record.failed = true;
        record.skipped = !row_.error_occurred;
        record.failure_message = row_.message;
      }
      return true;
    }
    double real_ns = 0, cpu_ns = 0;
    if (!NormalisedTimes(&real_ns, &cpu_ns)) return false;
    AppendValues(record.metrics, real_ns, cpu_ns);
    return true;
  }

  bool FinishAggregateRow() {
    const bool is_median = row_.aggregate_name == "median";
    if (!is_median && row_.aggregate_name != "mean") return true;
    if (row_.has_aggregate_unit && row_.aggregate_unit != "time") return true;
    if (row_.error_occurred || row_.skipped) return true;
    if (FindRecord() != std::string::npos) return true;  // have per-repetition rows
    auto [it, inserted] = fallback_index_.try_emplace(row_.run_name, fallbacks_.size());
    if (inserted) {
      fallbacks_.emplace_back();
      fallback_names_.push_back(row_.run_name);
    } else if (fallbacks_[it->second].is_median || !is_median) {
      return true;  // keep the median when both are present
    }
    double real_ns = 0, cpu_ns = 0;
    if (!NormalisedTimes(&real_ns, &cpu_ns)) return false;
    AggregateFallback& fallback = fallbacks_[it->second];
    fallback.row_index = row_.index;
    fallback.is_median = is_median;
    fallback.repetitions = row_.has_repetitions ? static_cast<int>(row_.repetitions) : 0;
    fallback.label = row_.has_label ? row_.label : std::string();
    fallback.metrics.clear();
    AppendValues(fallback.metrics, real_ns, cpu_ns);
    return true;
  }

  const std::string& source_;
  BenchmarkFile file_;
  std::string error_;
  int depth_ = 0;
  int skip_depth_ = 0;
  Section section_ = Section::kNone;
  TopKey top_key_ = TopKey::kNone;
  bool saw_benchmarks_ = false;
  std::string context_key_;
  struct RowKey {
    std::string name;
    Field field;
  };
  static constexpr std::uint32_t kNoKey = 0xFFFFFFFF;
  std::vector<RowKey> row_keys_;  // by id
  std::unordered_map<std::string, std::uint32_t> row_key_ids_;
  // successor_[0]: id of the first key of the previous row;
  // successor_[id + 1]: id of the key that came after key id last time.
  std::vector<std::uint32_t> successor_{kNoKey};
  std::size_t previous_key_slot_ = 0;  // 0 at the start of a row, else id + 1
  std::uint32_t row_key_ = 0;          // id of the current key
  std::size_t last_record_ = std::string::npos;
  Field row_field_ = Field::kIgnored;
  std::size_t next_row_index_ = 0;
  RowState row_;
  std::vector<AggregateFallback> fallbacks_;
  std::vector<std::string> fallback_names_;
  std::unordered_map<std::string, std::size_t> fallback_index_;
};

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
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    handler_.ParseError(ex);
    return false;
  }

 private:
  GbSaxHandler& handler_;
};

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

Result<BenchmarkFile> ParseWithNlohmann(std::string_view bytes, const std::string& source_name) {
  GPUBENCH_RETURN_IF_ERROR(CheckLooksLikeJson(bytes, source_name));
  const std::optional<std::string> quoted = QuoteNonFiniteTokens(bytes);
  const std::string_view text = quoted ? std::string_view(*quoted) : bytes;
  GbSaxHandler handler(source_name);
  NlohmannEvents events(handler);
  const bool ok = nlohmann::json::sax_parse(text.data(), text.data() + text.size(), &events);
  if (!ok || !handler.error().empty()) {
    return Status::InvalidInput(handler.error().empty() ? source_name + " could not be parsed"
                                                        : handler.error());
  }
  return handler.Finish();
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
  // Checks a decoded string for what RapidJSON lets through and nlohmann
  // rejects, nearly always in a fast pass over plain ASCII:
  // - Strings that are not well-formed UTF-8 (Unicode table 3-7). RapidJSON
  //   checks that only with kParseValidateEncodingFlag, which disables its
  //   SIMD string scanning and validates byte by byte; and even then it lets
  //   a \uDC00-\uDFFF escape without a high surrogate through (as ED B0-BF).
  // - Unescaped control characters 0x1A-0x1F: RapidJSON's SIMD scan only
  //   stops at bytes up to 0x19. Decoded, such a byte may also come from an
  //   escape (\u001A), which nlohmann accepts; those are declined too.
  static bool IsPlainWellFormedUtf8(const char* text, std::size_t length) {
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
  return TryParseInSitu(copy.data(), bytes.size(), source_name);
#else
  static_cast<void>(bytes);
  static_cast<void>(source_name);
  return std::nullopt;
#endif
}

// RapidJSON first, on a copy that it may change; for whatever it rejects or
// might read differently (invalid input, whose message names the line and
// column; spellings such as nan or +inf; a byte order mark), the reference
// parser on the original bytes.
Result<BenchmarkFile> ParseBenchmarkJson(std::string_view bytes, const std::string& source_name) {
  return CatchingExceptions(source_name, [&]() -> Result<BenchmarkFile> {
    GPUBENCH_RETURN_IF_ERROR(CheckLooksLikeJson(bytes, source_name));
    if (std::optional<BenchmarkFile> file = ParseBenchmarkJsonFastPathOnly(bytes, source_name)) {
      return std::move(*file);
    }
    return ParseWithNlohmann(bytes, source_name);
  });
}

Result<BenchmarkFile> ParseBenchmarkJsonWithNlohmann(std::string_view bytes,
                                                     const std::string& source_name) {
  return CatchingExceptions(source_name, [&] { return ParseWithNlohmann(bytes, source_name); });
}

bool FastJsonParserAvailable() { return GPUBENCH_COMPARE_HAVE_RAPIDJSON != 0; }

namespace {

// An input file. Regular files are mapped, pre-faulted because page faults
// are costly on some VMs; other files (pipes, process substitution) are read.
class InputFile {
 public:
  explicit InputFile(const std::string& path) : path_(path) {}

  /// Opens the file; reads it now unless it is a regular file that can be mapped.
  Status Open() {
    fd_.fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_.fd < 0) {
      const int saved = errno;
      return Status::InvalidInput("cannot open " + path_ + ": " + std::strerror(saved));
    }
    struct stat info {};
    if (::fstat(fd_.fd, &info) != 0) {
      const int saved = errno;
      return Status::InvalidInput("cannot read " + path_ + ": " + std::strerror(saved));
    }
    if (S_ISDIR(info.st_mode)) {
      return Status::InvalidInput(path_ + " is a directory; " + kExpectedInput);
    }
    if (S_ISREG(info.st_mode) && info.st_size > 0) {
      size_ = static_cast<std::size_t>(info.st_size);
      mappable_ = true;
      return Status::Ok();
    }
    return ReadAll();
  }
  ~InputFile() {
    DropWritableCopy();
    if (original_) ::munmap(original_, size_);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::size_t size() const { return size_; }

  /// A private copy of the bytes that may be changed, followed by kTextPadding zero bytes: for a
  /// regular file, a copy-on-write mapping whose pages are all copied up front (MAP_POPULATE:
  /// page faults are unusually expensive on some VMs) within a zero-filled region one page
  /// longer, so that zeros follow even when the size is a multiple of the page size. (Reading
  /// into memory advised for transparent huge pages was tried: more system time.)
  Result<char*> WritableCopy() {
    if (mappable_ && !copy_mapping_) MapWritableCopy();
    if (copy_mapping_) return copy_start_;
    Result<std::string_view> bytes_or = Bytes();
    if (!bytes_or.ok()) return bytes_or.status();
    const std::string_view bytes = bytes_or.value();
    copy_.reserve(bytes.size() + kTextPadding);
    copy_.assign(bytes);
    copy_.append(kTextPadding, '\0');
    return copy_.data();
  }
  void MapWritableCopy() {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t total = (size_ + kTextPadding + page - 1) / page * page;
    void* region =
        ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) return;
    if (::mmap(region, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE,
               fd_.fd, 0) == MAP_FAILED) {
      ::munmap(region, total);
      return;
    }
    copy_mapping_ = region;
    copy_mapping_size_ = total;
    copy_start_ = static_cast<char*>(region);
  }

  void DropWritableCopy() {
    if (copy_mapping_) ::munmap(copy_mapping_, copy_mapping_size_);
    copy_mapping_ = nullptr;
    std::string().swap(copy_);
  }

  /// The bytes as they are in the file.
  Result<std::string_view> Bytes() {
    if (mappable_ && !original_ && !read_) {
      void* mapping = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd_.fd, 0);
      if (mapping != MAP_FAILED) {
        original_ = mapping;
      } else {
        GPUBENCH_RETURN_IF_ERROR(ReadAll());
      }
    }
    return original_ ? std::string_view(static_cast<const char*>(original_), size_)
                     : std::string_view(buffer_);
  }

 private:
  Status ReadAll() {
    char chunk[1 << 16];
    for (;;) {
      const ssize_t got = ::read(fd_.fd, chunk, sizeof chunk);
      if (got == 0) break;
      if (got < 0) {
        if (errno == EINTR) continue;
        const int saved = errno;
        return Status::InvalidInput("cannot read " + path_ + ": " + std::strerror(saved));
      }
      buffer_.append(chunk, static_cast<std::size_t>(got));
    }
    read_ = true;
    size_ = buffer_.size();
    mappable_ = false;
    return Status::Ok();
  }

  struct Descriptor {
    int fd = -1;
    ~Descriptor() {
      if (fd >= 0) ::close(fd);
    }
  };

  const std::string& path_;
  Descriptor fd_;
  std::size_t size_ = 0;
  bool mappable_ = false;  // a regular file, not empty
  bool read_ = false;      // buffer_ holds the bytes
  std::string buffer_;
  void* original_ = nullptr;
  void* copy_mapping_ = nullptr;
  std::size_t copy_mapping_size_ = 0;
  char* copy_start_ = nullptr;
  std::string copy_;
};

}  // namespace

Result<BenchmarkFile> LoadBenchmarkFile(const std::string& path) {
  return CatchingExceptions(path, [&]() -> Result<BenchmarkFile> {
    InputFile file(path);
    GPUBENCH_RETURN_IF_ERROR(file.Open());
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
    return ParseWithNlohmann(bytes.value(), path);
  });
}

}  // namespace gpubench::compare
