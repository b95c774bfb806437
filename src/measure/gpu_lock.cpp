#include "measure/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace gpubench::detail {
namespace {

constexpr double kMessageEverySeconds = 10;

// The holder writes its PID into the file, so that a waiting job can say whom it waits for.
std::string HolderOf(int fd) {
  char text[32] = {};
  const ssize_t length = ::pread(fd, text, sizeof(text) - 1, 0);
  if (length <= 0) return "another gpubench job";
  std::string pid(text, static_cast<size_t>(length));
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return "gpubench job pid " + pid;
}

void WriteOwnPid(int fd) {
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    (void)!::pwrite(fd, pid.data(), pid.size(), 0);  // only for the waiters' messages
  }
}

}  // namespace

std::string GpuLockPath(const std::string& pci_bus_id) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  std::string name = pci_bus_id.empty() ? "unknown" : pci_bus_id;
  for (char& c : name) {
    if (c == ':' || c == '/' || c == ' ') c = '_';
  }
  return dir + "/gpubench-gpu-" + name + ".lock";
}

std::string GpuLock::Acquire(const std::string& path, double timeout_seconds,
                             std::ostream& messages) {
  Release();
  bool writable = true;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0 && errno == EACCES) {  // another user's file: a shared lock file still locks
    writable = false;
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd_ < 0) {
    return "went on without the lock between gpubench jobs: cannot open " + path + " (" +
           std::strerror(errno) + ")";
  }
  if (writable) (void)::fchmod(fd_, 0666);  // other users' jobs open it too
  const auto start = std::chrono::steady_clock::now();
  double waited = 0, last_message = -kMessageEverySeconds;
  std::string holder;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const std::string reason = std::strerror(errno);
      Release();
      return "went on without the lock between gpubench jobs: flock(" + path + ") failed (" +
             reason + ")";
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
  if (writable) WriteOwnPid(fd_);
  if (holder.empty()) return "";
  return "waited " + std::to_string(static_cast<int>(waited + 0.5)) + " s for " + holder;
}

void GpuLock::Release() {
  if (fd_ >= 0) ::close(fd_);  // closing the only descriptor drops the lock
  fd_ = -1;
  held_ = false;
}

}  // namespace gpubench::detail
