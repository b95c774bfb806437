// Where the tools write (tools/base/output_file.hpp): never over a file they read, a regular file
// only once whole, a FIFO as it is, every failure with the system's reason.
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>

#include "tools/base/output_file.hpp"

namespace {

namespace fs = std::filesystem;
using gpubench::tools::CheckOutputIsNoInput;
using gpubench::tools::OutputFile;
using gpubench::tools::WriteOutputFile;
using ::testing::HasSubstr;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("gpubench_output_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static void Put(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  static std::string Read(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(OutputFileTest, AnInputIsRefusedThroughAnyPathLinkOrHardLink) {
  const std::string run = Path("run.json");
  Put(run, "{}");
  fs::create_symlink(run, Path("link.json"));
  fs::create_hard_link(run, Path("hard.json"));
  fs::create_directories(dir_ / "sub");
  for (const std::string& output :
       {run, Path("link.json"), Path("hard.json"), Path("sub/../run.json")}) {
    const gpubench::detail::Status status = CheckOutputIsNoInput(output, "--output", {run});
    ASSERT_FALSE(status.ok()) << output;
    EXPECT_EQ(status.code(), gpubench::detail::Status::Code::kInvalidInput);
    EXPECT_THAT(status.message(), HasSubstr("--output " + output + " is the input file " + run));
    EXPECT_THAT(status.message(), HasSubstr("choose another output path"));
  }
  // A new file, another file, standard output: nothing to destroy.
  EXPECT_TRUE(CheckOutputIsNoInput(Path("new.html"), "--output", {run}).ok());
  Put(Path("other.json"), "{}");
  EXPECT_TRUE(CheckOutputIsNoInput(Path("other.json"), "--output", {run}).ok());
  EXPECT_TRUE(CheckOutputIsNoInput("-", "--output", {run}).ok());
}

TEST_F(OutputFileTest, AFileOfAnInputFolderIsRefused) {
  fs::create_directories(dir_ / "history");
  Put(Path("history/run1.json"), "{}");
  const gpubench::detail::Status status =
      CheckOutputIsNoInput(Path("history/run1.json"), "--output", {}, {Path("history")});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("is the input file"));
  EXPECT_TRUE(
      CheckOutputIsNoInput(Path("history/new.json"), "--output", {}, {Path("history")}).ok());
}

TEST_F(OutputFileTest, TheOldFileStaysUntilTheNewOneIsWhole) {
  const std::string path = Path("table.csv");
  Put(path, "old");
  {
    OutputFile file;
    ASSERT_TRUE(file.Open(path).ok());
    file.Write("new ");
    EXPECT_EQ(Read(path), "old");  // written beside it
    file.Write("table");
    ASSERT_TRUE(file.Commit().ok());
  }
  EXPECT_EQ(Read(path), "new table");
  EXPECT_FALSE(fs::exists(path + ".partial"));
}

TEST_F(OutputFileTest, AWriteNotCommittedLeavesTheOldFileAndNoTemporary) {
  const std::string path = Path("table.csv");
  Put(path, "old");
  {
    OutputFile file;
    ASSERT_TRUE(file.Open(path).ok());
    file.Write("half a tab");
  }  // e.g. the export failed half way
  EXPECT_EQ(Read(path), "old");
  EXPECT_FALSE(fs::exists(path + ".partial"));
}

TEST_F(OutputFileTest, ThroughALinkTheFileItNamesIsReplaced) {
  Put(Path("target.html"), "old");
  fs::create_symlink(Path("target.html"), Path("link.html"));
  ASSERT_TRUE(WriteOutputFile(Path("link.html"), "new").ok());
  EXPECT_TRUE(fs::is_symlink(Path("link.html")));
  EXPECT_EQ(Read(Path("target.html")), "new");
}

TEST_F(OutputFileTest, AFifoIsWrittenAsItIs) {
  const std::string fifo = Path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::future<std::string> reader = std::async(std::launch::async, [&] { return Read(fifo); });
  ASSERT_TRUE(WriteOutputFile(fifo, "through the pipe").ok());
  EXPECT_EQ(reader.get(), "through the pipe");
  struct stat info {};
  ASSERT_EQ(::lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode)) << "the FIFO was replaced by a regular file";
  EXPECT_FALSE(fs::exists(fifo + ".partial"));
}

TEST_F(OutputFileTest, FailuresSayWhy) {
  const gpubench::detail::Status missing = WriteOutputFile(Path("no/such/folder/x.html"), "x");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.message(), HasSubstr("cannot write " + Path("no/such/folder/x.html") +
                                           ": No such file or directory"));
  const gpubench::detail::Status folder = WriteOutputFile(dir_.string(), "x");
  ASSERT_FALSE(folder.ok());
  EXPECT_THAT(folder.message(), HasSubstr("Is a directory"));
  if (fs::exists("/dev/full")) {  // a character device: written as it is, and it is full
    const gpubench::detail::Status full = WriteOutputFile("/dev/full", std::string(100000, 'x'));
    ASSERT_FALSE(full.ok());
    EXPECT_THAT(full.message(), HasSubstr("cannot write /dev/full: No space left on device"));
  }
}

}  // namespace
