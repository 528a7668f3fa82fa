// Puzzles as data through the real binaries: puzzledb-build --definition builds a table and
// stores the definition with it; puzzledb answers from the database alone (solve, census,
// sample), info and verify describe and check it; every broken rule is refused naming the
// file, the line and the rule, before a database is made.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "client/backend.h"
#include "core/defined/defined_patterns.h"
#include "core/definition/read_definition.h"
#include "core/table/table_format.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "puzzledb/storage/v1/table.pb.h"
#include "puzzledb/v1/solver.pb.h"
#include "rocksdb/db.h"
#include "tests/definition_brute_force.h"
#include "tests/edit_metadata.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace definition_cli_test {

using testing::RunCommand;
namespace fs = std::filesystem;

const std::string kCli = PUZZLEDB_CLI;
const std::string kBuild = PUZZLEDB_BUILD;
// puzzledb-build as the crash tests run it: PUZZLEDB_CRASH_AT ends it at a point of a table
// write (tests/crash_build_main.cc).
const std::string kBuildCrashing = PUZZLEDB_BUILD_CRASHING;

std::string Sample(const std::string& name) {
  return std::string(PUZZLEDB_GOLDEN_DIR) + "/definitions/" + name;
}

// Writes `text` as the file `name` (so that messages name it) in a folder of the test's.
std::string Write(const std::string& name, const std::string& text) {
  const fs::path folder = testing::TempPath("definitions");
  fs::create_directories(folder);
  const std::string path = (folder / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

using testing::EditMetadata;

class DefinitionCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing::TempPath("definition_cli_db");
    fs::remove_all(db_);
  }
  void TearDown() override { fs::remove_all(db_); }
  std::string db_;
};

TEST_F(DefinitionCliTest, ABuiltDefinitionIsAnsweredFromTheDatabaseAlone) {
  const auto built = RunCommand(kBuild + " --db " + db_ + " -q --definition " + Sample("slide32.tws") +
                                    " --definition " + Sample("cube2urf.tws"),
                                "");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_EQ(built.out.rfind("slide32: 360 of 720 states, complete, largest distance 21, ", 0), 0u)
      << built.out;
  EXPECT_NE(built.out.find("\ncube2urf: 3,674,160 of 3,674,160 states, complete, largest distance 11, "),
            std::string::npos)
      << built.out;
  for (const std::string name : {"slide32", "cube2urf"}) {
    const auto solved = RunCommand(kCli + " solve --db " + db_ + " --puzzle " + name,
                                   testing::ReadFile(Sample(name + ".in")));
    EXPECT_EQ(solved.exit_code, 0) << solved.err;
    EXPECT_EQ(solved.out, testing::ReadFile(Sample(name + ".out"))) << name;
  }
  // --show draws every board on the way, a set a row; the last is the goal.
  const auto shown = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32 --show", "1 6 3 2 5 4\n");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  std::vector<std::string> boards;
  std::istringstream show_lines(shown.out);
  for (std::string line; std::getline(show_lines, line);) {
    if (line.rfind("T ", 0) == 0) boards.push_back(line);
  }
  ASSERT_EQ(boards.size(), 15u) << shown.out;  // the start and 14 moves
  std::string last = boards.back();
  std::erase_if(last, [](char c) { return c == '[' || c == ']' || c == ' '; });
  EXPECT_EQ(last, "T123456") << shown.out;
  EXPECT_NE(shown.out.find("move 14 of 14: D"), std::string::npos) << shown.out;

  const auto census = RunCommand(kCli + " census --db " + db_ + " --puzzle cube2urf", "");
  EXPECT_EQ(census.exit_code, 0) << census.err;
  EXPECT_EQ(census.out,
            "0 1\n1 9\n2 54\n3 321\n4 1847\n5 9992\n6 50136\n7 227536\n8 870072\n9 1887748\n"
            "10 623800\n11 2644\n");
  const auto info = RunCommand(kBuild + " info --db " + db_, "");
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("  puzzle        slide32, file slide32.tws, crc32 "), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("  sets          T 6\n  moves         U D L R\n  index         720 = T placements 720\n"),
            std::string::npos)
      << info.out;
  EXPECT_NE(info.out.find("  moves         U U2 U' R R2 R' F F2 F'\n"), std::string::npos) << info.out;
  // The blank's steps have their ways back: 2 bits a state.
  EXPECT_NE(info.out.find("  ways back     every block has a way back (a block that undoes it): a "
                          "complete table keeps 2 bits a state\n"),
            std::string::npos)
      << info.out;
  EXPECT_NE(info.out.find("  encoding      distance mod 3, 2 bits"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("  symmetry      none found\n"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("  symmetry      none looked for (pieces turn)\n"), std::string::npos) << info.out;
  const auto verified = RunCommand(kBuild + " verify --db " + db_, "");
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
  // A bad state is refused naming the set and the rule.
  const auto bad = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32", "1 2 3 4 5 5\n");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "puzzledb: case 1, line 1: set T: holds label 5 2 times, the goal once (a state "
            "holds the goal's pieces, moved): '1 2 3 4 5 5'\n");
  // Drawn at the largest distance, and solved back at that distance.
  const auto drawn = RunCommand(kCli + " sample --db " + db_ + " --puzzle slide32 --distance max --count 3 --seed 7", "");
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  const auto back = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32", drawn.out);
  EXPECT_EQ(back.out.substr(0, 3), "21 ") << back.out;
}

// One message of each JSON line of the command line's output.
template <class Message>
std::vector<Message> JsonLines(const std::string& text) {
  std::vector<Message> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    Message& m = out.emplace_back();
    const auto status = google::protobuf::util::JsonStringToMessage(line, &m);
    EXPECT_TRUE(status.ok()) << status << ": " << line;
  }
  return out;
}

