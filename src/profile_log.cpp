#include "profile_log.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

namespace gpubench::detail {
namespace {
std::ofstream& LogStream() {
  static std::ofstream stream;
  return stream;
}
}  // namespace

std::string OpenProfileLog(const std::string& path) {
  if (LogStream().is_open()) LogStream().close();
  LogStream().clear();
  if (path.empty()) return "";
  LogStream().open(path, std::ios::app);
  if (!LogStream()) {
    return "cannot open --gpubench_profile_out file '" + path +
           "' for appending: " + std::strerror(errno) + "; give a writable file path";
  }
  return "";
}

void AppendProfileRecord(const std::string& benchmark, int64_t iterations, int passes,
                         double seconds, const std::vector<std::map<std::string, double>>& ranges,
                         const std::string& error) {
  std::ofstream& out = LogStream();
  if (!out.is_open()) return;
  nlohmann::json record = {{"benchmark", benchmark},
                           {"iterations", iterations},
                           {"passes", passes},
                           {"seconds", seconds}};
  record["ranges"] = nlohmann::json::array();
  for (const auto& range : ranges) record["ranges"].push_back(range);
  if (!error.empty()) record["error"] = error;
  out << record.dump() << '\n';
  out.flush();
}

}  // namespace gpubench::detail
