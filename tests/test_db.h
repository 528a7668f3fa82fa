// What the test database holds (tests/CMakeLists.txt, build_test_db), for the tests that
// count its tables from outside a server.
#ifndef PUZZLEDB_TESTS_TEST_DB_H_
#define PUZZLEDB_TESTS_TEST_DB_H_

#include <algorithm>
#include <string>
#include <vector>

#include "core/puzzles/default_tables.h"

namespace puzzledb::testing {

// The puzzles given as definitions that build_test_db adds (tests/golden/definitions).
inline const std::vector<std::string>& TestDbDefinitions() {
  static const std::vector<std::string> names = {"cube2urf", "slide32"};
  return names;
}

// Its tables: the built-in puzzles' default tables and one per definition (a process that
// has registered the definitions lists them among the defaults already).
inline std::vector<std::string> TestDbTableIds() {
  std::vector<std::string> ids = DefaultTableIds();
  for (const std::string& name : TestDbDefinitions()) {
    if (std::find(ids.begin(), ids.end(), name) == ids.end()) ids.push_back(name);
  }
  return ids;
}

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_TEST_DB_H_