// --count, --all-optimal and analyze on every state of three definitions (guarded, identical
// pieces, orientations), against the tests' own search: the number of optimal solutions,
// the first 30 of them in canonical order, and the distance after every move that applies.
TEST_F(DefinitionCliTest, CountsListsAndAnalysesAgreeWithTheBruteForce) {
  for (const std::string name : {"slide32", "pancake5", "dials3"}) {
    SCOPED_TRACE(name);
    ASSERT_EQ(RunCommand(kBuild + " --db " + db_ + " -q --definition " + Sample(name + ".tws"), "").exit_code, 0);
    const std::string text = testing::ReadFile(Sample(name + ".tws"));
    auto definition = ReadDefinition(text, name + ".tws");
    ASSERT_TRUE(definition.ok()) << definition.status();
    const testing::BruteForce all(*definition);
    std::string input;
    for (const DefinedState& s : all.states()) input += definition->FormatCompact(s) + "\n";
    const auto solved = RunCommand(kCli + " solve --db " + db_ + " --puzzle " + name +
                                       " --count --all-optimal 30 --json", input);
    ASSERT_EQ(solved.exit_code, 0) << solved.err;
    const auto answers = JsonLines<v1::SolveResponse>(solved.out);
    ASSERT_EQ(answers.size(), all.size());
    const auto analyzed = RunCommand(kCli + " analyze --db " + db_ + " --puzzle " + name + " --json", input);
    ASSERT_EQ(analyzed.exit_code, 0) << analyzed.err;
    const auto analyses = JsonLines<v1::AnalyzeResponse>(analyzed.out);
    ASSERT_EQ(analyses.size(), all.size());
    uint64_t several = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      const DefinedState& s = all.states()[i];
      const std::string compact = definition->FormatCompact(s);
      EXPECT_EQ(answers[i].optimal_count(), std::to_string(all.OptimalCount(s))) << compact;
      std::vector<std::string> listed;
      for (const auto& solution : answers[i].solutions()) {
        std::string line;
        for (const std::string& m : solution.moves()) line += (line.empty() ? "" : " ") + m;
        listed.push_back(line);
      }
      // One optimal solution is not listed apart from the answer's moves.
      const auto want = all.FirstOptimal(s, 30);
      if (want.size() > 1) {
        EXPECT_EQ(listed, want) << compact;
      }
      several += want.size() > 1;
      std::map<std::string, int> after;
      DefinedState next;
      for (int m = 0; m < static_cast<int>(definition->moves().size()); ++m) {
        if (definition->Apply(s, m, &next)) after[definition->moves()[static_cast<size_t>(m)].name] = all.DistanceOf(next);
      }
      std::map<std::string, int> got;
      for (const auto& move : analyses[i].moves()) {
        got[move.move()] = move.outcome() == v1::SOLVED ? static_cast<int>(move.distance()) : -1;
      }
      EXPECT_EQ(got, after) << compact;
      EXPECT_EQ(static_cast<int>(analyses[i].distance()), all.distance(i)) << compact;
    }
    EXPECT_GT(several, 0u) << "no state with several optimal solutions: the lists were not checked";
  }
}

TEST_F(DefinitionCliTest, ScramblesAreAnsweredAsTheOriginalOutput) {
  ASSERT_EQ(RunCommand(kBuild + " --db " + db_ + " -q --definition " + Sample("cube2urf.tws"), "").exit_code, 0);
  const auto solved = RunCommand(kCli + " solve --scramble --db " + db_ + " --puzzle cube2urf",
                                 testing::ReadFile(Sample("cube2urf_scramble.in")));
  EXPECT_EQ(solved.exit_code, 0) << solved.err;
  EXPECT_EQ(solved.out, testing::ReadFile(Sample("cube2urf_scramble.out")));
}

// A build killed before its table is in (and after) leaves the database serving what it
// served: the earlier table, then both.
TEST_F(DefinitionCliTest, AKilledBuildLeavesTheEarlierTablesServing) {
  ASSERT_EQ(RunCommand(kBuild + " --db " + db_ + " -q --definition " + Sample("slide32.tws"), "").exit_code, 0);
  const auto killed = RunCommand("PUZZLEDB_CRASH_AT=before-ingest " + kBuildCrashing + " --db " + db_ +
                                     " -q --definition " + Sample("pancake5.tws"),
                                 "");
  EXPECT_EQ(killed.exit_code, 86) << killed.err;
  const auto tables = RunCommand(kCli + " tables --db " + db_, "");
  EXPECT_EQ(tables.out.find("pancake5"), std::string::npos) << tables.out;
  const auto solved = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32",
                                 testing::ReadFile(Sample("slide32.in")));
  EXPECT_EQ(solved.out, testing::ReadFile(Sample("slide32.out"))) << solved.err;
  const auto after = RunCommand("PUZZLEDB_CRASH_AT=after-ingest " + kBuildCrashing + " --db " + db_ +
                                    " -q --definition " + Sample("pancake5.tws"),
                                "");
  EXPECT_EQ(after.exit_code, 86) << after.err;
  const auto pancakes = RunCommand(kCli + " solve --db " + db_ + " --puzzle pancake5",
                                   testing::ReadFile(Sample("pancake5.in")));
  EXPECT_EQ(pancakes.out, testing::ReadFile(Sample("pancake5.out"))) << pancakes.err;
  EXPECT_EQ(RunCommand(kBuild + " verify --db " + db_, "").exit_code, 0);
}

