#include "measure/process/gpu_lock.hpp"
#include "common/environment.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace gpubench::detail {
namespace {

constexpr double kMessageEverySeconds = 10;

std::string WithoutTheLock(const std::string& why) {
  return "went on without the lock between gpubench jobs: " + why;
}

// Who holds the flock on the file: the kernel lists every lock in /proc/locks with the holder's
// pid and the file's device and inode, so nothing needs to be written into the file for it.
std::string HolderOf(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return "another gpubench job";
  char inode[64];
  std::snprintf(inode, sizeof(inode), "%02x:%02x:%llu", major(info.st_dev), minor(info.st_dev),
                static_cast<unsigned long long>(info.st_ino));
  std::ifstream locks("/proc/locks");
  for (std::string line; std::getline(locks, line);) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, pid, file;
    if (!(fields >> number >> kind >> mode >> access >> pid >> file)) continue;
    if (kind == "FLOCK" && file == inode) {
      return "gpubench job pid " + pid;
    }
  }
  return "another gpubench job";
}

}  // namespace

std::string DefaultGpuLockDirectory() {
  const char* runtime = RuntimeDirectoryVariable();
  const char* tmp = TemporaryDirectoryVariable();
  std::string base = runtime != nullptr && *runtime != '\0' ? runtime
                     : tmp != nullptr && *tmp != '\0'       ? tmp
                                                            : "/tmp";
  return base + "/gpubench-" + std::to_string(::getuid());
}

std::string GpuLockPath(const std::string& directory, const std::string& pci_bus_id) {
  std::string name = pci_bus_id.empty() ? "unknown" : pci_bus_id;
  for (char& c : name) {
    if (c == ':' || c == '/' || c == ' ') c = '_';
  }
  return directory + "/gpubench-gpu-" + name + ".lock";
}

std::string PrepareGpuLockDirectory(const std::string& directory, bool own) {
  return PrepareGpuLockDirectory(SystemFileCalls(), directory, own);
}

std::string PrepareGpuLockDirectory(FileCalls& calls, const std::string& directory, bool own) {
  if (own) {
    if (const int error = calls.Mkdir(directory, 0700); error < 0 && error != -EEXIST) {
      return "cannot create " + directory + " (" + std::strerror(-error) + ")";
    }
  }
  struct stat info {};
  if (const int error = calls.Lstat(directory, &info); error < 0) {
    return "cannot use " + directory + " (" + std::strerror(-error) + ")";
  }
  if (!S_ISDIR(info.st_mode)) {
    return directory + " is not a folder" +
           (S_ISLNK(info.st_mode) ? std::string(" but a symbolic link") : std::string()) +
           " (someone else may have put it there); set --gpubench_lock_dir to a folder of yours";
  }
  // The per-user folder must be this user's alone, or another user could plant files in it. The
  // same uid as the lock file's check: the effective one, which owns what this process creates.
  const uid_t me = calls.EffectiveUid();
  if (own && (info.st_uid != me || (info.st_mode & 077) != 0)) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%03o", static_cast<unsigned>(info.st_mode & 0777));
    return directory + " belongs to uid " + std::to_string(info.st_uid) + " with mode " + mode +
           ", not to this user (uid " + std::to_string(me) +
           ") alone; remove it, or set --gpubench_lock_dir";
  }
  return "";
}

Result<int> OpenGpuLockFile(FileCalls& calls, const std::string& path, bool shared) {
  OpenRule rule;
  rule.access = O_RDONLY;  // enough for flock; nothing is ever written into the file
  rule.create = true;
  rule.mode = 0644;
  // In a shared folder another user's lock file is the shared lock; in the per-user folder only
  // someone else can have put it there.
  rule.any_owner = shared;
  rule.what = "a lock file";
  rule.remedy = shared ? "remove it, or set --gpubench_lock_dir"
                       : "remove it, or give a folder that users share with --gpubench_lock_dir";
  Result<OpenedFile> opened = OpenRegularFile(calls, path, rule);
  if (!opened.ok()) return opened.status();
  if (shared && opened.value().created) {
    // The umask (077, 027) would keep the other users from opening the lock read-only, and their
    // jobs would go on without it. The file is this process's own (O_EXCL) and empty. If this
    // fails the lock still holds for this job; the others' jobs say that they cannot open it.
    (void)calls.Fchmod(opened.value().fd, 0644);
  }
  return opened.value().fd;
}

std::string GpuLock::Acquire(const std::string& path, double timeout_seconds,
                             std::ostream& messages, bool shared) {
  Release();
  Result<int> opened = OpenGpuLockFile(SystemFileCalls(), path, shared);
  if (!opened.ok()) return WithoutTheLock(opened.status().message());
  fd_ = opened.value();
  const auto start = std::chrono::steady_clock::now();
  double waited = 0, last_message = -kMessageEverySeconds;
  std::string holder;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const std::string reason = std::strerror(errno);
      Release();
      return WithoutTheLock("flock(" + path + ") failed (" + reason + ")");
    }
    holder = HolderOf(fd_);
    if (waited >= timeout_seconds) {
      Release();
      return "went on without the lock between gpubench jobs after waiting " +
             std::to_string(static_cast<int>(waited)) + " s for " + holder;
    }
    if (waited - last_message >= kMessageEverySeconds) {
      messages << "gpubench: waiting for the GPU, which " << holder
               << " benchmarks (--gpubench_exclusive=wait; " << static_cast<int>(waited) << " s of "
               << static_cast<int>(timeout_seconds) << " s; lock file " << path << ")\n";
      last_message = waited;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  held_ = true;
  if (holder.empty()) return "";
  return "waited " + std::to_string(static_cast<int>(waited + 0.5)) + " s for " + holder;
}

void GpuLock::Release() {
  if (fd_ >= 0) ::close(fd_);  // closing the only descriptor drops the lock
  fd_ = -1;
  held_ = false;
}

}  // namespace gpubench::detail
