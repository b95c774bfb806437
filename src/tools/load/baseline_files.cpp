#include "tools/load/baseline_files.hpp"

#include <algorithm>
#include <filesystem>

namespace gpubench::tools {

detail::Result<std::vector<std::string>> HistoryFiles(const std::string& directory,
                                                      const std::string& contender_path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    return detail::Status::InvalidInput("--history " + directory +
                                        ": not a folder; expected a folder of gpubench JSON "
                                        "files, one per baseline run");
  }
  std::vector<std::string> files;
  bool holds_contender = false;
  fs::directory_iterator it(directory, error);
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    const fs::path& path = it->path();
    std::error_code ignored;  // a file that vanished or a contender not written yet: no match
    if (path.extension() != ".json" || !it->is_regular_file(ignored)) continue;
    if (fs::equivalent(path, contender_path, ignored)) {  // the contender written there
      holds_contender = true;
      continue;
    }
    files.push_back(path.string());
  }
  if (error) {
    return detail::Status::InvalidInput("--history " + directory +
                                        ": cannot be read: " + error.message());
  }
  if (files.empty()) {
    return detail::Status::InvalidInput("--history " + directory +
                                        (holds_contender
                                             ? ": holds no *.json file besides the contender "
                                             : ": holds no *.json file; ") +
                                        (holds_contender ? contender_path + "; " : std::string()) +
                                        "expected the --benchmark_out files of earlier runs");
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> DistinctBaselines(const std::vector<std::string>& paths,
                                           const std::string& contender_path,
                                           std::vector<std::string>& warnings) {
  namespace fs = std::filesystem;
  std::vector<std::string> distinct;
  for (const std::string& path : paths) {
    std::error_code ignored;  // a file that cannot be opened is reported when it is loaded
    if (fs::equivalent(path, contender_path, ignored)) {
      warnings.push_back("baseline " + path + " is the contender itself: left out");
      continue;
    }
    const bool seen = std::any_of(distinct.begin(), distinct.end(), [&](const std::string& kept) {
      std::error_code ignore;
      return kept == path || fs::equivalent(kept, path, ignore);
    });
    if (seen) {
      warnings.push_back("baseline " + path + " was given twice: counted once");
      continue;
    }
    distinct.push_back(path);
  }
  if (distinct.empty() && !paths.empty()) {
    // Only the contender was given as its baseline (once or more): compared with itself, every
    // verdict "same", which the log says rather than passing as if two runs agreed.
    distinct.push_back(contender_path);
    warnings = {"the baseline is the contender itself (" + contender_path +
                "): the run is compared with itself, so every verdict is \"same\""};
  }
  return distinct;
}

}  // namespace gpubench::tools