// A stored definition whose text no longer matches its checksum is never trusted: not
// served, and verify fails it, saying why.
TEST_F(DefinitionCliTest, ADamagedDefinitionRecordIsRefused) {
  ASSERT_EQ(RunCommand(kBuild + " --db " + db_ + " -q --definition " + Sample("slide32.tws"), "").exit_code, 0);
  EditMetadata(db_, "slide32", [](storage::v1::TableMetadata* m) {
    // Still a definition that reads, and the same table's size: only the checksum tells.
    std::string text = m->parameters();
    const size_t at = text.find("Name Slide32");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 12, "Name Slide33");
    m->set_parameters(text);
  });
  const auto verify = RunCommand(kBuild + " verify --db " + db_, "");
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_NE(verify.err.find("not serving slide32: its stored definition fails its checksum"),
            std::string::npos)
      << verify.err;
  EXPECT_NE(verify.out.find("slide32: FAILED: table slide32: its stored definition fails its checksum"),
            std::string::npos)
      << verify.out;
  const auto solved = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32", "1 2 3 4 5 6\n");
  EXPECT_EQ(solved.exit_code, 2);
  EXPECT_NE(solved.err.find("not serving slide32: its stored definition fails its checksum"),
            std::string::npos)
      << solved.err;
  EXPECT_NE(solved.err.find("unknown puzzle 'slide32'"), std::string::npos) << solved.err;
  // Listed as refused, with why, as a damaged table is.
  const auto tables = RunCommand(kCli + " tables --db " + db_, "");
  EXPECT_NE(tables.out.find("slide32  REFUSED: its stored definition fails its checksum"), std::string::npos)
      << tables.out;
  EXPECT_EQ(tables.out.find("AVAILABLE"), std::string::npos) << tables.out;
}

// A table laid out by another version of the index (docs/FORMAT.md, "A definition's
// table") is refused, saying to rebuild it, never read with this version's numbers.
TEST_F(DefinitionCliTest, ATableOfAnotherIndexLayoutIsRefused) {
  ASSERT_EQ(RunCommand(kBuild + " --db " + db_ + " -q --definition " + Sample("slide32.tws"), "").exit_code, 0);
  EditMetadata(db_, "slide32", [](storage::v1::TableMetadata* m) {
    std::string text = m->parameters();
    ASSERT_EQ(text.rfind("puzzledb definition, twists by piece, index layout 2\n", 0), 0u) << text.substr(0, 60);
    text.replace(0, text.find('\n'), "puzzledb definition, twists by piece, index layout 1");
    m->set_parameters(text);
  });
  const auto solved = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32", "1 2 3 4 5 6\n");
  EXPECT_EQ(solved.exit_code, 2);
  EXPECT_NE(solved.err.find("not serving slide32: its table follows another layout of the index "
                            "('twists by piece, index layout 1'; this puzzledb's are 'twists by "
                            "piece, index layout 2', 'twists by piece, index layout 3', 'twists by "
                            "piece, index layout 4', 'twists by piece, index layout 5'): rebuild it "
                            "with puzzledb-build --definition"),
            std::string::npos)
      << solved.err;
  const auto verify = RunCommand(kBuild + " verify --db " + db_, "");
  EXPECT_EQ(verify.exit_code, 1) << verify.out;
  // Built again, it serves.
  ASSERT_EQ(RunCommand(kBuild + " --db " + db_ + " -q --definition " + Sample("slide32.tws"), "").exit_code, 0);
  const auto again = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32", "1 2 3 4 5 6\n");
  EXPECT_EQ(again.exit_code, 0) << again.err;

  // A definition whose index has an arrangement and symmetry classes (layout 4) writes that
  // layout; a table of it that says layout 3 (as one stored before layout 4 did) is refused.
  ASSERT_EQ(RunCommand(kBuild + " --db " + db_ + " -q --definition " + Sample("twocolour33.tws"), "").exit_code, 0);
  const std::string board = "1 1 1 1 2 2 2 2 3\n";
  const auto served = RunCommand(kCli + " solve --db " + db_ + " --puzzle twocolour33", board);
  ASSERT_EQ(served.exit_code, 0) << served.err;
  const auto classes = RunCommand(kBuild + " info --db " + db_, "");
  EXPECT_NE(classes.out.find("  index         350 = 5 classes of 9 placements under 2 symmetries x 70 (of 630 = "
                             "B placements 9 x B arrangement 70)\n"),
            std::string::npos)
      << classes.out;
  EXPECT_NE(classes.out.find("  symmetry      a group of 2: one entry per class of positions (layout 4)\n"),
            std::string::npos)
      << classes.out;
  EditMetadata(db_, "twocolour33", [](storage::v1::TableMetadata* m) {
    std::string text = m->parameters();
    ASSERT_EQ(text.rfind("puzzledb definition, twists by piece, index layout 4\n", 0), 0u) << text.substr(0, 60);
    text.replace(0, text.find('\n'), "puzzledb definition, twists by piece, index layout 3");
    m->set_parameters(text);
  });
  const auto older = RunCommand(kCli + " solve --db " + db_ + " --puzzle twocolour33", board);
  EXPECT_EQ(older.exit_code, 2);
  EXPECT_NE(older.err.find("not serving twocolour33: its table follows another layout of the index "
                           "('twists by piece, index layout 3'; this puzzledb lays this definition out "
                           "as 'twists by piece, index layout 4'): rebuild it with puzzledb-build --definition"),
            std::string::npos)
      << older.err;
}

