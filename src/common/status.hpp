// Status values passed between gpubench's layers, in the library and in the tools alike. CUDA and
// CUPTI codes become a Status in one place each (cuda_status.cpp, cupti_status.cpp); the loop
// turns a failed Status into State::SkipWithError, so no exception reaches GB's runner; the tools
// turn it into their exit code. Exceptions thrown by other libraries (CLI11, the JSON parsers,
// std::bad_alloc) are caught where those libraries are called and become a Status there.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace gpubench::detail {

/// Success, or a failure with a message that says what was wrong and what would be right.
/// [[nodiscard]]: a Status dropped unread is an error nobody hears of; a caller that means to go
/// on regardless says so with a comment and a (void) cast.
class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk,
    kError,         ///< this run failed; later runs may succeed
    kContextLost,   ///< a sticky CUDA error: the context is unusable for the rest of the process
    kInvalidInput,  ///< a file or argument that cannot be used (the tools exit 2)
    kSettingsMismatch,  ///< results measured with different settings (the tools exit 3)
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(Code::kError, std::move(message)); }
  static Status ContextLost(std::string message) {
    return Status(Code::kContextLost, std::move(message));
  }
  static Status InvalidInput(std::string message) {
    return Status(Code::kInvalidInput, std::move(message));
  }
  static Status SettingsMismatch(std::string message) {
    return Status(Code::kSettingsMismatch, std::move(message));
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

/// A value, or the failed Status that says why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit, like a return value
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok() && "a Result without a value needs a failed Status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  /// Only when ok().
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace gpubench::detail

/// Returns the Status of `expression` from the enclosing function when it failed.
#define GPUBENCH_RETURN_IF_ERROR(expression)                                                \
  do {                                                                                      \
    if (::gpubench::detail::Status gpubench_status_ = (expression); !gpubench_status_.ok()) \
      return gpubench_status_;                                                              \
  } while (false)
