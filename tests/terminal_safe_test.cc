// What the command line prints from a server reaches the terminal without control
// characters (client/terminal_safe.h): the escapes themselves, and the real binary against a
// server whose strings carry ESC and OSC sequences, a CR and a C1 control.
#include <chrono>
#include <memory>
#include <sstream>
#include <string>

#include "client/terminal_safe.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "puzzledb/v1/solver.grpc.pb.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

TEST(TerminalSafeTest, ControlCharactersAreEscapedAndTextIsNot) {
  EXPECT_EQ(TerminalSafe("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(TerminalSafe("\x1b[2J\x1b]0;owned\x07!"), "\\x1b[2J\\x1b]0;owned\\x07!");
  EXPECT_EQ(TerminalSafe("ok\rno"), "ok\\x0dno");
  EXPECT_EQ(TerminalSafe(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(TerminalSafe("\x7f"), "\\x7f");
  EXPECT_EQ(TerminalSafe("\xc2\x9b" "31m"), "\\u009b31m") << "C1 CSI, as UTF-8";
  EXPECT_EQ(TerminalSafe("caf\xc3\xa9 \xe2\x86\xbb \xf0\x9f\xa7\xa9"), "caf\xc3\xa9 \xe2\x86\xbb \xf0\x9f\xa7\xa9")
      << "UTF-8 text passes";
  EXPECT_EQ(TerminalSafe("\x9b\xff\xc0\x80"), "\\x9b\\xff\\xc0\\x80") << "not UTF-8";
  EXPECT_EQ(TerminalSafe("\xed\xa0\x80"), "\\xed\\xa0\\x80") << "a surrogate";
  EXPECT_EQ(TerminalSafe("\xe2\x86 x"), "\\xe2\\x86 x") << "a sequence cut short";
  EXPECT_EQ(TerminalSafe("\xe2"), "\\xe2") << "a sequence left incomplete";
  // A character split across two writes is read whole.
  std::ostringstream sink;
  {
    TerminalSafeBuf safe(sink.rdbuf());
    std::ostream out(&safe);
    out << "\xe2" << std::flush << "\x86\xbb" << "\x1b";
  }
  EXPECT_EQ(sink.str(), "\xe2\x86\xbb\\x1b");
}

// A server whose every string tries to take over the terminal.
class HostileSolver final : public v1::Solver::Service {
 public:
  static constexpr const char* kEvil = "\x1b[2J\x1b]0;owned\x07\r\xc2\x9b";
  grpc::Status ListPuzzles(grpc::ServerContext*, const v1::ListPuzzlesRequest*,
                           v1::ListPuzzlesResponse* response) override {
    v1::PuzzleInfo* p = response->add_puzzles();
    p->set_name(std::string("evil") + kEvil);
    p->set_title(std::string("Title") + kEvil);
    p->set_compact_form(kEvil);
    p->add_move_names(kEvil);
    return grpc::Status::OK;
  }
  grpc::Status ListTables(grpc::ServerContext*, const v1::ListTablesRequest*,
                          v1::ListTablesResponse* response) override {
    v1::TableInfo* t = response->add_tables();
    t->set_table_id(std::string("table") + kEvil);
    t->set_puzzle("knight");
    t->set_status(std::string("REFUSED: ") + kEvil);
    return grpc::Status::OK;
  }
  grpc::Status Solve(grpc::ServerContext*, const v1::SolveRequest*, v1::SolveResponse*) override {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string("refused") + kEvil);
  }
  grpc::Status SolveBatch(grpc::ServerContext*, const v1::SolveBatchRequest*,
                          v1::SolveBatchResponse*) override {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string("refused") + kEvil);
  }
};

TEST(TerminalSafeTest, TheCommandLinePrintsAHostileServersStringsEscaped) {
  HostileSolver service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ASSERT_GT(port, 0);
  const std::string cli = std::string(PUZZLEDB_CLI) + " --server 127.0.0.1:" + std::to_string(port);
  for (const std::string command : {"puzzles", "tables", "solve --puzzle knight"}) {
    SCOPED_TRACE(command);
    const auto run = testing::RunCommand(cli + " " + command + " --timeout 10",
                                         testing::Golden("knight.in"));
    const std::string printed = run.out + run.err;
    EXPECT_EQ(printed.find('\x1b'), std::string::npos) << printed;
    EXPECT_EQ(printed.find('\r'), std::string::npos) << printed;
    EXPECT_EQ(printed.find('\x07'), std::string::npos) << printed;
    EXPECT_EQ(printed.find("\xc2\x9b"), std::string::npos) << printed;
    EXPECT_NE(printed.find("\\x1b[2J\\x1b]0;owned\\x07\\x0d\\u009b"), std::string::npos) << printed;
  }
  server->Shutdown(std::chrono::system_clock::now());
}

}  // namespace
}  // namespace puzzledb