// A table stored by a puzzledb that read move orientations by destination (before
// 2026-12, docs/PUZZLES.md, section 7) is never served as if read by piece: it is refused,
// naming puzzledb-build migrate, which rewrites its stored file in today's reading with the
// same meaning and keeps the table. The cube's file as that puzzledb was given it (its two
// twisting moves' orientation lines by destination) becomes today's sample byte for byte;
// a pattern table's record, whose checksum covers its projections, is rewritten too.
TEST_F(DefinitionCliTest, ATableStoredUnderTheOldReadingIsMigrated) {
  const std::string today = testing::ReadFile(Sample("cube2urf.tws"));
  std::string old = today;
  for (const auto& [now, before] : {std::pair<std::string, std::string>{"2 1 1 0 2 0 0 0", "1 2 2 0 1 0 0 0"},
                                    {"1 2 0 1 0 0 2 0", "2 1 0 2 0 0 1 0"}}) {
    ASSERT_NE(old.find(now), std::string::npos) << now;
    old.replace(old.find(now), now.size(), before);
  }
  const std::string header = "puzzledb definition, twists by piece, index layout 2\n";
  const std::string legacy_header = "puzzledb definition, index layout 2\n";
  ASSERT_EQ(RunCommand(kBuild + " --db " + db_ + " -q --definition " + Sample("cube2urf.tws"), "").exit_code, 0);
  ASSERT_EQ(RunCommand(kBuild + " --db " + db_ + " -q --threads 2 --definition " + Sample("slide32.tws") +
                           " --projection 'T 1-2 ~6' --projection 'T 3-5 ~6'",
                       "")
                .exit_code,
            0);
  // Each record as the older puzzledb wrote it: its header, its file, their checksums.
  const auto make_legacy = [&](const std::string& id, const std::string& file_text) {
    EditMetadata(db_, id, [&](storage::v1::TableMetadata* m) {
      ASSERT_EQ(m->parameters().rfind(header, 0), 0u);
      const bool patterns = m->projections_size() > 0;
      m->set_parameters(legacy_header + file_text);
      m->set_parameters_fingerprint(patterns ? DefinedPatternsFingerprint(file_text, *m) : Crc32(file_text));
      std::string described = m->parameters_text();
      char crc[9];
      std::snprintf(crc, sizeof crc, "%08x", Crc32(file_text));
      described.replace(described.find(", crc32 ") + 8, 8, crc);
      m->set_parameters_text(described);
    });
  };
  make_legacy("cube2urf", old);
  make_legacy("slide32-patterns", testing::ReadFile(Sample("slide32.tws")));
  for (const std::string puzzle : {"cube2urf", "slide32"}) {
    const auto refused = RunCommand(kCli + " solve --db " + db_ + " --puzzle " + puzzle,
                                    testing::ReadFile(Sample(puzzle + ".in")));
    EXPECT_EQ(refused.exit_code, 2) << refused.out;
    EXPECT_NE(refused.err.find("not serving " + puzzle + ": its definition was stored by a puzzledb that "
                               "read move orientations by destination, not by piece as twsearch "
                               "does (docs/PUZZLES.md, section 7), and may name another puzzle now: "
                               "puzzledb-build migrate --db " + db_ + " rewrites it in today's reading"),
              std::string::npos)
        << refused.err;
  }
  const auto verify = RunCommand(kBuild + " verify --db " + db_, "");
  EXPECT_EQ(verify.exit_code, 1) << verify.out;

  const auto migrated = RunCommand(kBuild + " migrate --db " + db_, "");
  ASSERT_EQ(migrated.exit_code, 0) << migrated.out << migrated.err;
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08x", Crc32(today));
  EXPECT_NE(migrated.out.find(std::string("cube2urf: its definition in today's reading of move orientations "
                                          "(file cube2urf.tws, crc32 ") + crc + ") ("),
            std::string::npos)
      << migrated.out;
  EXPECT_NE(migrated.out.find("slide32-patterns: its definition in today's reading of move orientations "
                              "(file slide32.tws, crc32 "),
            std::string::npos)
      << migrated.out;
  EXPECT_NE(migrated.out.find("0 of 2 tables moved to format 2, 2 definitions rewritten in today's reading\n"),
            std::string::npos)
      << migrated.out;
  EditMetadata(db_, "cube2urf", [&](storage::v1::TableMetadata* m) {
    EXPECT_EQ(m->parameters(), header + today) << "the old file in today's reading is today's sample";
    EXPECT_EQ(m->parameters_fingerprint(), Crc32(today));
  });
  for (const std::string puzzle : {"cube2urf", "slide32"}) {
    const auto solved = RunCommand(kCli + " solve --db " + db_ + " --puzzle " + puzzle,
                                   testing::ReadFile(Sample(puzzle + ".in")));
    EXPECT_EQ(solved.exit_code, 0) << solved.err;
    EXPECT_EQ(solved.out, testing::ReadFile(Sample(puzzle + ".out"))) << puzzle;
  }
  const auto scrambled = RunCommand(kCli + " solve --db " + db_ + " --puzzle cube2urf --scramble",
                                    testing::ReadFile(Sample("cube2urf_scramble.in")));
  EXPECT_EQ(scrambled.out, testing::ReadFile(Sample("cube2urf_scramble.out")));
  const auto verified = RunCommand(kBuild + " verify --db " + db_, "");
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  const auto again = RunCommand(kBuild + " migrate --db " + db_, "");
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("cube2urf: format 2 already\n"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("0 of 2 tables moved to format 2\n"), std::string::npos) << again.out;

  // A file of one's own, rewritten: on standard output, or a refusal naming the line.
  const auto file = RunCommand(kBuild + " migrate --definition " + Write("cube2urf.tws", old), "");
  EXPECT_EQ(file.exit_code, 0) << file.err;
  EXPECT_EQ(file.out, today);
  const auto bad = RunCommand(kBuild + " migrate --definition " + Write("bad.tws", "Set T 3 1\nMove\n"), "");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "puzzledb-build migrate: bad.tws:2: Move takes one name (Move U), got 0 words\n");
  const auto missing = RunCommand(kBuild + " migrate --definition /nonexistent/x.tws", "");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("puzzledb-build migrate: --definition /nonexistent/x.tws: "), std::string::npos)
      << missing.err;
}

