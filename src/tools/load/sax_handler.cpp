#include "tools/load/sax_handler.hpp"

#include <utility>

namespace gpubench::tools {

using rows::FieldNameForMessage;
using rows::FormatDouble;
using rows::kExpectedInput;
using rows::ParseNonFiniteSpelling;
using rows::Quoted;

bool GbSaxHandler::OuterKey(std::string_view value) {
  if (depth_ == 1) {
    top_key_ = value == "context"      ? TopKey::kContext
               : value == "benchmarks" ? TopKey::kBenchmarks
                                       : TopKey::kOther;
  } else if (depth_ == 2 && section_ == Section::kContext) {
    context_key_ = value;
  }
  return true;
}

void GbSaxHandler::ParseError(std::string_view what) {
  std::string detail(what);
  if (auto pos = detail.find("] ");
      !detail.empty() && detail[0] == '[' && pos != std::string::npos) {
    detail.erase(0, pos + 2);
  }
  Fail("is not valid JSON (" + detail + "); " + kExpectedInput);
}

// `message` continues a sentence that starts with the file name.
void GbSaxHandler::Fail(const std::string& message) {
  if (!error_.empty()) return;
  error_ = source_ + (message.rfind(":", 0) == 0 ? "" : " ") + message;
}

// A row's first type problem, reported once the row's name is known.
void GbSaxHandler::RowProblem(std::string problem) {
  if (row_.first_problem.empty()) row_.first_problem = std::move(problem);
}

bool GbSaxHandler::FinishRow() {
  const detail::Status status = builder_.AddRow(row_);
  if (status.ok()) return true;
  if (error_.empty()) error_ = status.message();
  return false;
}

bool GbSaxHandler::StartContainer(bool is_object) {
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
    keys_.StartRow();
    depth_ = 3;
    return true;
  }
  if (depth_ == 3 && section_ == Section::kBenchmarks && row_field_ == Field::kCounter) {
    builder_.NoteNonNumericField(row_key_, is_object ? "an object" : "an array");
  } else if (depth_ == 3 && section_ == Section::kBenchmarks && row_field_ != Field::kIgnored &&
             row_field_ != Field::kLabel) {
    RowProblem(std::string("field \"") + FieldNameForMessage(row_field_) + "\" is " +
               (is_object ? "an object" : "an array") + ", expected a scalar value");
  }
  // Nested values in the context (caches, load_avg) or rows are not needed.
  skip_depth_ = 1;
  return true;
}

bool GbSaxHandler::EndContainer() {
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

bool GbSaxHandler::Scalar(ValueKind kind, double number, std::string_view text, bool flag) {
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
    if (section_ == Section::kContext) return ContextScalar(kind, number, text, flag);
    Fail("is not Google Benchmark output: entry " + std::to_string(next_row_index_++) +
         " of \"benchmarks\" is a single value, expected an object per benchmark run");
    return false;
  }
  RowScalar(kind, number, text, flag);
  return true;
}

// A context entry; non-string values are kept as their JSON text.
bool GbSaxHandler::ContextScalar(ValueKind kind, double number, std::string_view text, bool flag) {
  std::map<std::string, std::string>& context = builder_.context();
  switch (kind) {
    case ValueKind::kString:
      context[context_key_] = std::string(text);
      break;
    case ValueKind::kNumber:
      context[context_key_] = FormatDouble(number);
      break;
    case ValueKind::kBool:
      context[context_key_] = flag ? "true" : "false";
      break;
    case ValueKind::kNull:
      break;
  }
  return true;
}

// A value of the current row, by the kind of field its key names.
void GbSaxHandler::RowScalar(ValueKind kind, double number, std::string_view text, bool flag) {
  switch (row_field_) {
    case Field::kIgnored:
      return;
    case Field::kCounter:
      return RowCounter(kind, number, text);
    case Field::kErrorOccurred:
    case Field::kSkipped:
      return RowFlag(kind, flag);
    case Field::kRealTime:
    case Field::kCpuTime:
    case Field::kRepetitions:
    case Field::kRepetitionIndex:
      return RowNumber(kind, number, text);
    default:
      return RowString(kind, text);
  }
}

void GbSaxHandler::RowCounter(ValueKind kind, double number, std::string_view text) {
  if (kind == ValueKind::kNumber) {
    row_.AddCounter(row_key_, number);
  } else if (kind == ValueKind::kString) {
    if (auto value = ParseNonFiniteSpelling(text)) {
      row_.AddCounter(row_key_, *value);
    } else {
      builder_.NoteNonNumericField(row_key_, "a string");
    }
  } else {
    builder_.NoteNonNumericField(row_key_, kind == ValueKind::kBool ? "true or false" : "null");
  }
}

void GbSaxHandler::RowFlag(ValueKind kind, bool flag) {
  if (kind != ValueKind::kBool) {
    RowProblem(std::string("field \"") + FieldNameForMessage(row_field_) +
               "\" must be true or false");
    return;
  }
  (row_field_ == Field::kSkipped ? row_.skipped : row_.error_occurred) = flag;
}

void GbSaxHandler::RowNumber(ValueKind kind, double number, std::string_view text) {
  const Field field = row_field_;
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
    RowProblem(std::string("field \"") + FieldNameForMessage(field) + "\" must be a number, got " +
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
}

void GbSaxHandler::RowString(ValueKind kind, std::string_view text) {
  const Field field = row_field_;
  if (kind != ValueKind::kString) {
    if (field == Field::kLabel || field == Field::kErrorMessage || field == Field::kSkipMessage) {
      return;  // free text; a wrong type there does not matter for comparing
    }
    RowProblem(std::string("field \"") + FieldNameForMessage(field) + "\" must be a string");
    return;
  }
  // Which string a field fills, and the flag saying it was present.
  auto set = [&](std::string& target, bool& present) {
    target.assign(text);
    present = true;
  };
  switch (field) {
    case Field::kName:
      return set(row_.name, row_.has_name);
    case Field::kRunName:
      return set(row_.run_name, row_.has_run_name);
    case Field::kRunType:
      return set(row_.run_type, row_.has_run_type);
    case Field::kAggregateName:
      return set(row_.aggregate_name, row_.has_aggregate_name);
    case Field::kAggregateUnit:
      return set(row_.aggregate_unit, row_.has_aggregate_unit);
    case Field::kTimeUnit:
      return set(row_.time_unit, row_.has_time_unit);
    case Field::kLabel:
      return set(row_.label, row_.has_label);
    case Field::kErrorMessage:
    case Field::kSkipMessage:
      if (row_.message.empty()) row_.message.assign(text);
      return;
    default:
      return;
  }
}

}  // namespace gpubench::tools
