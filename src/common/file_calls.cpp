#include "common/file_calls.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpubench::detail {
namespace {

// Creating with O_EXCL and opening without O_CREAT alternate while another process removes and
// creates the file between them; a few rounds tell a race from someone who keeps doing it.
constexpr int kOpenRounds = 3;

class KernelFileCalls : public FileCalls {
 public:
  int Open(const std::string& path, int flags, mode_t mode) override {
    return Returned(::open(path.c_str(), flags, mode));
  }
  int Fstat(int fd, struct stat* info) override { return Returned(::fstat(fd, info)); }
  int Lstat(const std::string& path, struct stat* info) override {
    return Returned(::lstat(path.c_str(), info));
  }
  int Mkdir(const std::string& path, mode_t mode) override {
    return Returned(::mkdir(path.c_str(), mode));
  }
  int Fchmod(int fd, mode_t mode) override { return Returned(::fchmod(fd, mode)); }
  int Ftruncate(int fd, off_t length) override { return Returned(::ftruncate(fd, length)); }
  int Close(int fd) override { return Returned(::close(fd)); }
  uid_t EffectiveUid() override { return ::geteuid(); }

 private:
  static int Returned(int result) { return result < 0 ? -errno : result; }
};

std::string WithRemedy(const std::string& problem, const std::string& remedy) {
  return remedy.empty() ? problem : problem + "; " + remedy;
}

// What sits at the path, for a refusal.
std::string KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  return "a special file (a device or a socket)";
}

// The checks of a descriptor just opened; "" when it may be used.
std::string RefusalOf(FileCalls& calls, int fd, const std::string& path, const OpenRule& rule) {
  struct stat info {};
  if (const int error = calls.Fstat(fd, &info); error < 0) {
    return "cannot stat " + path + " (" + std::strerror(-error) + ")";
  }
  if (!S_ISREG(info.st_mode)) {
    return WithRemedy(path + " is " + KindOf(info.st_mode) + ", not " + rule.what +
                          " (someone else may have put it there)",
                      rule.remedy);
  }
  const uid_t me = calls.EffectiveUid();
  if (!rule.any_owner && info.st_uid != me) {
    return WithRemedy(path + " belongs to uid " + std::to_string(info.st_uid) +
                          ", not to this user (uid " + std::to_string(me) +
                          "): someone else put it there",
                      rule.remedy);
  }
  return "";
}

}  // namespace

FileCalls& SystemFileCalls() {
  static KernelFileCalls calls;
  return calls;
}

Result<OpenedFile> OpenRegularFile(FileCalls& calls, const std::string& path,
                                   const OpenRule& rule) {
  const int flags = rule.access | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  for (int round = 0; round < kOpenRounds; ++round) {
    OpenedFile opened;
    // Without O_CREAT: with fs.protected_regular an O_CREAT open of another user's file in a
    // sticky folder fails even though the file exists.
    opened.fd = calls.Open(path, flags, 0);
    if (opened.fd == -ENOENT && rule.create) {
      // O_EXCL: only a file this call makes, never one through a link.
      opened.fd = calls.Open(path, flags | O_CREAT | O_EXCL, rule.mode);
      if (opened.fd == -EEXIST) continue;  // another process made it meanwhile: open that one
      if (opened.fd < 0) {
        return Status::Error("cannot open " + path + ": it does not exist and cannot be created (" +
                             std::strerror(-opened.fd) + ")");
      }
      opened.created = true;
    }
    if (opened.fd == -ELOOP) {
      return Status::Error(WithRemedy(path + " is a symbolic link, which gpubench does not follow "
                                             "(someone else may have put it there)",
                                      rule.remedy));
    }
    if (opened.fd < 0) {
      return Status::Error("cannot open " + path + " (" + std::strerror(-opened.fd) + ")");
    }
    if (const std::string refusal = RefusalOf(calls, opened.fd, path, rule); !refusal.empty()) {
      calls.Close(opened.fd);
      return Status::Error(refusal);
    }
    if (rule.truncate) {
      if (const int error = calls.Ftruncate(opened.fd, 0); error < 0) {
        calls.Close(opened.fd);
        return Status::Error("cannot empty " + path + " (" + std::strerror(-error) + ")");
      }
    }
    return opened;
  }
  return Status::Error(WithRemedy(path + " was removed and created again by another process " +
                                      std::to_string(kOpenRounds) +
                                      " times while gpubench opened it",
                                  rule.remedy));
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    Reset();
    fd_ = other.Release();
  }
  return *this;
}

void UniqueFd::Reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace gpubench::detail