// A client makes a server's definition a puzzle only when it reads the file as the server
// does: from a server that read move orientations by destination (no definition_reading),
// the file, read today's way, may be another puzzle, and is not made one.
TEST(DefinitionReadingTest, AClientReadsAServersFileOnlyInTheServersReading) {
  const std::string text = testing::ReadFile(Sample("cube2urf.tws"));
  for (const uint32_t reading : {0u, 2u}) {
    const std::string name = "listed_cube_" + std::to_string(reading);
    v1::ListPuzzlesResponse listed;
    v1::PuzzleInfo* info = listed.add_puzzles();
    info->set_name(name);
    info->set_definition(text);
    info->set_definition_reading(reading);
    std::vector<std::string> logged;
    const Puzzle* found = FindPuzzleOf(
        name, [&]() -> absl::StatusOr<v1::ListPuzzlesResponse> { return listed; },
        [&](std::string_view line) { logged.emplace_back(line); });
    if (reading == 2) {
      ASSERT_NE(found, nullptr);
      EXPECT_EQ(found->definition(), text);
      EXPECT_TRUE(logged.empty());
    } else {
      EXPECT_EQ(found, nullptr);
      ASSERT_EQ(logged.size(), 1u);
      EXPECT_EQ(logged[0], "the server's puzzle " + name + " cannot be read here: the server reads its "
                           "definition's move orientations by destination, as puzzledb did before it "
                           "read them by piece (docs/PUZZLES.md, section 7); upgrade the server");
    }
  }
}

// A definition of more moves than a complete table's walk takes (64; here 82: three moves
// of order 28 with their powers, and a swap) is given pattern tables and answered by their
// search, as docs/PUZZLES.md allows up to 250: every state the brute force reaches, its
// distance and smallest moves; analysed too; and over the 250 refused naming the limit.
TEST_F(DefinitionCliTest, MoreMovesThanATableWalkTakesGetPatternTables) {
  const std::string text =
      "Name Many moves\nSet A 7 1\nSet B 4 1\nSolved\nEnd\n"
      "Move X\nA\n2 3 4 5 6 7 1\nB\n2 3 4 1\nEnd\n"
      "Move Y\nA\n4 5 6 7 1 2 3\nB\n4 1 2 3\nEnd\n"
      "Move Z\nA\n6 7 1 2 3 4 5\nB\n2 3 4 1\nEnd\n"
      "Move W\nB\n2 1 3 4\nEnd\n";
  auto definition = ReadDefinition(text, "many.tws");
  ASSERT_TRUE(definition.ok()) << definition.status();
  ASSERT_EQ(definition->moves().size(), 82u);
  const auto built = RunCommand(kBuild + " --db " + db_ + " --threads 2 --definition " + Write("many.tws", text), "");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(built.out.find("many-patterns: pattern tables of file many.tws"), std::string::npos) << built.out;
  EXPECT_NE(built.err.find("82 moves with their powers, more than a complete table's walk takes (64)"),
            std::string::npos)
      << built.err;
  const testing::BruteForce all(*definition);
  std::string input, want;
  for (const DefinedState& state : all.states()) {
    input += definition->FormatCompact(state) + "\n";
    want += all.Answer(state) + "\n";
  }
  const auto solved = RunCommand(kCli + " solve --db " + db_ + " --puzzle many", input);
  EXPECT_EQ(solved.exit_code, 0) << solved.err;
  EXPECT_EQ(solved.out, want);
  const auto analyzed = RunCommand(kCli + " analyze --db " + db_ + " --puzzle many --json", input);
  EXPECT_EQ(analyzed.exit_code, 0) << analyzed.err;
  EXPECT_EQ(JsonLines<v1::AnalyzeResponse>(analyzed.out).size(), all.size());
  // Past the reader's 250 (a move of order 255 brings 254 powers): refused, naming it.
  const auto over = RunCommand(kBuild + " --db " + db_ + " --definition " +
                                   Write("over.tws", "Set A 255 1\nSolved\nEnd\nMove M\nA\n" + [] {
                                     std::string cycle;
                                     for (int j = 2; j <= 255; ++j) cycle += std::to_string(j) + " ";
                                     return cycle + "1";
                                   }() + "\nEnd\n"),
                               "");
  EXPECT_EQ(over.exit_code, 2);
  EXPECT_NE(over.err.find("over.tws:4: Move M: with its powers (order over 250) the puzzle would have more than 250 moves"),
            std::string::npos)
      << over.err;
}

