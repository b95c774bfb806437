#include "measure/publish/profile_log.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>

namespace gpubench::detail {

Status ProfileLog::Open(const std::string& path) {
  Close();
  if (path.empty()) return Status::Ok();
  stream_.clear();
  stream_.open(path, std::ios::app);
  if (!stream_) {
    return Status::InvalidInput("cannot open --gpubench_profile_out file '" + path +
                                "' for appending: " + std::strerror(errno) +
                                "; give a writable file path");
  }
  return Status::Ok();
}

void ProfileLog::Close() {
  if (stream_.is_open()) stream_.close();
}

void ProfileLog::Append(const std::string& benchmark, int64_t iterations, int passes,
                        double seconds, const std::vector<std::map<std::string, double>>& ranges,
                        const std::string& error, const std::string& note) {
  if (!stream_.is_open()) return;
  nlohmann::json record = {{"benchmark", benchmark},
                           {"iterations", iterations},
                           {"passes", passes},
                           {"seconds", seconds}};
  record["ranges"] = nlohmann::json::array();
  for (const auto& range : ranges) record["ranges"].push_back(range);
  if (!error.empty()) record["error"] = error;
  if (!note.empty()) record["note"] = note;
  stream_ << record.dump() << '\n';
  stream_.flush();
}

}  // namespace gpubench::detail
