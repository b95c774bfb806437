// --gpubench_exclusive=wait between gpubench jobs: the per-GPU lock file. flock() locks belong to
// an open file description, so two GpuLocks of one process exclude each other as two jobs do.
// The open sequence (common/file_calls.hpp) runs against a fake kernel too: another user, the
// fs.protected_regular sysctl and a file created between two calls cannot be set up in CI. The
// profiling child's temporary file is opened by the same sequence (tests at the end).
#include "measure/process/gpu_lock.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/file_calls.hpp"
#include "measure/profiling/profiling_pass.hpp"

namespace gpubench::detail {
namespace {

std::string TempLockPath() {
  return ::testing::TempDir() + "gpubench-lock-test-" + std::to_string(::getpid()) + ".lock";
}

// Restores an environment variable when it goes out of scope.
class SavedVariable {
 public:
  explicit SavedVariable(const char* name) : name_(name) {
    if (const char* value = std::getenv(name)) saved_ = value;
  }
  ~SavedVariable() {
    if (saved_) {
      ::setenv(name_, saved_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

TEST(GpuLock, PathNamesTheGpuByItsBusIdInAFolderOfThisUsersOwn) {
  const SavedVariable runtime("XDG_RUNTIME_DIR"), tmp("TMPDIR");
  const std::string uid = std::to_string(::getuid());
  ::setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
  ::setenv("TMPDIR", "/var/tmp", 1);
  EXPECT_EQ(DefaultGpuLockDirectory(), "/run/user/1000/gpubench-" + uid);
  ::unsetenv("XDG_RUNTIME_DIR");
  EXPECT_EQ(DefaultGpuLockDirectory(), "/var/tmp/gpubench-" + uid);
  ::unsetenv("TMPDIR");
  EXPECT_EQ(DefaultGpuLockDirectory(), "/tmp/gpubench-" + uid);
  EXPECT_EQ(GpuLockPath("/run/lock", "00000000:9A:00.0"),
            "/run/lock/gpubench-gpu-00000000_9A_00.0.lock");
}

TEST(GpuLock, AFreeGpuIsTakenAtOnceAndSaysNothing) {
  const std::string path = TempLockPath();
  GpuLock lock;
  std::ostringstream messages;
  EXPECT_EQ(lock.Acquire(path, 1.0, messages), "");
  EXPECT_TRUE(lock.held());
  EXPECT_EQ(messages.str(), "");
  lock.Release();
  std::remove(path.c_str());
}

TEST(GpuLock, ASecondJobWaitsUntilTheFirstIsDone) {
  const std::string path = TempLockPath();
  GpuLock first, second;
  std::ostringstream ignored, messages;
  ASSERT_EQ(first.Acquire(path, 1.0, ignored), "");
  std::thread finish([&first] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    first.Release();
  });
  const auto start = std::chrono::steady_clock::now();
  const std::string note = second.Acquire(path, 30.0, messages);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  finish.join();
  EXPECT_TRUE(second.held());
  EXPECT_GE(waited, 0.35);
  const std::string me = "gpubench job pid " + std::to_string(::getpid());
  // 0.4 s of waiting rounds to "0 s", or to "1 s" on a loaded machine (ctest -j).
  EXPECT_TRUE(note == "waited 0 s for " + me || note == "waited 1 s for " + me) << note;
  EXPECT_NE(messages.str().find("gpubench: waiting for the GPU, which " + me +
                                " benchmarks (--gpubench_exclusive=wait; 0 s of 30 s"),
            std::string::npos)
      << messages.str();
  second.Release();
  std::remove(path.c_str());
}

// --gpubench_device_order=all_at_once: each device's job takes its own device's lock at once.
TEST(GpuLock, JobsOnTwoDevicesHoldTheirLocksAtTheSameTime) {
  const std::string folder = testing::TempDir();
  const std::string gpu0 = GpuLockPath(folder, "00000000:19:00.0");
  const std::string gpu1 = GpuLockPath(folder, "00000000:3B:00.0");
  ASSERT_NE(gpu0, gpu1);
  GpuLock first, second;
  std::ostringstream ignored, messages;
  ASSERT_EQ(first.Acquire(gpu0, 1.0, ignored), "");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(second.Acquire(gpu1, 30.0, messages), "");
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(first.held() && second.held());
  EXPECT_LT(waited, 5.0);  // it did not wait for the other device's job (30 s allowed)
  EXPECT_EQ(messages.str(), "");
  first.Release();
  second.Release();
  std::remove(gpu0.c_str());
  std::remove(gpu1.c_str());
}

TEST(GpuLock, AJobThatWaitsTooLongGoesOnWithoutTheLockAndSaysWhy) {
  const std::string path = TempLockPath();
  GpuLock first, second;
  std::ostringstream ignored, messages;
  ASSERT_EQ(first.Acquire(path, 1.0, ignored), "");
  const std::string note = second.Acquire(path, 0.3, messages);
  EXPECT_FALSE(second.held());
  EXPECT_EQ(note.rfind("went on without the lock between gpubench jobs after waiting 0 s for "
                       "gpubench job pid ",
                       0),
            0u)
      << note;
  first.Release();
  std::remove(path.c_str());
}

TEST(GpuLock, AnUnopenableLockFileIsReportedNotFatal) {
  GpuLock lock;
  std::ostringstream messages;
  const std::string note = lock.Acquire("/nonexistent-dir/gpubench.lock", 1.0, messages);
  EXPECT_FALSE(lock.held());
  EXPECT_NE(note.find("cannot open /nonexistent-dir/gpubench.lock"), std::string::npos) << note;
}

// ---- The open sequence against a fake kernel ----

constexpr uid_t kMe = 1000, kOther = 1001, kRoot = 0;

// The kernel's part of the open sequence for a few paths: files, folders, links and FIFOs with
// owners and modes; the permission bits (owner and others; no groups); O_NOFOLLOW, O_EXCL, the
// umask, and fs.protected_regular as fs/namei.c's may_create_in_sticky applies it.
class FakeKernel : public FileCalls {
 public:
  struct Node {
    mode_t mode = 0;  // type and permission bits
    uid_t owner = kMe;
  };
  std::map<std::string, Node> nodes;
  uid_t me = kMe;
  mode_t umask = 022;
  int protected_regular = 1;  // systemd's default on Debian and Ubuntu
  // Runs before each open, with its flags: another process acting between two calls.
  std::function<void(int flags)> before_open;

  std::vector<int> open_flags;          // every Open's flags, in order
  std::map<int, std::string> open_fds;  // descriptors handed out and not closed
  std::vector<std::pair<std::string, mode_t>> chmods;
  std::vector<std::string> truncated;

  void Folder(const std::string& path, mode_t mode, uid_t owner) {
    nodes[path] = {S_IFDIR | mode, owner};
  }
  void File(const std::string& path, mode_t mode, uid_t owner) {
    nodes[path] = {S_IFREG | mode, owner};
  }
  void Link(const std::string& path) { nodes[path] = {S_IFLNK | 0777, kOther}; }
  bool OpenedWithCreate() const {
    for (int flags : open_flags) {
      if (flags & O_CREAT) return true;
    }
    return false;
  }

  int Open(const std::string& path, int flags, mode_t mode) override {
    open_flags.push_back(flags);
    if (before_open) before_open(flags);
    const auto folder = nodes.find(Parent(path));
    if (folder == nodes.end() || !S_ISDIR(folder->second.mode)) return -ENOENT;
    const bool create = (flags & O_CREAT) != 0;
    const auto found = nodes.find(path);
    if (found == nodes.end()) {
      if (!create) return -ENOENT;
      if (!Allows(folder->second, 02)) return -EACCES;
      nodes[path] = {S_IFREG | (mode & ~umask & 07777), me};
      return Handed(path);
    }
    const Node& node = found->second;
    if (create && (flags & O_EXCL)) return -EEXIST;  // O_EXCL never follows a link either
    if (S_ISLNK(node.mode)) {
      if (flags & O_NOFOLLOW) return -ELOOP;
      ADD_FAILURE() << "followed the link at " << path;
      return -EPERM;
    }
    if (create && protected_regular >= 1 && S_ISREG(node.mode) && (folder->second.mode & S_ISVTX) &&
        (folder->second.mode & S_IWOTH) && node.owner != folder->second.owner && node.owner != me) {
      return -EACCES;
    }
    const int access = flags & O_ACCMODE;
    if ((access != O_WRONLY && !Allows(node, 04)) || (access != O_RDONLY && !Allows(node, 02))) {
      return -EACCES;
    }
    return Handed(path);
  }
  int Fstat(int fd, struct stat* info) override {
    const auto open = open_fds.find(fd);
    if (open == open_fds.end()) return -EBADF;
    return Lstat(open->second, info);
  }
  int Lstat(const std::string& path, struct stat* info) override {
    const auto found = nodes.find(path);
    if (found == nodes.end()) return -ENOENT;
    *info = {};
    info->st_mode = found->second.mode;
    info->st_uid = found->second.owner;
    return 0;
  }
  int Mkdir(const std::string& path, mode_t mode) override {
    const auto folder = nodes.find(Parent(path));
    if (folder == nodes.end()) return -ENOENT;
    if (nodes.count(path) != 0) return -EEXIST;
    if (!Allows(folder->second, 02)) return -EACCES;
    Folder(path, mode & ~umask, me);
    return 0;
  }
  int Fchmod(int fd, mode_t mode) override {
    const std::string& path = open_fds.at(fd);
    chmods.emplace_back(path, mode);
    Node& node = nodes.at(path);
    if (node.owner != me) return -EPERM;
    node.mode = (node.mode & S_IFMT) | mode;
    return 0;
  }
  int Ftruncate(int fd, off_t) override {
    truncated.push_back(open_fds.at(fd));
    return 0;
  }
  int Close(int fd) override { return open_fds.erase(fd) == 1 ? 0 : -EBADF; }
  uid_t EffectiveUid() override { return me; }

 private:
  static std::string Parent(const std::string& path) { return path.substr(0, path.rfind('/')); }
  bool Allows(const Node& node, mode_t bit) const {
    return me == kRoot || (node.mode & (node.owner == me ? bit << 6 : bit)) != 0;
  }
  int Handed(const std::string& path) {
    const int fd = next_fd_++;
    open_fds[fd] = path;
    return fd;
  }
  int next_fd_ =
      1 << 20;  // far above real descriptors: nothing of the process is closed by mistake
};

const std::string kSharedFolder = "/run/lock";
const std::string kSharedLock = "/run/lock/gpubench-gpu-00000000_9A_00.0.lock";
const std::string kOwnFolder = "/run/user/1000/gpubench-1000";
const std::string kOwnLock = kOwnFolder + "/gpubench-gpu-00000000_9A_00.0.lock";

// /run/lock as Debian and Ubuntu make it (root's, sticky, world-writable), and a per-user folder.
FakeKernel StockKernel() {
  FakeKernel kernel;
  kernel.Folder("/run", 0755, kRoot);
  kernel.Folder(kSharedFolder, 01777, kRoot);
  kernel.Folder("/run/user", 0755, kRoot);
  kernel.Folder("/run/user/1000", 0700, kMe);
  kernel.Folder(kOwnFolder, 0700, kMe);
  return kernel;
}

// The case: another user's lock in /run/lock with fs.protected_regular=1. An O_CREAT open
// of it fails there with EACCES (the fake plays that, as the first check shows), so the second
// user ran without the lock; an open without O_CREAT is allowed and takes it.
TEST(GpuLockOpen, AnotherUsersLockInAStickyFolderIsOpenedWithoutCreate) {
  FakeKernel kernel = StockKernel();
  kernel.File(kSharedLock, 0644, kOther);
  ASSERT_EQ(kernel.Open(kSharedLock, O_RDONLY | O_CREAT | O_NOFOLLOW, 0644), -EACCES);
  kernel.open_flags.clear();

  Result<int> opened = OpenGpuLockFile(kernel, kSharedLock, /*shared=*/true);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_EQ(kernel.open_fds.at(opened.value()), kSharedLock);
  EXPECT_FALSE(kernel.OpenedWithCreate());
  ASSERT_EQ(kernel.open_flags.size(), 1u);
  EXPECT_EQ(kernel.open_flags[0] & O_ACCMODE, O_RDONLY);
  EXPECT_NE(kernel.open_flags[0] & O_NOFOLLOW, 0);
  EXPECT_TRUE(kernel.chmods.empty());  // another user's file is left as it is
  EXPECT_EQ(kernel.nodes.at(kSharedLock).mode & 07777, 0644u);
}

// A missing lock is created with O_CREAT|O_EXCL, never through a link, and in a shared folder made
// readable to all whatever the umask, so that the other users' jobs can open it.
TEST(GpuLockOpen, AMissingLockIsCreatedExclusivelyAndReadableToAll) {
  FakeKernel kernel = StockKernel();
  kernel.umask = 077;
  Result<int> opened = OpenGpuLockFile(kernel, kSharedLock, /*shared=*/true);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  ASSERT_EQ(kernel.open_flags.size(), 2u);
  EXPECT_EQ(kernel.open_flags[0] & (O_CREAT | O_EXCL), 0);
  EXPECT_EQ(kernel.open_flags[1] & (O_CREAT | O_EXCL), O_CREAT | O_EXCL);
  EXPECT_NE(kernel.open_flags[1] & O_NOFOLLOW, 0);
  EXPECT_EQ(kernel.nodes.at(kSharedLock).owner, kMe);
  EXPECT_EQ(kernel.nodes.at(kSharedLock).mode & 07777, 0644u);

  // In the per-user folder nobody else opens it: the umask is left to decide.
  Result<int> own = OpenGpuLockFile(kernel, kOwnLock, /*shared=*/false);
  ASSERT_TRUE(own.ok()) << own.status().message();
  EXPECT_EQ(kernel.nodes.at(kOwnLock).mode & 07777, 0600u);
}

// Another job creates the lock between the open without O_CREAT and the O_EXCL create: the
// create fails with EEXIST, and that job's file is opened without O_CREAT and not chmod-ed.
TEST(GpuLockOpen, ALockCreatedByAnotherJobMeanwhileIsOpenedAsItIs) {
  FakeKernel kernel = StockKernel();
  kernel.before_open = [&kernel](int flags) {
    if ((flags & O_EXCL) && kernel.nodes.count(kSharedLock) == 0) {
      kernel.File(kSharedLock, 0644, kOther);
    }
  };
  Result<int> opened = OpenGpuLockFile(kernel, kSharedLock, /*shared=*/true);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  ASSERT_EQ(kernel.open_flags.size(), 3u);
  EXPECT_EQ(kernel.open_flags[2] & O_CREAT, 0);  // the other job's file, without O_CREAT
  EXPECT_EQ(kernel.nodes.at(kSharedLock).owner, kOther);
  EXPECT_TRUE(kernel.chmods.empty());
}

// Someone who removes and creates the file again and again is given up on after a few rounds,
// with the reason; the job goes on without the lock.
TEST(GpuLockOpen, ALockThatKeepsComingAndGoingIsGivenUpOn) {
  FakeKernel kernel = StockKernel();
  kernel.before_open = [&kernel](int flags) {
    if (flags & O_EXCL) {
      kernel.File(kSharedLock, 0600, kOther);
    } else {
      kernel.nodes.erase(kSharedLock);
    }
  };
  Result<int> opened = OpenGpuLockFile(kernel, kSharedLock, /*shared=*/true);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("was removed and created again by another process 3 "
                                           "times while gpubench opened it"),
            std::string::npos)
      << opened.status().message();
  EXPECT_EQ(kernel.open_flags.size(), 6u);
  EXPECT_TRUE(kernel.open_fds.empty());
}

// A link at the lock's path, in either folder: refused (O_NOFOLLOW gives ELOOP; O_EXCL gives
// EEXIST for a dangling one), left as it is, and nothing is opened through it.
TEST(GpuLockOpen, ALinkAtTheLockPathIsRefused) {
  for (const bool shared : {true, false}) {
    FakeKernel kernel = StockKernel();
    const std::string& path = shared ? kSharedLock : kOwnLock;
    kernel.Link(path);
    Result<int> opened = OpenGpuLockFile(kernel, path, shared);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.status().message(),
              path +
                  " is a symbolic link, which gpubench does not follow (someone else may have put "
                  "it there); remove it, or " +
                  (shared ? "set --gpubench_lock_dir"
                          : "give a folder that users share with --gpubench_lock_dir"));
    EXPECT_TRUE(S_ISLNK(kernel.nodes.at(path).mode));
    EXPECT_TRUE(kernel.open_fds.empty());
  }
}

// In the per-user folder a file of another owner can only have been planted: refused, closed,
// never chmod-ed. The same file in a shared folder is the shared lock.
TEST(GpuLockOpen, AnotherUsersFileInThePerUserFolderIsRefused) {
  FakeKernel kernel = StockKernel();
  kernel.File(kOwnLock, 0644, kOther);
  Result<int> opened = OpenGpuLockFile(kernel, kOwnLock, /*shared=*/false);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().message(),
            kOwnLock +
                " belongs to uid 1001, not to this user (uid 1000): someone else put it there; "
                "remove it, or give a folder that users share with --gpubench_lock_dir");
  EXPECT_TRUE(kernel.open_fds.empty());
  EXPECT_TRUE(kernel.chmods.empty());
  EXPECT_FALSE(kernel.OpenedWithCreate());
}

// A FIFO at the path is opened without blocking (O_NONBLOCK) and refused.
TEST(GpuLockOpen, AFifoAtThePathIsRefused) {
  FakeKernel kernel = StockKernel();
  kernel.nodes[kSharedLock] = {S_IFIFO | 0666, kOther};
  Result<int> opened = OpenGpuLockFile(kernel, kSharedLock, /*shared=*/true);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("is a FIFO, not a lock file"), std::string::npos)
      << opened.status().message();
  EXPECT_NE(kernel.open_flags.at(0) & O_NONBLOCK, 0);
  EXPECT_TRUE(kernel.open_fds.empty());
}

// The per-user folder must be owned by the uid the lock file is checked against (the effective
// one) and closed to others; a shared folder is root's (/run/lock) or a group's, whoever owns it.
TEST(GpuLockOpen, AFolderOfAnUnexpectedOwner) {
  FakeKernel kernel = StockKernel();
  kernel.Folder(kOwnFolder, 0700, kOther);
  EXPECT_EQ(PrepareGpuLockDirectory(kernel, kOwnFolder, /*own=*/true),
            kOwnFolder +
                " belongs to uid 1001 with mode 700, not to this user (uid 1000) alone; remove it, "
                "or set --gpubench_lock_dir");
  kernel.me = kOther;  // the same folder for the uid that owns it
  EXPECT_EQ(PrepareGpuLockDirectory(kernel, kOwnFolder, /*own=*/true), "");

  kernel.me = kMe;
  EXPECT_EQ(PrepareGpuLockDirectory(kernel, kSharedFolder, /*own=*/false), "");
  kernel.Link("/run/shared-link");
  EXPECT_NE(PrepareGpuLockDirectory(kernel, "/run/shared-link", /*own=*/false)
                .find("is not a folder but a symbolic link"),
            std::string::npos);
}

// A missing per-user folder is created with mode 0700, whatever the umask leaves.
TEST(GpuLockOpen, AMissingPerUserFolderIsCreatedForThisUserAlone) {
  FakeKernel kernel = StockKernel();
  kernel.nodes.erase(kOwnFolder);
  EXPECT_EQ(PrepareGpuLockDirectory(kernel, kOwnFolder, /*own=*/true), "");
  EXPECT_EQ(kernel.nodes.at(kOwnFolder).owner, kMe);
  EXPECT_EQ(kernel.nodes.at(kOwnFolder).mode & 07777, 0700u);
}

// On a real folder: a lock that a job creates in a shared folder can be opened by the other
// users' jobs whatever the creator's umask; in the per-user folder the umask stays in force.
TEST(GpuLock, ALockCreatedInASharedFolderIsReadableToAllWhateverTheUmask) {
  const std::string shared = TempLockPath() + ".shared", own = TempLockPath() + ".own";
  std::remove(shared.c_str());
  std::remove(own.c_str());
  const mode_t saved = ::umask(077);
  GpuLock first, second;
  std::ostringstream messages;
  const std::string shared_note = first.Acquire(shared, 1.0, messages, /*shared=*/true);
  const std::string own_note = second.Acquire(own, 1.0, messages, /*shared=*/false);
  ::umask(saved);
  EXPECT_EQ(shared_note, "");
  EXPECT_EQ(own_note, "");
  struct stat info {};
  ASSERT_EQ(::stat(shared.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0644u);
  ASSERT_EQ(::stat(own.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u);
  first.Release();
  second.Release();
  std::remove(shared.c_str());
  std::remove(own.c_str());
}

// ---- The temporary files, opened by the same sequence ----

OpenRule ChildOutputRule() {
  OpenRule rule;
  rule.access = O_WRONLY;
  rule.create = true;
  rule.truncate = true;
  rule.remedy = "set TMPDIR to a folder of this user's own";
  return rule;
}

// Another user's file at a temporary file's path (writable to us or not) is refused before it is
// emptied: O_TRUNC would have emptied it before any check.
TEST(TemporaryFileOpen, AnotherUsersFileIsRefusedBeforeItIsEmptied) {
  FakeKernel kernel = StockKernel();
  kernel.Folder("/tmp", 01777, kRoot);
  const std::string path = "/tmp/gpubench-gpu0-stdout-Ab12Cd";
  kernel.File(path, 0666, kOther);
  Result<OpenedFile> opened = OpenRegularFile(kernel, path, ChildOutputRule());
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().message(),
            path +
                " belongs to uid 1001, not to this user (uid 1000): someone else put it there; "
                "set TMPDIR to a folder of this user's own");
  EXPECT_TRUE(kernel.truncated.empty());
  EXPECT_TRUE(kernel.open_fds.empty());
  for (int flags : kernel.open_flags) EXPECT_EQ(flags & (O_TRUNC | O_CREAT), 0);
}

// This user's file (mkstemp's) is opened without O_CREAT, never through a link, and emptied.
TEST(TemporaryFileOpen, ThisUsersFileIsOpenedAndEmptied) {
  FakeKernel kernel = StockKernel();
  kernel.Folder("/tmp", 01777, kRoot);
  const std::string path = "/tmp/gpubench-gpu0-stdout-Ab12Cd";
  kernel.File(path, 0600, kMe);
  Result<OpenedFile> opened = OpenRegularFile(kernel, path, ChildOutputRule());
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_FALSE(opened.value().created);
  EXPECT_FALSE(kernel.OpenedWithCreate());
  EXPECT_NE(kernel.open_flags.at(0) & O_NOFOLLOW, 0);
  EXPECT_EQ(kernel.truncated, std::vector<std::string>{path});

  kernel.Link(path);  // swapped for a link since
  Result<OpenedFile> link = OpenRegularFile(kernel, path, ChildOutputRule());
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.status().message().find("is a symbolic link"), std::string::npos);
}

// On a real folder: a link in place of the profiling child's file is not written through, and
// the parent does not read through one either.
TEST(TemporaryFileOpen, TheProfilingPassFollowsNoLinkToItsFile) {
  const std::string target = TempLockPath() + ".victim", path = TempLockPath() + ".child";
  std::remove(path.c_str());
  std::ofstream(target) << "someone's file\n";
  ASSERT_EQ(::symlink(target.c_str(), path.c_str()), 0);
  ProfilingPass child;
  const Status begun = child.BeginProfiling(path, {"on", {}});
  EXPECT_FALSE(begun.ok());
  EXPECT_NE(begun.message().find("is a symbolic link, which gpubench does not follow"),
            std::string::npos)
      << begun.message();
  ProfilingPass parent;
  ProfilingPass::Header header;
  const Status read = parent.BeginTiming(path, &header);
  EXPECT_FALSE(read.ok());
  EXPECT_NE(read.message().find("is a symbolic link"), std::string::npos) << read.message();
  std::ifstream in(target);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "someone's file\n");
  std::remove(path.c_str());
  std::remove(target.c_str());
}

// On a real folder: the child's file, once opened, takes the lines that the parent reads back.
TEST(TemporaryFileOpen, TheProfilingPassWritesAndReadsItsOwnFile) {
  const std::string path = TempLockPath() + ".child-own";
  std::remove(path.c_str());
  {
    ProfilingPass child;
    ASSERT_TRUE(child.BeginProfiling(path, {"off: not on this machine", {}}).ok());
  }
  ProfilingPass parent;
  ProfilingPass::Header header;
  const Status read = parent.BeginTiming(path, &header);
  EXPECT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(header.profiler_status, "off: not on this machine");
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0077, 0u);  // created 0600 when missing
  std::remove(path.c_str());
}

}  // namespace
}  // namespace gpubench::detail
