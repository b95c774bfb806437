// Two small helpers the library and the tools both need: a prefix test and a whole file read.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace gpubench::detail {

inline bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

/// The whole file at `path` into *text; false when it cannot be opened or read (a folder opens,
/// and reads as nothing).
inline bool ReadWholeFile(const std::string& path, std::string* text) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return false;
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::ostringstream buffer;
  buffer << file.rdbuf();
  *text = buffer.str();
  return static_cast<bool>(file) || file.eof();
}

}  // namespace gpubench::detail
