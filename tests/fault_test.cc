// Faults around the database, with the real binaries: builds killed at every stage leave
// the previous tables serving and verifiable; flipped bytes in a table file are caught by
// verify and never answered from; an unpacked copy stands in for damaged pages and is
// passed over when damaged itself.
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "tests/format_v1.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

namespace fs = std::filesystem;
using testing::Golden;
using testing::RunCommand;

std::string Build(const std::string& db, const std::string& args) {
  return std::string(PUZZLEDB_BUILD) + " --quiet --db " + db + " " + args;
}

// The same build, by the crash tests' puzzledb-build, ended abruptly (exit status 86) at a
// point of its table write (tests/crash_build_main.cc).
std::string BuildKilledAt(const std::string& point, const std::string& db, const std::string& args) {
  return "PUZZLEDB_CRASH_AT=" + point + " " + PUZZLEDB_BUILD_CRASHING + " --quiet --db " + db + " " + args;
}

std::string Info(const std::string& db) {
  return RunCommand(std::string(PUZZLEDB_BUILD) + " info --db " + db, "").out;
}

int Verify(const std::string& db, std::string* out = nullptr) {
  const auto result = RunCommand(std::string(PUZZLEDB_BUILD) + " verify --db " + db, "");
  if (out != nullptr) *out = result.out + result.err;
  return result.exit_code;
}

// Builds the golden wiring 9001's knobs table with an unpacked copy (docs/FORMAT.md), which
// a table this small would not get otherwise; the build's exit code.
int BuildKnobsWithCopy(const std::string& db) {
  return RunCommand(Build(db, "--unpacked-copies all --puzzle knobs --wiring " +
                                  std::string(PUZZLEDB_GOLDEN_DIR) + "/knobs_9001.in"),
                    "")
      .exit_code;
}

testing::CommandResult Solve(const std::string& db, const std::string& puzzle,
                             const std::string& sample) {
  return RunCommand(std::string(PUZZLEDB_CLI) + " solve --db " + db + " --puzzle " + puzzle,
                    Golden(sample + ".in"));
}

class FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing::TempPath(::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(db_);
  }
  void TearDown() override { fs::remove_all(db_); }
  std::string db_;
};

TEST_F(FaultTest, BuildsKilledAtEveryStageLeaveTheDatabaseServing) {
  ASSERT_EQ(RunCommand(Build(db_, "--puzzle rotation"), "").exit_code, 0);
  ASSERT_EQ(RunCommand(Build(db_, "--puzzle knight --max-depth 6"), "").exit_code, 0);
  ASSERT_NE(Info(db_).find("to depth 6"), std::string::npos);

  // The programs have no crash hook: puzzledb-build itself reads no PUZZLEDB_CRASH_AT.
  const auto unhooked = RunCommand("PUZZLEDB_CRASH_AT=before-ingest " + Build(db_, "--puzzle rotation"), "");
  EXPECT_EQ(unhooked.exit_code, 0) << unhooked.err;

  // Killed after writing the new table's file, before ingesting it: the old table stays.
  auto crashed = RunCommand(
      BuildKilledAt("before-ingest", db_, "--puzzle knight --max-depth 12"), "");
  EXPECT_EQ(crashed.exit_code, 86) << crashed.err;
  EXPECT_NE(Info(db_).find("to depth 6"), std::string::npos) << Info(db_);
  EXPECT_EQ(Verify(db_), 0);

  // Killed after the ingest, before the old pages are deleted: the new table is whole.
  crashed = RunCommand(
      BuildKilledAt("after-ingest", db_, "--puzzle knight --max-depth 12"), "");
  EXPECT_EQ(crashed.exit_code, 86) << crashed.err;
  EXPECT_NE(Info(db_).find("to depth 12"), std::string::npos) << Info(db_);
  EXPECT_EQ(Verify(db_), 0);

  // SIGKILL in the middle of a full build: once its search has reported depth 10 (of 39;
  // the whole build takes under a second here, so a fixed sleep could come after it).
  const std::string progress = testing::TempPath("fault_knight_progress");
  const auto killed = RunCommand(
      "sh -c '" + std::string(PUZZLEDB_BUILD) + " --db " + db_ + " --puzzle knight 2>" + progress +
          " & pid=$!; while ! grep -q \"depth 10:\" " + progress +
          "; do kill -0 $pid 2>/dev/null || break; sleep 0.005; done; kill -9 $pid; wait $pid'",
      "");
  EXPECT_NE(killed.exit_code, 0) << testing::ReadFile(progress);
  fs::remove(progress);
  EXPECT_NE(Info(db_).find("to depth 12"), std::string::npos) << Info(db_);
  EXPECT_EQ(Verify(db_), 0);

  // And the database answers exactly what it answered before.
  const auto knight = Solve(db_, "knight", "knight");
  EXPECT_EQ(knight.exit_code, 0) << knight.err;
  EXPECT_EQ(knight.out, Golden("knight.out"));
  const auto rotation = Solve(db_, "rotation", "rotation");
  EXPECT_EQ(rotation.out, Golden("rotation.out"));

  // A later build cleans up and completes.
  ASSERT_EQ(RunCommand(Build(db_, "--puzzle knight --max-depth 14"), "").exit_code, 0);
  EXPECT_NE(Info(db_).find("to depth 14"), std::string::npos);
  EXPECT_EQ(Verify(db_), 0);
}