// A definition built with pattern tables of projections (--projection) is answered by the
// live search they guide: the same answers as its complete table, from SEARCH; info lists
// the projections; sampling says why it cannot; verify checks the tables; a damaged one is
// never trusted; building the complete table again removes the pattern tables.
// Projections with the blank free (~6): the tables count each group's own moves and add up;
// the answers are the samples', info and verify name them as written, and a projection
// whose search (the blank told apart) passes --pattern-memory is refused, saying so.
// The rotation game as data (data/puzzles/rotation.tws: three goals, the centre one value
// and the rest left to any piece): the builder chooses each goal's own table, one table for
// the three, and the answers are the golden output's (POJ 2286's moves, one per board).
TEST_F(DefinitionCliTest, GoalsThatLeaveCellsFreeGetTablesOfTheirOwn) {
  const std::string file = std::string(PUZZLEDB_GOLDEN_DIR) + "/../../data/puzzles/rotation.tws";
  const auto built =
      RunCommand(kBuild + " --db " + db_ + " --threads 2 --name rotation_as_data --definition " + file, "");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(built.err.find("projections of rotation_as_data chosen: each goal's own table (the pieces it names)"),
            std::string::npos)
      << built.err;
  const auto info = RunCommand(kBuild + " info --db " + db_, "");
  EXPECT_NE(info.out.find("  projection    goal 1: B 1: 735,471 entries (0.7 MB), largest 14, average 9.87\n"),
            std::string::npos)
      << info.out;
  EXPECT_NE(info.out.find("  projection    goal 3: B 3: 735,471 entries, those of projection 1 (the same puzzle), "
                          "largest 14"),
            std::string::npos)
      << info.out;
  EXPECT_NE(info.out.find("  distances     largest 14; per distance 1 8 44 208 876 3220 10498 30236 73982 146466 "
                          "208170 178588 72941 10045 188\n"),
            std::string::npos)
      << info.out;
  // Exact tables: the search walks straight down them, with no duplicate sequences to skip.
  EXPECT_NE(info.out.find("  duplicates    none looked for: the tables are exact for every goal"),
            std::string::npos)
      << info.out;
  const auto verified = RunCommand(kBuild + " verify --db " + db_, "");
  EXPECT_EQ(verified.exit_code, 0) << verified.err << verified.out;
  // The listing says what a goal is and which pieces a state holds.
  const auto listed = RunCommand(kCli + " puzzles --db " + db_, "");
  EXPECT_NE(listed.out.find("the first of 3 goals is ? ? ? ? ? ? 1 1 1 ? ? 1 1 ? ? 1 1 1 ? ? ? ? ? ? ('?': any "
                            "piece); the pieces: B 1 x8, 2 x8, 3 x8"),
            std::string::npos)
      << listed.out;
  // The golden boards (the line "0" ends them) and answers (the letters, then the centre).
  std::istringstream in(testing::ReadFile(std::string(PUZZLEDB_GOLDEN_DIR) + "/rotation.in"));
  std::istringstream out(testing::ReadFile(std::string(PUZZLEDB_GOLDEN_DIR) + "/rotation.out"));
  std::string boards, want, line, letters, centre;
  while (std::getline(in, line) && line != "0") {
    boards += line + "\n";
    std::getline(out, letters);
    std::getline(out, centre);
    if (letters == "No moves needed") {
      want += "0\n";
      continue;
    }
    want += std::to_string(letters.size());
    for (const char c : letters) want += std::string(" ") + c;
    want += "\n";
  }
  ASSERT_GE(want.size(), 40u);
  const auto solved = RunCommand(kCli + " solve --db " + db_ + " --puzzle rotation_as_data", boards);
  EXPECT_EQ(solved.exit_code, 0) << solved.err;
  EXPECT_EQ(solved.out, want);
}

TEST_F(DefinitionCliTest, ProjectionsWithAFreePieceAddUpAndAnswerExactly) {
  const std::string build = kBuild + " --db " + db_ + " --threads 2 --definition " + Sample("slide32.tws");
  const auto built = RunCommand(build + " --projection 'T 1-2 ~6' --projection 'T 3-5 ~6'", "");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(built.out.find("; projections T 1-2 ~6 | T 3-5 ~6, 150 entries, largest distance "),
            std::string::npos)
      << built.out;
  const auto solved = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32",
                                 testing::ReadFile(Sample("slide32.in")));
  EXPECT_EQ(solved.exit_code, 0) << solved.err;
  EXPECT_EQ(solved.out, testing::ReadFile(Sample("slide32.out")));
  const auto info = RunCommand(kBuild + " info --db " + db_, "");
  EXPECT_NE(info.out.find("  projection    T 1-2 ~6: 30 entries (0.0 MB), largest "), std::string::npos)
      << info.out;
  const auto verified = RunCommand(kBuild + " verify --db " + db_, "");
  EXPECT_EQ(verified.exit_code, 0) << verified.err << verified.out;
  const auto big = RunCommand(build + " --projection 'T 1-4 ~6' --build-memory 500", "");
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_EQ(big.err,
            "puzzledb-build: slide32.tws: --projection 'T 1-4 ~6': its search tells the free "
            "pieces apart: it takes 720 bytes while it is built, more than 500 (--build-memory)\n")
      << big.err;
}

