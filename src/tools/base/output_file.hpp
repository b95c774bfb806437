// Where the tools write what they make (--output, -o, and standard output): never over a file
// they read, a regular file only once it is whole, anything else (a FIFO, /dev/stdout) as it is,
// and every failure named with the system's reason.
#pragma once

#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"

namespace gpubench::tools {

/// InvalidInput when `output` is the same file as one of `inputs` or as a file inside one of
/// `input_folders` (--history), through any path, symbolic link or hard link: writing it would
/// destroy a file the tool reads. `what` names the output in the message ("--output").
detail::Status CheckOutputIsNoInput(const std::string& output, std::string_view what,
                                    const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& input_folders = {});

/// A file a tool writes. A regular file (or a new one) is written under a temporary name in its
/// folder (PATH.partial) and renamed over PATH by Commit, so that a failed write leaves no half
/// file where a whole one is expected; through a symbolic link, the file it names is replaced.
/// Anything else at the path (a FIFO, /dev/stdout, a terminal) is written as it is.
class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Removes the temporary file of a write that was not committed.
  ~OutputFile();

  /// The error says which file and why ("Permission denied", "No such file or directory").
  detail::Status Open(const std::string& path);
  /// Standard output instead of a file (stdio's stream, which std::cout shares).
  void OpenStandardOutput();
  void Write(std::string_view text);
  /// Closes the file and puts it in place; the error says why the text is not all there.
  detail::Status Commit();

 private:
  void Discard();

  std::string path_;       ///< as given, for messages
  std::string target_;     ///< where the file ends up (a link's target)
  std::string temporary_;  ///< empty where the path is written as it is
  std::FILE* file_ = nullptr;
  bool owned_ = false;  ///< file_ is closed by Commit (not standard output)
  int error_ = 0;       ///< errno of the first failed write
};

/// `text` into `path`, as OutputFile writes it.
detail::Status WriteOutputFile(const std::string& path, std::string_view text);
/// `text` on standard output. The error says why it is not all there (a full disk, a closed
/// pipe): a step whose output is lost must not pass.
detail::Status WriteStandardOutput(std::string_view text);
/// Flushes `out`, a tool's report stream (std::cout, or a test's): the error says why what went
/// there is not all there.
detail::Status FlushReportStream(std::ostream& out);

}  // namespace gpubench::tools