void FlipBytes(const fs::path& file, double fraction) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(0, std::ios::end);
  const auto size = static_cast<double>(f.tellg());
  const auto at = static_cast<std::streamoff>(size * fraction);
  for (int i = 0; i < 8; ++i) {
    f.seekg(at + i * 97);
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0xA5);
    f.seekp(at + i * 97);
    f.write(&c, 1);
  }
}

fs::path LargestSst(const std::string& db) {
  fs::path largest;
  uintmax_t size = 0;
  for (const auto& entry : fs::directory_iterator(db)) {
    if (entry.path().extension() == ".sst" && entry.file_size() > size) {
      size = entry.file_size();
      largest = entry.path();
    }
  }
  return largest;
}

TEST_F(FaultTest, FlippedBytesAreFoundByVerifyAndNeverAnsweredFrom) {
  // With unpacked copies, which these small tables would not get otherwise.
  ASSERT_EQ(BuildKnobsWithCopy(db_), 0);
  ASSERT_EQ(RunCommand(Build(db_, "--unpacked-copies all --puzzle rotation"), "").exit_code, 0);
  ASSERT_EQ(Verify(db_), 0);
  for (double fraction : {0.2, 0.5, 0.8}) {
    SCOPED_TRACE(fraction);
    const std::string copy = db_ + "_copy";
    fs::remove_all(copy);
    fs::copy(db_, copy, fs::copy_options::recursive);
    FlipBytes(LargestSst(copy), fraction);
    // And the same table's unpacked copy (docs/FORMAT.md), which would stand in for its
    // pages: its content CRC gives it away, and the pages are read instead.
    fs::path unpacked;
    for (const auto& entry : fs::directory_iterator(fs::path(copy) / "unpacked")) {
      if (unpacked.empty() || entry.file_size() > fs::file_size(unpacked)) unpacked = entry.path();
    }
    ASSERT_FALSE(unpacked.empty());
    FlipBytes(unpacked, fraction);
    std::string report;
    EXPECT_EQ(Verify(copy, &report), 1) << report;
    EXPECT_NE(report.find("FAILED"), std::string::npos) << report;
    // Answers stay exact: from the intact table, or from search where a table was refused.
    const auto knobs = Solve(copy, "knobs", "knobs_9001");
    const auto rotation = Solve(copy, "rotation", "rotation");
    EXPECT_EQ(knobs.exit_code, 0) << knobs.err;
    EXPECT_EQ(knobs.out, Golden("knobs_9001.out"));
    EXPECT_EQ(rotation.out, Golden("rotation.out"));
    EXPECT_NE((knobs.err + rotation.err).find("refusing table"), std::string::npos)
        << knobs.err << rotation.err;
    // The refusal names both: the damaged page and the copy's failed check.
    EXPECT_NE((knobs.err + rotation.err).find("; its unpacked copy "), std::string::npos)
        << knobs.err << rotation.err;
    EXPECT_NE((knobs.err + rotation.err).find("content CRC mismatch"), std::string::npos)
        << knobs.err << rotation.err;
    fs::remove_all(copy);
  }
}

