#include "tools/load/gb_rows.hpp"

#include <cstdio>
#include <limits>

#include "schema/counter_table.hpp"

namespace gpubench::tools::rows {

namespace {

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

}  // namespace

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
      if (key == counter::kCpuTime) return Field::kCpuTime;
      break;
    case 9:
      if (key == counter::kRealTime) return Field::kRealTime;
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
      return counter::kRealTime;
    case Field::kCpuTime:
      return counter::kCpuTime;
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

std::uint32_t RowKeys::Lookup(std::string_view key) {
  auto [it, inserted] =
      ids_.try_emplace(std::string(key), static_cast<std::uint32_t>(keys_.size()));
  if (inserted) {
    keys_.push_back({std::string(key), ClassifyRowKey(key)});
    successor_.push_back(kNoKey);
  }
  return it->second;
}

}  // namespace gpubench::tools::rows
