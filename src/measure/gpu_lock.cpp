#include "measure/gpu_lock.hpp"

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
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  const char* tmp = std::getenv("TMPDIR");
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
  if (own && ::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
    return "cannot create " + directory + " (" + std::strerror(errno) + ")";
  }
  struct stat info {};
  if (::lstat(directory.c_str(), &info) != 0) {
    return "cannot use " + directory + " (" + std::strerror(errno) + ")";
  }
  if (!S_ISDIR(info.st_mode)) {
    return directory + " is not a folder" +
           (S_ISLNK(info.st_mode) ? std::string(" but a symbolic link") : std::string()) +
           " (someone else may have put it there); set --gpubench_lock_dir to a folder of yours";
  }
  // The per-user folder must be this user's alone, or another user could plant files in it.
  if (own && (info.st_uid != ::getuid() || (info.st_mode & 077) != 0)) {
    return directory + " belongs to uid " + std::to_string(info.st_uid) + " with mode " +
           [&] {
             char mode[8];
             std::snprintf(mode, sizeof(mode), "%03o", info.st_mode & 0777);
             return std::string(mode);
           }() +
           ", not to this user (uid " + std::to_string(::getuid()) +
           ") alone; remove it, or set "
           "--gpubench_lock_dir";
  }
  return "";
}

std::string GpuLock::Acquire(const std::string& path, double timeout_seconds,
                             std::ostream& messages, bool shared) {
  Release();
  // Read-only is enough for flock, and nothing is ever written into the file. No link is
  // followed (O_NOFOLLOW), and O_NONBLOCK keeps a FIFO planted at the path from blocking the open.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int error = errno;
    if (error == ELOOP) {
      return WithoutTheLock(path +
                            " is a symbolic link, which gpubench does not follow (someone else "
                            "may have put it there); remove it, or set --gpubench_lock_dir");
    }
    return WithoutTheLock("cannot open " + path + " (" + std::strerror(error) + ")");
  }
  struct stat info {};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    const std::string what = S_ISDIR(info.st_mode)    ? "a folder"
                             : S_ISFIFO(info.st_mode) ? "a FIFO"
                                                      : "not a regular file";
    Release();
    return WithoutTheLock(path + " is " + what +
                          ", not a lock file (someone else may have put it there); remove it, or "
                          "set --gpubench_lock_dir");
  }
  if (!shared && info.st_uid != ::geteuid()) {
    const std::string owner = std::to_string(info.st_uid);
    Release();
    return WithoutTheLock(path + " belongs to uid " + owner + ", not to this user (uid " +
                          std::to_string(::geteuid()) +
                          "), in a folder of this user's own: someone else put it there; remove "
                          "it, or give a folder that users share with --gpubench_lock_dir");
  }
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
