// What gpubench writes outside --benchmark_out (issue #41): the GPU lock file of
// --gpubench_exclusive=wait follows no link and changes no file it finds at its path, its
// per-user folder is this user's alone, and the profiling child's temporary file does not outlive
// a run killed during the profiling pass.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/environment.hpp"
#include "frontend/setup/profiling_run.hpp"
#include "measure/checks/sharing_check.hpp"
#include "measure/process/gpu_lock.hpp"
#include "measure/profiling/profiling_pass.hpp"

namespace gpubench::detail {
namespace {

// A fresh folder of the test's own.
std::string Folder(const std::string& name) {
  const std::string path =
      ::testing::TempDir() + "gpubench-" + name + "-" + std::to_string(::getpid());
  std::system(("rm -rf '" + path + "'").c_str());
  ::mkdir(path.c_str(), 0700);
  return path;
}

struct FileState {
  std::string content;
  mode_t mode = 0;
  uid_t owner = 0;
  bool operator==(const FileState& other) const {
    return content == other.content && mode == other.mode && owner == other.owner;
  }
};

FileState StateOf(const std::string& path) {
  FileState state;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  state.content = text.str();
  struct stat info {};
  ::stat(path.c_str(), &info);
  state.mode = info.st_mode;
  state.owner = info.st_uid;
  return state;
}

std::string Acquired(const std::string& path, GpuLock* lock) {
  std::ostringstream messages;
  return lock->Acquire(path, 0.2, messages);
}

// A link planted at the lock's path to a file of this user (e.g. ~/.bashrc): not followed, the
// file is left as it was, and the job goes on without the lock, saying why.
TEST(LockFile, ALinkAtThePathIsNotFollowed) {
  const std::string folder = Folder("link");
  const std::string victim = folder + "/bashrc", path = folder + "/gpubench-gpu-x.lock";
  std::ofstream(victim) << "export PATH=/usr/bin\n";
  ::chmod(victim.c_str(), 0600);
  ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);
  const FileState before = StateOf(victim);
  GpuLock lock;
  const std::string note = Acquired(path, &lock);
  EXPECT_FALSE(lock.held());
  EXPECT_NE(note.find("is a symbolic link, which gpubench does not follow"), std::string::npos)
      << note;
  EXPECT_TRUE(StateOf(victim) == before);
}

// A file of another owner at the path: in the per-user folder it can only have been planted, so
// the job goes on without the lock and says why; in a folder that users share
// (--gpubench_lock_dir) it is locked as it is, read-only. Either way it is never written,
// truncated or chmod-ed.
TEST(LockFile, AnotherOwnersFileIsNeverChanged) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a file of another owner";
  const std::string folder = Folder("owner");
  const std::string path = folder + "/gpubench-gpu-x.lock";
  std::ofstream(path) << "results of another user\n";
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  ::chmod(path.c_str(), 0640);
  const FileState before = StateOf(path);
  GpuLock lock;
  std::ostringstream messages;
  const std::string refused = lock.Acquire(path, 0.2, messages, /*shared=*/false);
  EXPECT_FALSE(lock.held());
  EXPECT_NE(refused.find("belongs to uid 65534, not to this user"), std::string::npos) << refused;
  EXPECT_TRUE(StateOf(path) == before);
  EXPECT_EQ(lock.Acquire(path, 0.2, messages, /*shared=*/true), "");
  EXPECT_TRUE(lock.held());
  lock.Release();
  EXPECT_TRUE(StateOf(path) == before);
  EXPECT_EQ(StateOf(path).mode & 0777, 0640u);
}

