#include "frontend/setup/run_self.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "common/environment.hpp"
#include "common/file_calls.hpp"

namespace gpubench::detail {
namespace {

// A child's output file, which TemporaryFile made in $TMPDIR or /tmp, where other users write
// too: opened here in the parent, never through a link, only while it is a regular file of this
// user's, and emptied only after those checks. The path is reopened rather than mkstemp's
// descriptor kept, because the callers (and ChildProcesses' fakes) hand the file on by its path.
// An empty UniqueFd when the stream stays the parent's (no file, or a refused one).
UniqueFd OpenChildOutput(const std::string& path, const ChildSetup& setup) {
  if (path.empty()) return UniqueFd();
  OpenRule rule;
  rule.access = O_WRONLY;
  rule.create = true;
  rule.truncate = true;
  rule.remedy = "set TMPDIR to a folder of this user's own";
  Result<OpenedFile> opened = OpenRegularFile(SystemFileCalls(), path, rule);
  if (!opened.ok()) {
    std::cerr << "gpubench: the child " << setup.role << " writes to this process's stream, not to "
              << "its file: " << opened.status().message() << "\n";
    return UniqueFd();
  }
  return UniqueFd(opened.value().fd);
}

}  // namespace

int StartSelf(const std::vector<std::string>& args, const ChildSetup& setup) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  // O_CLOEXEC: dup2 makes the child's copies, and no other child inherits these.
  const UniqueFd out = setup.discard_stdout ? UniqueFd(open("/dev/null", O_WRONLY | O_CLOEXEC))
                                            : OpenChildOutput(setup.stdout_file, setup);
  const UniqueFd err = OpenChildOutput(setup.stderr_file, setup);
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    // dup2's copy is inherited by execv; a file that landed on the stream's number itself (that
    // stream was closed) keeps it by losing O_CLOEXEC instead.
    const auto redirect = [](int fd, int stream) {
      if (fd == stream) {
        fcntl(fd, F_SETFD, 0);
      } else if (fd >= 0) {
        dup2(fd, stream);
      }
    };
    redirect(out.get(), STDOUT_FILENO);
    redirect(err.get(), STDERR_FILENO);
    if (setup.dies_with_parent) prctl(PR_SET_PDEATHSIG, SIGTERM);
    for (const auto& [name, value] : setup.set_env) setenv(name.c_str(), value.c_str(), 1);
    for (const std::string& name : setup.unset_env) unsetenv(name.c_str());
    execv("/proc/self/exe", argv.data());
    std::fprintf(stderr, "gpubench: cannot run %s again %s: %s\n", args[0].c_str(),
                 setup.role.c_str(), std::strerror(errno));
    _exit(127);
  }
  return static_cast<int>(pid);
}

std::string TemporaryFile(const std::string& stem) {
  const char* dir = detail::TemporaryDirectoryVariable();
  std::string path =
      std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/" + stem + "-XXXXXX";
  // mkstemp creates it with O_EXCL and mode 0600. Its descriptor is not kept: the profiling child
  // is this binary run again, which learns the file by its path, so whoever opens it later opens
  // it by OpenRegularFile (never through a link, only this user's file).
  const int fd = mkstemp(path.data());
  if (fd < 0) return "";
  close(fd);
  return path;
}

int WaitForChild(int pid) {
  if (pid < 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

int RunSelfAndWait(const std::vector<std::string>& args, const ChildSetup& setup) {
  return WaitForChild(StartSelf(args, setup));
}

}  // namespace gpubench::detail
