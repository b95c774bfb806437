// Which files make a baseline history: the files of a --history folder, and a list of baseline
// paths without repeats. Shared by gpubench-compare and gpubench-report.
#pragma once

#include <string>
#include <vector>

#include "common/status.hpp"

namespace gpubench::tools {

/// The baseline files of a history folder: its *.json files, sorted by name, without the file
/// at `contender_path` should it lie there. Fails (kInvalidInput) when `directory` is not a
/// readable folder or holds no JSON file.
detail::Result<std::vector<std::string>> HistoryFiles(const std::string& directory,
                                                      const std::string& contender_path);

/// `paths` without repeats (the same file given twice, by any path) and without the contender:
/// each left out with a warning in `warnings`. Files that cannot be opened are kept (their load
/// reports them). Where every path is the contender, the contender alone, with a warning that
/// the run is compared with itself.
std::vector<std::string> DistinctBaselines(const std::vector<std::string>& paths,
                                           const std::string& contender_path,
                                           std::vector<std::string>& warnings);

}  // namespace gpubench::tools