// A folder or a FIFO at the path: no lock (and the open of a FIFO does not block), with the
// reason, and the thing planted stays.
TEST(LockFile, AFolderOrAFifoAtThePathIsNoLock) {
  const std::string folder = Folder("kinds");
  const std::string directory = folder + "/gpubench-gpu-d.lock",
                    fifo = folder + "/gpubench-gpu-f.lock";
  ASSERT_EQ(::mkdir(directory.c_str(), 0755), 0);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  GpuLock lock;
  const std::string on_folder = Acquired(directory, &lock);
  EXPECT_FALSE(lock.held());
  EXPECT_NE(on_folder.find("went on without the lock"), std::string::npos) << on_folder;
  const std::string on_fifo = Acquired(fifo, &lock);
  EXPECT_FALSE(lock.held());
  EXPECT_NE(on_fifo.find("is a FIFO, not a lock file"), std::string::npos) << on_fifo;
  struct stat info {};
  EXPECT_EQ(::stat(directory.c_str(), &info), 0);
  EXPECT_TRUE(S_ISDIR(info.st_mode));
  EXPECT_EQ(::stat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
}

// The lock file gpubench creates is empty and stays empty: nothing is written into it (who holds
// it comes from /proc/locks).
TEST(LockFile, ItsOwnLockFileIsNeverWritten) {
  const std::string path = Folder("own") + "/gpubench-gpu-x.lock";
  GpuLock first, second;
  ASSERT_EQ(Acquired(path, &first), "");
  const std::string note = Acquired(path, &second);
  EXPECT_NE(note.find("for gpubench job pid " + std::to_string(::getpid())), std::string::npos)
      << note;
  EXPECT_EQ(StateOf(path).content, "");
  EXPECT_EQ(StateOf(path).mode & 0022, 0u);  // not writable by others
}

// The per-user folder is made this user's alone; one that is a link, another user's, or open to
// others is refused.
TEST(LockFolder, ThePerUserFolderIsThisUsersAlone) {
  const std::string folder = Folder("folders");
  const std::string own = folder + "/mine";
  EXPECT_EQ(PrepareGpuLockDirectory(own, true), "");
  struct stat info {};
  ASSERT_EQ(::lstat(own.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  EXPECT_EQ(info.st_uid, ::getuid());

  const std::string link = folder + "/link";
  ASSERT_EQ(::symlink(own.c_str(), link.c_str()), 0);
  EXPECT_NE(PrepareGpuLockDirectory(link, true).find("but a symbolic link"), std::string::npos);

  const std::string open = folder + "/open";
  ASSERT_EQ(::mkdir(open.c_str(), 0700), 0);
  ::chmod(open.c_str(), 0777);
  EXPECT_NE(PrepareGpuLockDirectory(open, true).find("with mode 777"), std::string::npos);
  // A folder given with --gpubench_lock_dir may be shared (e.g. /run/lock, mode 1777).
  EXPECT_EQ(PrepareGpuLockDirectory(open, false), "");

  if (::geteuid() == 0) {
    const std::string theirs = folder + "/theirs";
    ASSERT_EQ(::mkdir(theirs.c_str(), 0700), 0);
    ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
    EXPECT_NE(PrepareGpuLockDirectory(theirs, true).find("belongs to uid 65534"),
              std::string::npos);
  }
}

// Run as the profiling child by the test below: it only waits, as a long profiling pass would.
// Not a test of its own (disabled: ctest does not run it), only the child's body.
TEST(ProfilingChildFile, DISABLED_SleepsAsTheChild) {
  if (ProfilingChildFile().empty()) return;
  std::this_thread::sleep_for(std::chrono::seconds(20));
}

// The child of the two tests below: a profiling pass of a second that profiles nothing.
TEST(ProfilingChildFile, DISABLED_WaitsASecondAsTheChild) {
  if (ProfilingChildFile().empty()) return;
  std::this_thread::sleep_for(std::chrono::seconds(1));
}

int ChildFilesIn(const std::string& folder) {
  int count = 0;
  if (DIR* dir = ::opendir(folder.c_str())) {
    while (const dirent* entry = ::readdir(dir)) {
      count += std::string(entry->d_name).rfind("gpubench-profiling-", 0) == 0;
    }
    ::closedir(dir);
  }
  return count;
}

// A run killed with SIGTERM during the profiling pass (where a CI timeout lands on a large
// suite) leaves no temporary file behind, and still ends by that signal.
TEST(ProfilingChildFile, IsRemovedWhenTheRunIsKilledDuringThePass) {
  if (!ProfilingChildFile().empty()) GTEST_SKIP() << "the child itself";
  const std::string folder = Folder("child");
  const pid_t run = ::fork();
  ASSERT_GE(run, 0);
  if (run == 0) {
    ::setenv("TMPDIR", folder.c_str(), 1);
    std::ostringstream log;
    RunProfilingChild(
        {"gpubench_unit_tests", "--gtest_filter=ProfilingChildFile.DISABLED_SleepsAsTheChild",
         "--gtest_also_run_disabled_tests"},
        log);
    ::_exit(0);  // not reached: SIGTERM ends it during the pass
  }
  for (int i = 0; i < 200 && ChildFilesIn(folder) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_EQ(ChildFilesIn(folder), 1) << "the pass did not start";
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(run, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(run, &status, 0), run);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_EQ(ChildFilesIn(folder), 0);
}

// The command line of a profiling child that runs DISABLED_WaitsASecondAsTheChild.
std::vector<std::string> OneSecondChild() {
  return {"gpubench_unit_tests",
          "--gtest_filter=ProfilingChildFile.DISABLED_WaitsASecondAsTheChild",
          "--gtest_also_run_disabled_tests"};
}

// The parent's start-up runs beside the child: Start returns at once, Finish waits for the
// child and removes its file, and a child that wrote nothing says so.
TEST(ProfilingChildFile, StartsWithoutWaitingAndFinishWaits) {
  if (!ProfilingChildFile().empty()) GTEST_SKIP() << "the child itself";
  const std::string folder = Folder("overlap");
  ::setenv("TMPDIR", folder.c_str(), 1);
  std::ostringstream log;
  const auto start = std::chrono::steady_clock::now();
  ProfilingChild child;
  child.Start(OneSecondChild());
  const double started =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(started, 0.5) << "Start waited for the child";
  EXPECT_EQ(ChildFilesIn(folder), 1);
  EXPECT_EQ(log.str(), "") << "Start spoke before the parent knew it would use the child";
  child.Announce(log);
  EXPECT_NE(log.str().find("gpubench: profiling pass: a child process takes"), std::string::npos)
      << log.str();
  const ProfilingChildResult result = child.Finish(log);
  ::unsetenv("TMPDIR");
  const double finished =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(finished, 1.0) << "Finish did not wait for the child";
  EXPECT_FALSE(result.ran);
  EXPECT_NE(result.why_not.find("ended before its profiler was set up"), std::string::npos)
      << result.why_not;
  EXPECT_EQ(ChildFilesIn(folder), 0);
}

// A child started and never finished (Initialize left early) is waited for, and its file goes.
TEST(ProfilingChildFile, UnfinishedChildIsWaitedForAndItsFileRemoved) {
  if (!ProfilingChildFile().empty()) GTEST_SKIP() << "the child itself";
  const std::string folder = Folder("unfinished");
  ::setenv("TMPDIR", folder.c_str(), 1);
  const auto start = std::chrono::steady_clock::now();
  {
    ProfilingChild child;
    child.Start(OneSecondChild());
    EXPECT_EQ(ChildFilesIn(folder), 1);
  }
  ::unsetenv("TMPDIR");
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  EXPECT_EQ(ChildFilesIn(folder), 0);
}

// A child started before the device query and discarded (the device then proved unusable) is
// waited for, its file goes, and the console never said that a profiling pass runs.
TEST(ProfilingChildFile, DiscardedChildIsWaitedForAndNeverAnnounced) {
  if (!ProfilingChildFile().empty()) GTEST_SKIP() << "the child itself";
  const std::string folder = Folder("discarded");
  ::setenv("TMPDIR", folder.c_str(), 1);
  const auto start = std::chrono::steady_clock::now();
  testing::internal::CaptureStderr();
  ProfilingChild child;
  child.Start(OneSecondChild());
  EXPECT_EQ(ChildFilesIn(folder), 1);
  child.Discard();
  const std::string said = testing::internal::GetCapturedStderr();
  ::unsetenv("TMPDIR");
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  EXPECT_EQ(ChildFilesIn(folder), 0);
  EXPECT_EQ(said.find("profiling pass"), std::string::npos) << said;
}

// In the profiling child, the parent is one of gpubench's own processes on the GPU.
TEST(ProfilingChildFile, TheChildCountsItsParentAsItsOwn) {
  if (!ProfilingChildFile().empty()) GTEST_SKIP() << "the child itself";
  const unsigned me = static_cast<unsigned>(::getpid());
  const unsigned parent = static_cast<unsigned>(::getppid());
  EXPECT_EQ(OwnGpuProcesses(), std::vector<unsigned>({me}));
  ::setenv(kProfilingChildVariable, "/nonexistent/gpubench-profiling-test", 1);
  const std::vector<unsigned> own = OwnGpuProcesses();
  ::unsetenv(kProfilingChildVariable);
  EXPECT_EQ(own, std::vector<unsigned>({me, parent}));
}

}  // namespace
}  // namespace gpubench::detail
