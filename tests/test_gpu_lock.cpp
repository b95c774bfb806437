// --gpubench_exclusive=wait between gpubench jobs: the per-GPU lock file. flock() locks belong to
// an open file description, so two GpuLocks of one process exclude each other as two jobs do.
#include "measure/gpu_lock.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

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

}  // namespace
}  // namespace gpubench::detail
