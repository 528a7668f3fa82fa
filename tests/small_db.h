// A small database for the tests that need a few real tables but not the test database:
// the rotation game and the knobs 9001 wiring, built in well under a second.
#ifndef PUZZLEDB_TESTS_SMALL_DB_H_
#define PUZZLEDB_TESTS_SMALL_DB_H_

#include <filesystem>
#include <string>

#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "core/table/table_builder.h"
#include "core/table/table_store.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace puzzledb::testing {

// Builds it afresh in TempPath(name) and returns the path.
inline std::string MakeSmallDb(const std::string& name) {
  const std::string db = TempPath(name);
  std::filesystem::remove_all(db);
  auto store = TableStore::Open(db, TableStore::Mode::kReadWrite);
  EXPECT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE(BuildTable(RotationPuzzle(), **store, BuildOptions{}).ok());
  const auto knobs = *KnobsPuzzle::ParseOriginal(Golden("knobs_9001.in"))[0].instance;
  EXPECT_TRUE(BuildTable(KnobsPuzzle(knobs.params), **store, BuildOptions{}).ok());
  return db;
}

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_SMALL_DB_H_
