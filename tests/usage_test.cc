// Flags that do not make sense are refused by every binary with exit status 2 and one line
// that says what is wrong, before anything is started, built or asked.
#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using testing::RunCommand;
namespace fs = std::filesystem;

struct Usage {
  std::string label;
  std::string command;   // after the binary
  std::string binary;    // PUZZLEDB_CLI, PUZZLEDB_SERVER or PUZZLEDB_BUILD
  std::string expected;  // the whole of stderr
};

void PrintTo(const Usage& usage, std::ostream* os) { *os << usage.label; }

class UsageTest : public ::testing::TestWithParam<Usage> {};

TEST_P(UsageTest, IsRefusedWithOneLine) {
  const Usage& usage = GetParam();
  const auto result = RunCommand(usage.binary + " " + usage.command, "");
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(result.err, usage.expected + "\n");
  EXPECT_EQ(result.out, "");
}

const std::string kCli = PUZZLEDB_CLI;
const std::string kServer = PUZZLEDB_SERVER;
const std::string kBuild = PUZZLEDB_BUILD;

INSTANTIATE_TEST_SUITE_P(
    Cli, UsageTest,
    ::testing::Values(
        Usage{"ServerWithoutPort", "--server 127.0.0.1 solve --puzzle knight", kCli,
              "puzzledb: --server '127.0.0.1' has no port; give host:port, e.g. 127.0.0.1:50051"},
        Usage{"ServerPortTooLarge", "--server 127.0.0.1:99999 solve --puzzle knight", kCli,
              "puzzledb: --server '127.0.0.1:99999': the port must be a number from 1 to 65535, "
              "got '99999'"},
        Usage{"ServerEmptyReplica", "--server 127.0.0.1:5,:6 tables", kCli,
              "puzzledb: --server ':6' has no host; give host:port, e.g. 127.0.0.1:50051"},
        Usage{"NodeBudgetWithServer", "--server 127.0.0.1:1 --node-budget 5 solve --puzzle knight",
              kCli,
              "puzzledb: --node-budget limits in-process searches; a server has its own "
              "(puzzledb-server --search-node-budget)"},
        Usage{"TlsCertWithoutKey", "--server 127.0.0.1:1 --tls-cert c.pem solve --puzzle knight",
              kCli, "puzzledb: --tls-cert needs --tls-key"},
        Usage{"TlsWithoutServer", "--tls-ca ca.pem solve --puzzle knight", kCli,
              "puzzledb: --tls-ca applies only with --server"},
        Usage{"NegativeTimeout", "--timeout -1 solve --puzzle knight", kCli,
              "--timeout: a number of seconds from 0 to 31536000 (a year), got '-1'\n"
              "Run with --help for more information."},
        Usage{"TablesOfNothing", "tables", kCli,
              "puzzledb tables: say whose tables: --db DIR (a database) or --server ADDR"},
        Usage{"BenchBadServer", "bench --server localhost", kCli,
              "puzzledb bench: --server 'localhost' has no port; give host:port, e.g. "
              "127.0.0.1:50051"}),
    [](const auto& info) { return info.param.label; });

INSTANTIATE_TEST_SUITE_P(
    Server, UsageTest,
    ::testing::Values(
        Usage{"ListenWithoutPort", "--db /nonexistent --listen 127.0.0.1", kServer,
              "puzzledb-server: --listen '127.0.0.1' has no port; give host:port, e.g. "
              "127.0.0.1:50051"},
        Usage{"ListenPortTooLarge", "--db /nonexistent --listen 127.0.0.1:99999", kServer,
              "puzzledb-server: --listen '127.0.0.1:99999': the port must be a number from 0 to "
              "65535, got '99999'"},
        Usage{"HttpWithoutPort", "--db /nonexistent --listen 127.0.0.1:0 --http localhost", kServer,
              "puzzledb-server: --http 'localhost' has no port; give host:port, e.g. "
              "127.0.0.1:50051 (or '' for no HTTP)"},
        Usage{"TlsCertWithoutKey", "--db /nonexistent --listen 127.0.0.1:0 --tls-cert c.pem",
              kServer, "puzzledb-server: --tls-cert needs --tls-key (the certificate's key)"},
        Usage{"TlsKeyWithoutCert", "--db /nonexistent --listen 127.0.0.1:0 --tls-key k.pem",
              kServer, "puzzledb-server: --tls-key needs --tls-cert (the certificate chain)"}),
    [](const auto& info) { return info.param.label; });

INSTANTIATE_TEST_SUITE_P(
    Build, UsageTest,
    ::testing::Values(
        Usage{"WiringForKnight", "--db /nonexistent --puzzle knight --wiring x.in", kBuild,
              "puzzledb-build: --wiring and --wirings-dir name parameters, which only these "
              "puzzles have: knobs; the knight puzzle has none"},
        Usage{"ParamsForEight", "--db /nonexistent --puzzle eight --params x.in", kBuild,
              "puzzledb-build: --params and --params-dir name parameters, which only these "
              "puzzles have: knobs; the eight puzzle has none"},
        Usage{"MissingParamsDir", "--db /nonexistent --params-dir /nonexistent/params", kBuild,
              "puzzledb-build: --params-dir /nonexistent/params: No such file or directory"},
        Usage{"MissingWiringsDir", "--db /nonexistent --wirings-dir /nonexistent/wirings", kBuild,
              "puzzledb-build: --wirings-dir /nonexistent/wirings: No such file or directory"},
        Usage{"MissingWiringFile", "--db /nonexistent --puzzle knobs --wiring /nonexistent.in",
              kBuild, "puzzledb-build: /nonexistent.in: cannot open"}),
    [](const auto& info) { return info.param.label; });

TEST(UsageTest, AnEmptyWiringsFolderIsRefusedAndNoDatabaseIsMade) {
  const std::string dir = testing::TempPath("empty_wirings");
  const std::string db = testing::TempPath("never_made_db");
  fs::create_directories(dir);
  fs::remove_all(db);
  const auto result = RunCommand(kBuild + " --db " + db + " --wirings-dir " + dir, "");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "puzzledb-build: --wirings-dir " + dir + " holds no *.in files\n");
  // Checked before the knight table (which comes first) was built: no database at all.
  EXPECT_FALSE(fs::exists(db));
  fs::remove_all(dir);
}

TEST(UsageTest, TheBuilderNamesNoSourcePath) {
  const auto help = RunCommand(kBuild + " --help", "");
  EXPECT_EQ(help.exit_code, 0);
  const std::string source = fs::path(PUZZLEDB_TESTS_DIR).parent_path().string();
  EXPECT_EQ(help.out.find(source + "/data"), std::string::npos) << help.out;
}

TEST(UsageTest, BenchAgainstNoServerSaysSoAtOnce) {
  // Port 1 on loopback: nothing listens there.
  const auto result = RunCommand(kCli + " bench --server 127.0.0.1:1 --seconds 30", "");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err.rfind("puzzledb bench: no puzzledb server answers at 127.0.0.1:1: ", 0), 0u)
      << result.err;
  EXPECT_EQ(result.out, "");
}

}  // namespace
}  // namespace puzzledb
