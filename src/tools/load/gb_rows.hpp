// The vocabulary of one row of Google Benchmark's "benchmarks" array, shared by the SAX layer
// (sax_handler.cpp) and the model builder (model_builder.cpp): the fields GB writes, the state
// kept of one row, and the interning of row keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gpubench::tools::rows {

/// Says what a valid input is; ends many messages.
inline constexpr const char* kExpectedInput =
    "expected the JSON file written by a Google Benchmark binary run with "
    "--benchmark_out=FILE --benchmark_out_format=json";
/// Guards against absurd repetition counts that would make us allocate a lot.
inline constexpr long long kMaxRepetitions = 1'000'000;

/// A key of a row, as far as the loader cares.
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
  kIgnored,  ///< GB bookkeeping that is neither compared nor validated
  kCounter,  ///< anything else: a user counter when numeric
};

/// The field a key names. Hot path: no hashing or allocation.
Field ClassifyRowKey(std::string_view key);
/// The key of `field`, for messages ("?" for counters and ignored keys).
const char* FieldNameForMessage(Field field);
/// 1 for "ns", 1e3 for "us", 1e6 for "ms", 1e9 for "s"; nullopt for anything else.
std::optional<double> NanosecondsPerUnit(std::string_view unit);
/// The spellings of non-finite values that GB and other tools write (NaN, inf, -Infinity, ...).
std::optional<double> ParseNonFiniteSpelling(std::string_view text);
/// `text` in double quotes, control characters replaced so that messages stay on one line.
std::string Quoted(std::string_view text);
/// "%.17g": a number in a message or a context value.
std::string FormatDouble(double value);

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
  /// (key id, see RowKeys::Intern; value)
  std::vector<std::pair<std::uint32_t, double>> counters;
  std::size_t counter_count = 0;
  std::string first_problem;  ///< reported once the row's name is known

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

/// A small number for each key of the rows of a file, so that every row does not classify and
/// copy its keys again. Rows list the same keys in the same order, so the key that followed the
/// previous one last time is tried first.
class RowKeys {
 public:
  /// Call at the start of each row.
  void StartRow() { previous_slot_ = 0; }
  /// The id of `key`, the next key of the current row.
  std::uint32_t Intern(std::string_view key) {
    const std::uint32_t guess = successor_[previous_slot_];
    std::uint32_t id = guess;
    if (guess >= keys_.size() || keys_[guess].name != key) {
      id = Lookup(key);
      successor_[previous_slot_] = id;
    }
    previous_slot_ = id + 1;
    return id;
  }
  Field field(std::uint32_t id) const { return keys_[id].field; }
  const std::string& name(std::uint32_t id) const { return keys_[id].name; }

 private:
  std::uint32_t Lookup(std::string_view key);

  struct Key {
    std::string name;
    Field field;
  };
  static constexpr std::uint32_t kNoKey = 0xFFFFFFFF;
  std::vector<Key> keys_;  ///< by id
  std::unordered_map<std::string, std::uint32_t> ids_;
  /// successor_[0]: id of the first key of the previous row;
  /// successor_[id + 1]: id of the key that came after key id last time.
  std::vector<std::uint32_t> successor_{kNoKey};
  std::size_t previous_slot_ = 0;  ///< 0 at the start of a row, else id + 1
};

}  // namespace gpubench::tools::rows
