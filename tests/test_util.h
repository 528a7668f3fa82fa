// Helpers shared by the test suites: files, golden samples, running the real binaries.
#ifndef PUZZLEDB_TESTS_TEST_UTIL_H_
#define PUZZLEDB_TESTS_TEST_UTIL_H_

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace puzzledb::testing {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

#ifdef PUZZLEDB_GOLDEN_DIR
inline std::string Golden(const std::string& name) {
  return ReadFile(std::string(PUZZLEDB_GOLDEN_DIR) + "/" + name);
}
#endif

inline std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/puzzledb_test_" + std::to_string(::getpid()) + "_" +
         name;
}

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `command` through /bin/sh with `input` on stdin; captures stdout, stderr, status. A
// command still running after `seconds` is killed (exit code 124, and stderr says so), so
// that a hang fails its test with the command's name instead of stalling the suite.
inline CommandResult RunCommand(const std::string& command, const std::string& input,
                                int seconds = 300) {
  const std::string in = TempPath("stdin"), out = TempPath("stdout"), err = TempPath("stderr");
  WriteFile(in, input);
  std::string quoted;  // `command` inside single quotes
  for (char c : command) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  const std::string line = "timeout -k 10 " + std::to_string(seconds) + " sh -c '" + quoted +
                           "' < '" + in + "' > '" + out + "' 2> '" + err + "'";
  const int status = std::system(line.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFile(out);
  result.err = ReadFile(err);
  if (result.exit_code == 124) {
    result.err += "\n[test] killed after " + std::to_string(seconds) + " s: " + command + "\n";
  }
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(err.c_str());
  return result;
}

// A program started in the background, its stderr going to a file.
struct Process {
  pid_t pid = -1;
  std::string stderr_path;
};

inline Process StartProcess(const std::vector<std::string>& argv, const std::string& stderr_path) {
  Process process;
  process.stderr_path = stderr_path;
  // Emptied before the child starts: the name holds this process's id, which an earlier
  // run may have had, and a caller polling the file for a start-up line must not read that
  // run's (another port) before the child truncates it.
  std::ofstream(stderr_path, std::ios::trunc).flush();
  process.pid = ::fork();
  if (process.pid == 0) {
    FILE* err = std::freopen(stderr_path.c_str(), "w", stderr);
    (void)err;
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::_Exit(127);
  }
  return process;
}

// Waits up to `seconds` for the process to exit; its exit status, or -1 on a timeout or a
// signal.
inline int WaitProcess(const Process& process, double seconds) {
  for (int i = 0; i < static_cast<int>(seconds * 100); ++i) {
    int status = 0;
    if (::waitpid(process.pid, &status, WNOHANG) == process.pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    ::usleep(10000);
  }
  return -1;
}

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_TEST_UTIL_H_