// The unpacked copy (docs/FORMAT.md) with the real binaries: damaged pages under a whole
// copy are served from the copy (exactly) and named by verify; a damaged copy over whole
// pages is passed over for them, said on stderr, named by verify, and written again by
// `puzzledb-build unpack`.
TEST_F(FaultTest, AnUnpackedCopyStandsInForDamagedPagesAndIsPassedOverWhenDamaged) {
  ASSERT_EQ(BuildKnobsWithCopy(db_), 0);
  fs::path unpacked;
  for (const auto& entry : fs::directory_iterator(fs::path(db_) / "unpacked")) unpacked = entry.path();
  ASSERT_FALSE(unpacked.empty());
  ASSERT_EQ(Verify(db_), 0);
  const std::string copy = db_ + "_copy";

  // Damaged pages, a whole copy.
  fs::remove_all(copy);
  fs::copy(db_, copy, fs::copy_options::recursive);
  FlipBytes(LargestSst(copy), 0.5);
  std::string report;
  EXPECT_EQ(Verify(copy, &report), 1) << report;
  EXPECT_NE(report.find("knobs-6f811fd419ed03df: FAILED"), std::string::npos) << report;
  auto knobs = Solve(copy, "knobs", "knobs_9001");
  EXPECT_EQ(knobs.exit_code, 0) << knobs.err;
  EXPECT_EQ(knobs.out, Golden("knobs_9001.out"));
  EXPECT_EQ(knobs.err.find("refusing table"), std::string::npos) << knobs.err;

  // Whole pages, a damaged copy.
  fs::remove_all(copy);
  fs::copy(db_, copy, fs::copy_options::recursive);
  const fs::path damaged = fs::path(copy) / "unpacked" / unpacked.filename();
  FlipBytes(damaged, 0.5);
  EXPECT_EQ(Verify(copy, &report), 1) << report;
  EXPECT_NE(report.find("unpacked copy " + damaged.string() + ": content CRC mismatch"),
            std::string::npos)
      << report;
  knobs = Solve(copy, "knobs", "knobs_9001");
  EXPECT_EQ(knobs.exit_code, 0) << knobs.err;
  EXPECT_EQ(knobs.out, Golden("knobs_9001.out"));
  EXPECT_NE(knobs.err.find("content CRC mismatch; read from its pages instead"), std::string::npos)
      << knobs.err;
  // `unpack` without --all leaves a small table alone; with it, writes the copy again.
  auto unpack = RunCommand(std::string(PUZZLEDB_BUILD) + " unpack --db " + copy, "");
  EXPECT_EQ(unpack.exit_code, 0) << unpack.err;
  EXPECT_NE(unpack.out.find("no copy"), std::string::npos) << unpack.out;
  EXPECT_EQ(Verify(copy), 1);
  unpack = RunCommand(std::string(PUZZLEDB_BUILD) + " unpack --all --db " + copy, "");
  EXPECT_EQ(unpack.exit_code, 0) << unpack.err;
  EXPECT_NE(unpack.out.find(damaged.string()), std::string::npos) << unpack.out;
  EXPECT_EQ(Verify(copy, &report), 0) << report;
  knobs = Solve(copy, "knobs", "knobs_9001");
  EXPECT_EQ(knobs.out, Golden("knobs_9001.out"));
  EXPECT_EQ(knobs.err.find("unpacked copy"), std::string::npos) << knobs.err;
  fs::remove_all(copy);
}

// A database of format version 1 (docs/FORMAT.md, "Keys": the record kind first) answers
// as it is; `migrate` moves every table to version 2 and says so; a migration killed
// before or after its ingest leaves the database answering the same, and running it again
// finishes the work.
TEST_F(FaultTest, MigrateMovesAFormat1DatabaseAndSurvivesBeingKilled) {
  ASSERT_EQ(BuildKnobsWithCopy(db_), 0);
  ASSERT_EQ(RunCommand(Build(db_, "--puzzle rotation"), "").exit_code, 0);
  const std::string knobs = Solve(db_, "knobs", "knobs_9001").out;
  const std::string rotation = Solve(db_, "rotation", "rotation").out;
  ASSERT_EQ(knobs, Golden("knobs_9001.out"));
  ASSERT_EQ(rotation, Golden("rotation.out"));
  ASSERT_GT(testing::DowngradeToFormat1(db_), 2);
  ASSERT_NE(Info(db_).find("format 1"), std::string::npos) << Info(db_);
  EXPECT_EQ(Solve(db_, "knobs", "knobs_9001").out, knobs);
  EXPECT_EQ(Solve(db_, "rotation", "rotation").out, rotation);
  ASSERT_EQ(Verify(db_), 0);

  const std::string migrate = std::string(PUZZLEDB_BUILD) + " migrate --db " + db_;
  for (const char* point : {"migrate-before-ingest", "migrate-after-ingest"}) {
    SCOPED_TRACE(point);
    const auto killed = RunCommand(std::string("PUZZLEDB_CRASH_AT=") + point + " " +
                                       PUZZLEDB_BUILD_CRASHING + " migrate --db " + db_,
                                   "");
    EXPECT_EQ(killed.exit_code, 86);
    EXPECT_EQ(Solve(db_, "knobs", "knobs_9001").out, knobs);
    EXPECT_EQ(Solve(db_, "rotation", "rotation").out, rotation);
    EXPECT_EQ(Verify(db_), 0);
  }
  const auto moved = RunCommand(migrate, "");
  EXPECT_EQ(moved.exit_code, 0) << moved.out << moved.err;
  // The table the killed run moved is current; the other is moved now.
  EXPECT_NE(moved.out.find(": format 2 already\n"), std::string::npos) << moved.out;
  EXPECT_NE(moved.out.find(": format 1 -> 2, "), std::string::npos) << moved.out;
  EXPECT_NE(moved.out.find("1 of 2 tables moved to format 2\n"), std::string::npos) << moved.out;
  EXPECT_EQ(Info(db_).find("format 1"), std::string::npos) << Info(db_);
  EXPECT_EQ(Solve(db_, "knobs", "knobs_9001").out, knobs);
  EXPECT_EQ(Solve(db_, "rotation", "rotation").out, rotation);
  std::string verified;
  EXPECT_EQ(Verify(db_, &verified), 0) << verified;
  // The knobs table's unpacked copy kept its name (the generation): verify read it whole.
  EXPECT_EQ(verified.find("unpacked copy"), std::string::npos) << verified;
  const auto again = RunCommand(migrate, "");
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("0 of 2 tables moved to format 2\n"), std::string::npos) << again.out;
}

}  // namespace
}  // namespace puzzledb