TEST_F(DefinitionCliTest, PatternTablesOfProjectionsGuideTheLiveSearch) {
  const std::string build = kBuild + " --db " + db_ + " --threads 2 --definition " + Sample("slide32.tws");
  const auto built = RunCommand(build + " --projection 'T 1-2,6' --projection 'T 3-5'", "");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_EQ(built.out.rfind("slide32-patterns: pattern tables of file slide32.tws, crc32 ", 0), 0u) << built.out;
  EXPECT_NE(built.out.find("; projections T 1-2,6 | T 3-5, 240 entries, largest distance "), std::string::npos)
      << built.out;
  EXPECT_NE(built.err.find("building slide32-patterns, projection 1 of 2: T 1-2,6\n"), std::string::npos) << built.err;
  const auto solved = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32",
                                 testing::ReadFile(Sample("slide32.in")));
  EXPECT_EQ(solved.exit_code, 0) << solved.err;
  EXPECT_EQ(solved.out, testing::ReadFile(Sample("slide32.out")));
  const auto json = RunCommand(kCli + " solve --json --db " + db_ + " --puzzle slide32", "1 6 3 2 5 4\n");
  EXPECT_NE(json.out.find("\"distance\":14}"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"source\":\"SEARCH\""), std::string::npos) << json.out;
  // Searched, or (slide32's 360 states are all near the goal) looked up in the perimeter.
  EXPECT_EQ(json.out.find("\"lookups\":\"0\",\"nodes\":\"0\""), std::string::npos) << json.out;
  // Unsolvable: the moves' invariant (the parity) says so before any search.
  const auto odd = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32", "2 1 3 4 5 6\n");
  EXPECT_EQ(odd.out, "-1\n") << odd.err;

  const auto info = RunCommand(kBuild + " info --db " + db_, "");
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("  projection    T 1-2,6: 120 entries (0.0 MB), largest "), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("  projection    T 3-5: 120 entries"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("  index         none: built with pattern tables\n"), std::string::npos) << info.out;
  const auto drawn = RunCommand(kCli + " sample --db " + db_ + " --puzzle slide32 --distance 3", "");
  EXPECT_NE(drawn.exit_code, 0);
  EXPECT_NE(drawn.err.find("sampling draws states at an exact distance from a complete table, and the "
                           "slide32 puzzle has none"),
            std::string::npos)
      << drawn.err;
  const auto verified = RunCommand(kBuild + " verify --db " + db_, "");
  EXPECT_EQ(verified.exit_code, 0) << verified.err << verified.out;

  // The duplicate block sequences the search skips: listed; one changed (its checksum made
  // to match) is caught by verify's fresh search; one naming no block is never loaded.
  EXPECT_NE(info.out.find("  duplicates    22 block sequences the search skips, every one of up to 10 blocks\n"),
            std::string::npos)
      << info.out;
  auto edit_duplicate = [&](uint32_t block) {
    uint32_t was = 0;
    EditMetadata(db_, "slide32-patterns", [&](storage::v1::TableMetadata* m) {
      const int last = m->duplicates().blocks_size() - 1;
      was = m->duplicates().blocks(last);
      m->mutable_duplicates()->set_blocks(last, block);
      std::string text = m->parameters();
      text.erase(0, text.find('\n') + 1);
      m->set_parameters_fingerprint(DefinedPatternsFingerprint(text, *m));
    });
    return was;
  };
  const uint32_t kept_block = edit_duplicate(0);
  ASSERT_NE(kept_block, 0u);
  const auto stale = RunCommand(kBuild + " verify --db " + db_, "");
  EXPECT_EQ(stale.exit_code, 1);
  EXPECT_NE(stale.out.find("slide32-patterns: FAILED: table slide32-patterns: its duplicate sequences differ "
                           "from a fresh search's, from sequence 22 (22 stored, 22 found)"),
            std::string::npos)
      << stale.out;
  // Refused, the tables are not used: the answer comes from a search without them.
  edit_duplicate(1000);
  const auto unloaded = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32", "1 6 3 2 5 4\n");
  EXPECT_EQ(unloaded.exit_code, 0) << unloaded.err;
  EXPECT_EQ(unloaded.out, "14 D L U R D R U L L D R U R D\n");
  EXPECT_NE(unloaded.err.find("puzzledb: refusing table slide32-patterns: table slide32-patterns: a duplicate "
                              "sequence names block 1000 of 14\n"),
            std::string::npos)
      << unloaded.err;
  edit_duplicate(kept_block);
  const auto mended = RunCommand(kBuild + " verify --db " + db_, "");
  EXPECT_EQ(mended.exit_code, 0) << mended.out;

  // A projection changed to another of the same size: its checksum fails, and the
  // definition is not served. With the checksum made to match, verify's fresh search
  // finds the entries that differ.
  auto damage = [&](bool fingerprint) {
    EditMetadata(db_, "slide32-patterns", [fingerprint](storage::v1::TableMetadata* m) {
      m->mutable_projections(0)->set_spec("T 1-3");  // 120 entries too
      std::string text = m->parameters();
      text.erase(0, text.find('\n') + 1);
      if (fingerprint) m->set_parameters_fingerprint(DefinedPatternsFingerprint(text, *m));
    });
  };
  damage(false);
  const auto refused = RunCommand(kCli + " solve --db " + db_ + " --puzzle slide32", "1 6 3 2 5 4\n");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("not serving slide32: its stored definition fails its checksum"), std::string::npos)
      << refused.err;
  damage(true);
  const auto caught = RunCommand(kBuild + " verify --db " + db_, "");
  EXPECT_EQ(caught.exit_code, 1);
  EXPECT_NE(caught.out.find("slide32-patterns: FAILED: table slide32-patterns: projection T 1-3, entry "),
            std::string::npos)
      << caught.out;

  // The complete table built again: the pattern tables go, the table answers.
  const auto complete = RunCommand(build, "");
  ASSERT_EQ(complete.exit_code, 0) << complete.err;
  EXPECT_NE(complete.err.find("removed slide32-patterns, the slide32 puzzle's table of the other kind"),
            std::string::npos)
      << complete.err;
  const auto listed = RunCommand(kBuild + " info --db " + db_, "");
  EXPECT_EQ(listed.out.find("slide32-patterns"), std::string::npos) << listed.out;
  const auto from_table = RunCommand(kCli + " solve --json --db " + db_ + " --puzzle slide32", "1 6 3 2 5 4\n");
  EXPECT_NE(from_table.out.find("\"source\":\"TABLE\""), std::string::npos) << from_table.out;

  // Refusals: a projection the definition has not, projections beyond the budget, and
  // --projection without exactly one --definition.
  const auto unknown = RunCommand(build + " --projection 'X 1-2'", "");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--projection 'X 1-2': "), std::string::npos) << unknown.err;
  const auto over = RunCommand(build + " --projection T --pattern-memory 100", "");
  EXPECT_EQ(over.exit_code, 2);
  EXPECT_NE(over.err.find("--pattern-memory"), std::string::npos) << over.err;
  const auto alone = RunCommand(kBuild + " --db " + db_ + " --projection T", "");
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("--projection names projections of one --definition, and 0 are given"),
            std::string::npos)
      << alone.err;
}

