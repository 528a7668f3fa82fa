// 1,000 idle and 500 slowloris connections against the real server's HTTP port on loopback:
// a real client's table answers keep a p99 of at most 20 ms and /healthz answers while they
// are open, the server's memory per open connection stays small, and what they took is
// given back when they leave and taken again by the next wave, never more (tests/http_attack.h; the same figures for any binary: bench/http_attack.sh).
#include <signal.h>

#include <filesystem>

#include "gtest/gtest.h"
#include "tests/http_attack.h"
#include "tests/sanitized.h"
#include "tests/server_process.h"

namespace puzzledb {
namespace {

TEST(HttpAttackTest, IdleAndSlowConnectionsStarveNoClient) {
  testing::RaiseDescriptorLimit();
  const std::string db = testing::CopyOfTestDb("http_attack_db");
  // Deadlines longer than the run, so that every attacker stays open while the client is
  // timed (their ends are the engine tests' business).
  testing::ServerProcess server(PUZZLEDB_SERVER, db,
                                {"--http-head-timeout", "120", "--http-idle-timeout", "120"},
                                testing::TempPath("http_attack.log"));
  ASSERT_GT(server.http_port(), 0) << server.Log();
  testing::AttackOptions options;
  options.port = server.http_port();
  options.pid = server.pid();
  // Two waves: the second finds the memory the first left behind and takes no more.
  const testing::AttackReport first = testing::RunAttack(options);
  testing::PrintAttackReport(options, first);
  const testing::AttackReport second = testing::RunAttack(options);
  testing::PrintAttackReport(options, second);

  for (const testing::AttackReport& report : {first, second}) {
    EXPECT_EQ(report.idle_connected, options.idle);
    EXPECT_EQ(report.slow_connected, options.slow);
    EXPECT_EQ(report.slow_closed_by_server, 0);
    EXPECT_EQ(report.answered, options.requests) << report.first_failure;
    EXPECT_EQ(report.failed, 0);
    EXPECT_EQ(report.healthz_status, 200);
#if PUZZLEDB_TEST_SANITIZED
    // Instrumented code on a busy machine: the bound says "not starved" (cpp-httplib's
    // threads answered 0 of 1,000 under this attack: bench/http_attack.sh), not how fast.
    EXPECT_LE(report.p99_ms, 250.0);
#else
    EXPECT_LE(report.p99_ms, 20.0);
    // A few kB per open connection; once they have gone, at most what one wave took stays
    // with the allocator (measured: 1.5-3.5 kB a connection, 2-5 MB kept after the first
    // wave and none added by the second).
    EXPECT_LE((report.rss_attacked_kb - report.rss_before_kb) * 1024 / (options.idle + options.slow),
              16 * 1024);
    EXPECT_LE(report.rss_after_kb - report.rss_before_kb, 8 * 1024);
#endif
  }
#if !PUZZLEDB_TEST_SANITIZED
  // (AddressSanitizer holds freed memory in quarantine: resident memory says nothing there.)
  EXPECT_LE(second.rss_after_kb, first.rss_after_kb + 2048);
#endif
  EXPECT_EQ(server.Stop(SIGTERM), 0) << server.Log();
  std::filesystem::remove_all(db);
}

}  // namespace
}  // namespace puzzledb
