// A real puzzledb-server process for the tests: started on a free port of 127.0.0.1 with
// its log in a file, stopped with a signal.
#ifndef PUZZLEDB_TESTS_SERVER_PROCESS_H_
#define PUZZLEDB_TESTS_SERVER_PROCESS_H_

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_util.h"

namespace puzzledb::testing {

// A copy of the test database (servers may add tables to theirs).
inline std::string CopyOfTestDb(const std::string& name) {
  const std::string db = TempPath(name);
  std::filesystem::remove_all(db);
  std::filesystem::copy(PUZZLEDB_TEST_DB, db, std::filesystem::copy_options::recursive);
  return db;
}

class ServerProcess {
 public:
  // Starts `binary --db db --listen 127.0.0.1:<port> --http 127.0.0.1:0 extra...` (port 0:
  // any free port) and waits for its start-up line. address() is empty if it did not start.
  ServerProcess(const std::string& binary, const std::string& db, std::vector<std::string> extra,
                const std::string& log, int port = 0)
      : log_(log) {
    std::vector<std::string> argv = {binary, "--db", db, "--listen",
                                     "127.0.0.1:" + std::to_string(port), "--http", "127.0.0.1:0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    process_ = StartProcess(argv, log);
    // Up to two minutes: loading the tables takes well under a second alone, but far longer
    // on a machine busy with other tests.
    for (int i = 0; i < 4800 && address_.empty(); ++i) {
      std::smatch match;
      const std::string text = ReadFile(log);
      if (std::regex_search(text, match, std::regex(R"(listening on (127\.0\.0\.1:(\d+)))"))) {
        address_ = match[1];
        port_ = std::stoi(match[2]);
        if (std::regex_search(text, match, std::regex(R"(web page on http://127\.0\.0\.1:(\d+)/)"))) {
          http_port_ = std::stoi(match[1]);
        }
      } else if (::waitpid(process_.pid, nullptr, WNOHANG) == process_.pid) {
        break;  // it exited
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
      }
    }
  }
  ~ServerProcess() {
    if (process_.pid > 0 && running_) {
      ::kill(process_.pid, SIGKILL);
      WaitProcess(process_, 10);
    }
  }

  const std::string& address() const { return address_; }
  int port() const { return port_; }
  int http_port() const { return http_port_; }  // 0 when --http '' was given
  pid_t pid() const { return process_.pid; }
  std::string Log() const { return ReadFile(log_); }

  // The server's resident memory in kB (VmRSS), or -1.
  long ResidentKb() const {
    std::ifstream status("/proc/" + std::to_string(process_.pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    }
    return -1;
  }

  // Sends `signal` and waits for the exit status (-1 for a signal death or a timeout).
  // `signal` 0: one sent already.
  int Stop(int signal, double seconds = 30) {
    if (signal != 0) ::kill(process_.pid, signal);
    running_ = false;
    return WaitProcess(process_, seconds);
  }

 private:
  std::string log_;
  Process process_;
  std::string address_;
  int port_ = 0;
  int http_port_ = 0;
  bool running_ = true;
};

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_SERVER_PROCESS_H_