// puzzledb-build census: the states at each distance, counted by a search with no database
// (pancake5's, as docs/PUZZLES.md section 7 gives them); a budget too small stops it before
// the distance that would pass it, after printing those it counted; a bad file is refused.
TEST_F(DefinitionCliTest, ACensusBySearchNeedsNoTable) {
  const auto counted = RunCommand(kBuild + " census --definition " + Sample("pancake5.tws") + " --depth 9", "");
  EXPECT_EQ(counted.exit_code, 0) << counted.err;
  EXPECT_EQ(counted.out, "0 1\n1 4\n2 12\n3 35\n4 48\n5 20\n");
  EXPECT_NE(counted.err.find("  distance 3: 35 states, "), std::string::npos) << counted.err;
  const auto cut = RunCommand(kBuild + " census -q --definition " + Sample("pancake5.tws") + " --depth 2", "");
  EXPECT_EQ(cut.out, "0 1\n1 4\n2 12\n");
  EXPECT_EQ(cut.err, "");
  const auto over = RunCommand(kBuild + " census -q --definition " + Sample("pancake5.tws") + " --memory 900", "");
  EXPECT_EQ(over.exit_code, 1);
  EXPECT_EQ(over.out, "0 1\n1 4\n2 12\n");
  EXPECT_EQ(over.err,
            "puzzledb-build census: distance 3 of the census needs about 1,808 bytes, more than 900 "
            "(counted so far: 1 4 12)\n");
  const auto missing = RunCommand(kBuild + " census --definition /nonexistent/x.tws", "");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("puzzledb-build census: --definition /nonexistent/x.tws: "), std::string::npos)
      << missing.err;
}

TEST_F(DefinitionCliTest, BuildingANameAgainReplacesItsTable) {
  ASSERT_EQ(RunCommand(kBuild + " --db " + db_ + " -q --name same --definition " + Sample("slide32.tws"), "").exit_code, 0);
  ASSERT_EQ(RunCommand(kBuild + " --db " + db_ + " -q --name same --definition " + Sample("pancake5.tws"), "").exit_code, 0);
  const auto census = RunCommand(kCli + " census --db " + db_ + " --puzzle same", "");
  EXPECT_EQ(census.out, "0 1\n1 4\n2 12\n3 35\n4 48\n5 20\n") << "pancake5's, not slide32's";
  const auto built = RunCommand(kBuild + " --db " + db_ + " -q --name knight --definition " + Sample("pancake5.tws"), "");
  EXPECT_EQ(built.exit_code, 2);
  EXPECT_EQ(built.err, "puzzledb-build: the name knight is a built-in puzzle's; give the definition another (--name)\n");
}

// Each rule a file can break, in a file written here: exit 2, the file, the line and the
// rule, and no table made (no database either, but where the search finds the fault).
TEST_F(DefinitionCliTest, EveryBrokenRuleIsRefusedBeforeADatabaseIsMade) {
  const std::string head = "Set T 3 1\nSolved\nT\n1 2 3\nEnd\n";  // lines 1-5
  struct Case {
    std::string file, text, says, flags = "";
  };
  const std::vector<Case> cases = {
      {"perm.tws", head + "Move M\nT\n1 1 3\nEnd\n",
       "perm.tws:8: Move M: set T: position 1 given twice: not a permutation of 1 to 3"},
      {"short.tws", head + "Move M\nT\n2 1\nEnd\n", "short.tws:8: Move M: set T: 2 values, want 3"},
      {"unknown.tws", head + "Move M\nQ\n2 1 3\nEnd\n", "unknown.tws:7: Move M: 'Q' is neither a set's name (T) nor End, which the block (from "
                    "line 6) is missing"},
      {"clash.tws", head + "Move M\nIf T 1 1\nT\n2 1 3\nEnd\nMove M\nIf T 3 3\nT\n1 3 2\nEnd\n",
       "clash.tws: Move M: its blocks at lines 6 and 11 both apply in the reachable state 1 2 3 "
       "(at most one block of a move may apply in any state)"},
      {"outside.tws", head + "Move M\nIf T 4 1\nT\n2 1 3\nEnd\n",
       "outside.tws:7: Move M: If: position '4' is not a number from 1 to 3 (set T)"},
      {"nosolved.tws", "Set T 3 1\nMove M\nT\n2 1 3\nEnd\n",
       "nosolved.tws: no Solved block: a definition has at least one goal"},
      {"orient.tws", "Set T 3 2\nSolved\nT\n1 2 3\n0 0 2\nEnd\n",
       "orient.tws:5: Solved: set T: orientation '2' is not a number from 0 to 1"},
      {"binary.tws", std::string("Set T 3 1\n\x01\x02\x03", 13), "binary.tws:2: a control character (byte 1): a definition is a text file"},
      {"empty.tws", "", "empty.tws: no Set: a definition has at least one"},
      {"huge.tws", "Set T 40 1\nSolved\nT\n" + [] {
         std::string labels;
         for (int i = 1; i <= 40; ++i) labels += std::to_string(i) + " ";
         return labels;
       }() + "\nEnd\nMove M\nT\n2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 1\nEnd\nMove N\nT\n2 1 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40\nEnd\n",
       "huge.tws: no complete table (its states need an index of 2^159.2 numbers (T placements "
       "2^159.2), more than the limit of 8589934592 for a complete table), and no projection of "
       "it has a table within --pattern-memory 30 bytes; raise it or name projections with "
       "--projection",
       " --pattern-memory 30"},
  };
  for (const Case& c : cases) {
    const std::string path = Write(c.file, c.text);
    const auto result = RunCommand(kBuild + " --db " + db_ + " -q --definition " + path + c.flags, "");
    EXPECT_EQ(result.exit_code, 2) << c.file << ": " << result.err;
    EXPECT_EQ(result.err, "puzzledb-build: " + c.says + "\n") << c.file;
    if (c.file == "clash.tws") {
      const auto info = RunCommand(kBuild + " info --db " + db_, "");
      EXPECT_EQ(info.out.rfind(db_ + ": 0 tables,", 0), 0u) << info.out;
      fs::remove_all(db_);
    }
    EXPECT_FALSE(fs::exists(db_)) << c.file << ": a database was made";
    fs::remove(path);
  }
}

}  // namespace definition_cli_test
}  // namespace puzzledb
