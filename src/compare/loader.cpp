#include "compare/loader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

#include <nlohmann/json.hpp>

namespace gpubench::compare {
namespace {

constexpr const char* kExpectedInput =
    "expected the JSON file written by a Google Benchmark binary run with "
    "--benchmark_out=FILE --benchmark_out_format=json";
// Guards against absurd repetition counts that would make us allocate a lot.
constexpr long long kMaxRepetitions = 1'000'000;

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
  std::vector<std::pair<std::string, double>> counters;
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
  void AddCounter(const std::string& key, double value) {
    if (counter_count == counters.size()) counters.emplace_back();
    counters[counter_count].first.assign(key);
    counters[counter_count].second = value;
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

class GbSaxHandler : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit GbSaxHandler(const std::string& source) : source_(source) { file_.path = source; }

  bool null() override { return Scalar(ValueKind::kNull, 0, nullptr, false); }
  bool boolean(bool value) override { return Scalar(ValueKind::kBool, 0, nullptr, value); }
  bool number_integer(number_integer_t value) override {
    return Scalar(ValueKind::kNumber, static_cast<double>(value), nullptr, false);
  }
  bool number_unsigned(number_unsigned_t value) override {
    return Scalar(ValueKind::kNumber, static_cast<double>(value), nullptr, false);
  }
  bool number_float(number_float_t value, const string_t& /*text*/) override {
    return Scalar(ValueKind::kNumber, value, nullptr, false);
  }
  bool string(string_t& value) override { return Scalar(ValueKind::kString, 0, &value, false); }
  bool binary(binary_t& /*value*/) override { return Scalar(ValueKind::kNull, 0, nullptr, false); }

  bool start_object(std::size_t /*elements*/) override { return StartContainer(true); }
  bool end_object() override { return EndContainer(); }
  bool start_array(std::size_t /*elements*/) override { return StartContainer(false); }
  bool end_array() override { return EndContainer(); }

  bool key(string_t& value) override {
    if (skip_depth_ > 0) return true;
    if (depth_ == 1) {
      top_key_ = value == "context"      ? TopKey::kContext
                 : value == "benchmarks" ? TopKey::kBenchmarks
                                         : TopKey::kOther;
    } else if (depth_ == 2 && section_ == Section::kContext) {
      context_key_ = value;
    } else if (depth_ == 3 && section_ == Section::kBenchmarks) {
      row_field_ = ClassifyRowKey(value);
      if (row_field_ == Field::kCounter) counter_key_ = value;
    }
    return true;
  }

  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    std::string detail = ex.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
    if (auto pos = detail.find("] ");
        !detail.empty() && detail[0] == '[' && pos != std::string::npos) {
      detail.erase(0, pos + 2);
    }
    Fail("is not valid JSON (" + detail + "); " + kExpectedInput);
    return false;
  }

  const std::string& error() const { return error_; }

