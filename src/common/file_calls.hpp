// Files gpubench opens in folders that other users can write (the shared GPU lock in /run/lock,
// its temporary files in /tmp): never through a symbolic link, only a regular file, and an
// existing file without O_CREAT. With fs.protected_regular >= 1 (systemd's default on Debian and
// Ubuntu) an O_CREAT open of another user's file in a sticky world-writable folder fails with
// EACCES even when the file exists and may be read, so a missing file is created with
// O_CREAT|O_EXCL and an existing one is opened without O_CREAT. The few system calls this takes
// are behind FileCalls, so the tests can play the kernel's part (another user, that sysctl, a
// file created between two calls) that CI cannot set up.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>

#include "common/status.hpp"

namespace gpubench::detail {

/// The system calls of the open sequences; each returns what the call returns, or -errno.
class FileCalls {
 public:
  virtual ~FileCalls() = default;
  virtual int Open(const std::string& path, int flags, mode_t mode) = 0;  ///< a descriptor
  virtual int Fstat(int fd, struct stat* info) = 0;
  virtual int Lstat(const std::string& path, struct stat* info) = 0;
  virtual int Mkdir(const std::string& path, mode_t mode) = 0;
  virtual int Fchmod(int fd, mode_t mode) = 0;
  virtual int Ftruncate(int fd, off_t length) = 0;
  virtual int Close(int fd) = 0;
  /// The uid that owns the files and folders this process creates, and that the kernel checks.
  virtual uid_t EffectiveUid() = 0;
};

/// The kernel's calls.
FileCalls& SystemFileCalls();

/// How OpenRegularFile opens a path.
struct OpenRule {
  /// O_RDONLY, O_WRONLY or O_WRONLY | O_APPEND; O_NOFOLLOW, O_NONBLOCK (a FIFO at the path must
  /// not block the open) and O_CLOEXEC are always added.
  int access = 0;
  bool create = false;     ///< a missing file is created, with O_CREAT|O_EXCL and `mode`
  mode_t mode = 0600;      ///< of a created file (less the umask)
  bool any_owner = false;  ///< else a file of another uid than EffectiveUid() is refused
  bool truncate = false;   ///< emptied after the checks (O_TRUNC would empty a refused file too)
  std::string what = "a regular file";  ///< what it must be, for a refusal ("a lock file")
  /// Appended to a refusal of what sits at the path (a link, a folder, another user's file):
  /// what the user can do about it ("remove it, or set --gpubench_lock_dir").
  std::string remedy;
};

/// An open regular file; the caller closes `fd`.
struct OpenedFile {
  int fd = -1;
  bool created = false;  ///< this call created it (O_EXCL), so it is this process's own
};

/// Opens the regular file at `path` by `rule`: an existing file without O_CREAT; a missing one,
/// when `rule.create`, with O_CREAT|O_EXCL, and when another process creates it between the two
/// calls, that one without O_CREAT (a few rounds, then it gives up). A symbolic link, a folder, a
/// FIFO, and unless `rule.any_owner` another user's file, are refused and left as they are.
Result<OpenedFile> OpenRegularFile(FileCalls& calls, const std::string& path, const OpenRule& rule);

/// Owns a descriptor of the system's: closes it when it goes out of scope.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.Release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  int Release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void Reset();

 private:
  int fd_ = -1;
};

}  // namespace gpubench::detail
