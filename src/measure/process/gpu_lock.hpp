// --gpubench_exclusive=wait between gpubench jobs: one advisory lock file per GPU, taken before
// the process creates its CUDA context. Waiting through NVML alone cannot work between two such
// jobs: each one's context is "another process" to the other, so both waited until both timed
// out. A job that waits for the lock has no context yet, so the one that holds it sees nobody.
#pragma once

#include <ostream>
#include <string>

#include "common/file_calls.hpp"
#include "common/status.hpp"

namespace gpubench::detail {

/// The per-user folder of the lock files when --gpubench_lock_dir is not given:
/// $XDG_RUNTIME_DIR, else $TMPDIR, else /tmp, then /gpubench-<uid> (mode 0700).
std::string DefaultGpuLockDirectory();

/// The lock file of the GPU at `pci_bus_id` in `directory`: <directory>/gpubench-gpu-<bus id>.lock.
std::string GpuLockPath(const std::string& directory, const std::string& pci_bus_id);

/// Makes `directory` ready for lock files: `own` (the per-user default) creates it with mode
/// 0700 and requires it to be this user's alone (owned by the effective uid, the one the lock
/// file's owner is checked against); a folder given with --gpubench_lock_dir (one that users
/// share, such as root's /run/lock) must only be a folder, whoever owns it. Returns why it cannot
/// be used, or "".
std::string PrepareGpuLockDirectory(const std::string& directory, bool own);
std::string PrepareGpuLockDirectory(FileCalls& calls, const std::string& directory, bool own);

/// Opens the lock file at `path` read-only (GpuLock::Acquire's first step): an existing file
/// without O_CREAT (with fs.protected_regular an O_CREAT open of another user's file in a sticky
/// folder such as /run/lock fails with EACCES), a missing one with O_CREAT|O_EXCL; never through
/// a link; only a regular file; in the per-user folder (`shared` false) only this user's. A file
/// it creates in a shared folder is made readable to all (0644, whatever the umask), so that the
/// other users' jobs can open it. The descriptor, or why there is none.
Result<int> OpenGpuLockFile(FileCalls& calls, const std::string& path, bool shared);

/// One GPU's lock, held until Release or the end of the process (the kernel drops it then, also
/// for a killed process, so a crashed job never blocks the next one). The file is opened
/// read-only (OpenGpuLockFile), never through a symbolic link, and never written or truncated: a
/// file another user planted at the path is left as it was (flock needs no more than reading).
class GpuLock {
 public:
  GpuLock() = default;
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;
  ~GpuLock() { Release(); }

  /// Takes the lock at `path`, waiting at most `timeout_seconds`; while it waits it prints who
  /// holds it to `messages` (the holder's pid from /proc/locks), at once and every 10 s. Returns
  /// a note for the context block ("waited 12 s for gpubench job pid 4242"), "" when nobody held
  /// it, or the reason it went on without the lock (it timed out; the path is a link, a folder,
  /// a FIFO or cannot be opened).
  /// `shared`: the folder is one that users share (--gpubench_lock_dir), so another user's lock
  /// file is locked as it is; in the per-user folder a file of another owner can only have been
  /// planted, and is refused.
  std::string Acquire(const std::string& path, double timeout_seconds, std::ostream& messages,
                      bool shared = false);
  bool held() const { return held_; }
  void Release();

 private:
  int fd_ = -1;
  bool held_ = false;
};

}  // namespace gpubench::detail
