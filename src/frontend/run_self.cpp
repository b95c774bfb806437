#include "frontend/run_self.hpp"

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

namespace gpubench::detail {

int StartSelf(const std::vector<std::string>& args, const ChildSetup& setup) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (setup.discard_stdout || !setup.stdout_file.empty()) {
      const int out = setup.discard_stdout
                          ? open("/dev/null", O_WRONLY)
                          : open(setup.stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (out >= 0) dup2(out, STDOUT_FILENO);
    }
    if (!setup.stderr_file.empty()) {
      const int err = open(setup.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (err >= 0) dup2(err, STDERR_FILENO);
    }
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
  const char* dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/" + stem + "-XXXXXX";
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
