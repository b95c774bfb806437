// Status values passed between gpubench's layers. CUDA and CUPTI codes become a Status in one
// place each (cuda_status.cpp, cupti_profiler.cpp); the loop turns a failed Status into
// State::SkipWithError, so no exception reaches GB's runner.
#pragma once

#include <string>
#include <utility>

namespace gpubench::detail {

class Status {
 public:
  enum class Code {
    kOk,
    kError,        // this run failed; later runs may succeed
    kContextLost,  // a sticky CUDA error: the context is unusable for the rest of the process
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(Code::kError, std::move(message)); }
  static Status ContextLost(std::string message) {
    return Status(Code::kContextLost, std::move(message));
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

}  // namespace gpubench::detail