  BenchmarkFile Finish() {
    if (!saw_benchmarks_) {
      throw LoadError(source_ +
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

  bool Scalar(ValueKind kind, double number, const std::string* text, bool flag) {
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
            file_.context[context_key_] = *text;
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

  void RowScalar(ValueKind kind, double number, const std::string* text, bool flag) {
    const Field field = row_field_;
    switch (field) {
      case Field::kIgnored:
        return;
      case Field::kCounter:
        if (kind == ValueKind::kNumber) {
          row_.AddCounter(counter_key_, number);
        } else if (kind == ValueKind::kString) {
          if (auto value = ParseNonFiniteSpelling(*text)) row_.AddCounter(counter_key_, *value);
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
          auto non_finite = ParseNonFiniteSpelling(*text);
          if (!non_finite) {
            RowProblem(std::string("field \"") + FieldNameForMessage(field) +
                       "\" must be a number, got the string " + Quoted(*text));
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
        row_.name = *text;
        row_.has_name = true;
        break;
      case Field::kRunName:
        row_.run_name = *text;
        row_.has_run_name = true;
        break;
      case Field::kRunType:
        row_.run_type = *text;
        row_.has_run_type = true;
        break;
      case Field::kAggregateName:
        row_.aggregate_name = *text;
        row_.has_aggregate_name = true;
        break;
      case Field::kAggregateUnit:
        row_.aggregate_unit = *text;
        row_.has_aggregate_unit = true;
        break;
      case Field::kTimeUnit:
        row_.time_unit = *text;
        row_.has_time_unit = true;
        break;
      case Field::kErrorMessage:
      case Field::kSkipMessage:
        if (row_.message.empty()) row_.message = *text;
        break;
      case Field::kLabel:
        row_.label = *text;
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
    for (std::size_t i = 0; i < row_.counter_count; ++i) {
      FindOrAddSeries(metrics, row_.counters[i].first).values.push_back(row_.counters[i].second);
    }
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

  bool FinishIterationRow() {
    auto [it, inserted] = file_.index_by_name.try_emplace(row_.run_name, file_.benchmarks.size());
    if (inserted) {
      file_.benchmarks.emplace_back();
      file_.benchmarks.back().name = row_.run_name;
      file_.benchmarks.back().first_row = row_.index;
    }
    BenchmarkRecord& record = file_.benchmarks[it->second];
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
    if (file_.index_by_name.count(row_.run_name) != 0) return true;  // have per-repetition rows
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
  std::string counter_key_;
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

BenchmarkFile ParseBenchmarkJson(std::string_view bytes, const std::string& source_name) {
  std::size_t first = 0;
  while (first < bytes.size() && (bytes[first] == ' ' || bytes[first] == '\n' ||
                                  bytes[first] == '\r' || bytes[first] == '\t')) {
    ++first;
  }
  if (first == bytes.size()) {
    throw LoadError(source_name + " is empty; " + kExpectedInput);
  }
  if (bytes[first] != '{' && bytes[first] != '[') {
    throw LoadError(source_name +
                    " is not JSON (it does not start with '{'); it may be console or CSV "
                    "output. " +
                    std::string(kExpectedInput));
  }
  const std::optional<std::string> quoted = QuoteNonFiniteTokens(bytes);
  const std::string_view text = quoted ? std::string_view(*quoted) : bytes;
  GbSaxHandler handler(source_name);
  const bool ok = nlohmann::json::sax_parse(text.data(), text.data() + text.size(), &handler);
  if (!ok || !handler.error().empty()) {
    throw LoadError(handler.error().empty() ? source_name + " could not be parsed"
                                            : handler.error());
  }
  return handler.Finish();
}

namespace {

// Owns the bytes of an input file: a read-only mapping for regular files
// (no copy, and pre-faulted because page faults are costly on some VMs),
// otherwise a buffer filled by read() (pipes, process substitution).
class FileBytes {
 public:
  explicit FileBytes(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw LoadError("cannot open " + path + ": " + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
      const int saved = errno;
      ::close(fd);
      throw LoadError("cannot read " + path + ": " + std::strerror(saved));
    }
    if (S_ISDIR(info.st_mode)) {
      ::close(fd);
      throw LoadError(path + " is a directory; " + kExpectedInput);
    }
    if (S_ISREG(info.st_mode) && info.st_size > 0) {
      size_ = static_cast<std::size_t>(info.st_size);
      void* mapping = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (mapping != MAP_FAILED) {
        mapping_ = mapping;
        ::close(fd);
        return;
      }
    }
    ReadAll(fd, path);
    ::close(fd);
  }
  ~FileBytes() {
    if (mapping_) ::munmap(mapping_, size_);
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  std::string_view view() const {
    return mapping_ ? std::string_view(static_cast<const char*>(mapping_), size_)
                    : std::string_view(buffer_);
  }

 private:
  void ReadAll(int fd, const std::string& path) {
    char chunk[1 << 16];
    for (;;) {
      const ssize_t got = ::read(fd, chunk, sizeof chunk);
      if (got == 0) break;
      if (got < 0) {
        if (errno == EINTR) continue;
        const int saved = errno;
        ::close(fd);
        throw LoadError("cannot read " + path + ": " + std::strerror(saved));
      }
      buffer_.append(chunk, static_cast<std::size_t>(got));
    }
  }

  void* mapping_ = nullptr;
  std::size_t size_ = 0;
  std::string buffer_;
};

}  // namespace

BenchmarkFile LoadBenchmarkFile(const std::string& path) {
  const FileBytes bytes(path);
  return ParseBenchmarkJson(bytes.view(), path);
}

}  // namespace gpubench::compare
