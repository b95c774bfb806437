#include "tools/base/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace gpubench::tools {

namespace fs = std::filesystem;
using detail::Status;

namespace {

std::string Reason(int error) { return error != 0 ? std::strerror(error) : "a write to it failed"; }

bool SameFile(const fs::path& a, const fs::path& b) {
  std::error_code error;
  return fs::equivalent(a, b, error);  // false (with an error) where either does not exist
}

Status Refused(const std::string& output, std::string_view what, const std::string& input) {
  return Status::InvalidInput(std::string(what) + " " + output + " is the input file " + input +
                              ": writing it would destroy that file; choose another output path");
}

}  // namespace

Status CheckOutputIsNoInput(const std::string& output, std::string_view what,
                            const std::vector<std::string>& inputs,
                            const std::vector<std::string>& input_folders) {
  std::error_code error;
  if (output.empty() || output == "-" || !fs::exists(output, error)) return Status::Ok();
  for (const std::string& input : inputs) {
    if (SameFile(output, input)) return Refused(output, what, input);
  }
  for (const std::string& folder : input_folders) {
    for (fs::directory_iterator entry(folder, error), end; !error && entry != end;
         entry.increment(error)) {
      if (SameFile(output, entry->path())) {
        return Refused(output, what, entry->path().string());
      }
    }
  }
  return Status::Ok();
}

OutputFile::~OutputFile() { Discard(); }

void OutputFile::Discard() {
  if (file_ != nullptr && owned_) std::fclose(file_);
  file_ = nullptr;
  owned_ = false;
  if (!temporary_.empty()) std::remove(temporary_.c_str());
  temporary_.clear();
}

Status OutputFile::Open(const std::string& path) {
  Discard();
  path_ = path;
  target_ = path;
  error_ = 0;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  const bool written_in_place = fs::exists(status) && !fs::is_regular_file(status);
  if (!written_in_place) {
    // Through a link the file it names is replaced, not the link.
    if (fs::is_symlink(fs::symlink_status(path, error)) && fs::exists(status)) {
      target_ = fs::canonical(path, error).string();
      if (error) target_ = path;
    }
    temporary_ = target_ + ".partial";
  }
  errno = 0;
  file_ = std::fopen(written_in_place ? path.c_str() : temporary_.c_str(), "wb");
  if (file_ == nullptr) {
    const int reason = errno;
    temporary_.clear();  // nothing was created
    return Status::InvalidInput("cannot write " + path + ": " + Reason(reason));
  }
  owned_ = true;
  return Status::Ok();
}

void OutputFile::OpenStandardOutput() {
  Discard();
  path_ = "to standard output";
  target_.clear();
  error_ = 0;
  std::cout.flush();  // what std::cout holds comes first
  file_ = stdout;
}

void OutputFile::Write(std::string_view text) {
  if (file_ == nullptr || error_ != 0 || text.empty()) return;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) error_ = errno ? errno : EIO;
}

Status OutputFile::Commit() {
  if (file_ == nullptr) return Status::InvalidInput("cannot write " + path_ + ": not opened");
  errno = 0;
  if (std::fflush(file_) != 0 && error_ == 0) error_ = errno ? errno : EIO;
  if (std::ferror(file_) && error_ == 0) error_ = EIO;
  errno = 0;
  if (owned_ && std::fclose(file_) != 0 && error_ == 0) error_ = errno ? errno : EIO;
  file_ = nullptr;
  owned_ = false;
  if (error_ != 0) {
    Discard();
    return Status::InvalidInput("cannot write " + path_ + ": " + Reason(error_));
  }
  if (temporary_.empty()) return Status::Ok();
  errno = 0;
  if (std::rename(temporary_.c_str(), target_.c_str()) != 0) {
    const int reason = errno;
    Discard();
    return Status::InvalidInput("cannot write " + path_ + ": " + Reason(reason));
  }
  temporary_.clear();
  return Status::Ok();
}

Status WriteOutputFile(const std::string& path, std::string_view text) {
  OutputFile file;
  GPUBENCH_RETURN_IF_ERROR(file.Open(path));
  file.Write(text);
  return file.Commit();
}

Status WriteStandardOutput(std::string_view text) {
  OutputFile out;
  out.OpenStandardOutput();
  out.Write(text);
  return out.Commit();
}

Status FlushReportStream(std::ostream& out) {
  errno = 0;
  out.flush();
  int reason = errno;
  bool failed = !out;
  if (&out == &std::cout) {  // std::cout writes through stdio's stdout, which may hold the error
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      failed = true;
      if (reason == 0) reason = errno;
    }
  }
  if (!failed) return Status::Ok();
  return Status::InvalidInput("cannot write to standard output: " + Reason(reason));
}

}  // namespace gpubench::tools
