// Reads a table of docs/user_guide.md, so tests can hold the guide to the code's own tables.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpubench::testing {

/// The cells (trimmed of spaces and backquotes) of each body row of the user guide's table whose
/// header line starts with `header`; empty when there is no such table.
inline std::vector<std::vector<std::string>> GuideTable(const std::string& header) {
  std::ifstream file(std::string(GPUBENCH_SOURCE_DIR) + "/docs/user_guide.md");
  std::vector<std::vector<std::string>> rows;
  bool in_table = false;
  for (std::string line; std::getline(file, line);) {
    if (!in_table) {
      in_table = line.rfind(header, 0) == 0;
      continue;
    }
    if (line.empty() || line[0] != '|') break;
    if (line.find("---") != std::string::npos) continue;
    std::vector<std::string> cells;
    std::stringstream text(line.substr(1));
    for (std::string cell; std::getline(text, cell, '|');) {
      const auto first = cell.find_first_not_of(" `");
      const auto last = cell.find_last_not_of(" `");
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
    }
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace gpubench::testing
