#include "measure/publish/sample_log.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>

#include "measure/sampling/stopping_rule.hpp"

namespace gpubench::detail {

Status SampleLog::Open(const std::string& path) {
  Close();
  if (path.empty()) return Status::Ok();
  stream_.clear();
  stream_.open(path, std::ios::app);
  if (!stream_) {
    return Status::InvalidInput("cannot open --gpubench_samples_out file '" + path +
                                "' for appending: " + std::strerror(errno) +
                                "; give a writable file path");
  }
  return Status::Ok();
}

void SampleLog::Close() {
  if (stream_.is_open()) stream_.close();
}

void SampleLog::Append(const std::string& benchmark, const std::string& stop_reason,
                       const SampleSeries& samples) {
  if (!stream_.is_open() || samples.count() == 0) return;
  const nlohmann::json record = {{"benchmark", benchmark},
                                 {"stop_reason", stop_reason},
                                 {"gpu_seconds", samples.values()},
                                 {"host_seconds", samples.host_seconds()}};
  stream_ << record.dump() << '\n';
  stream_.flush();
}

}  // namespace gpubench::detail
