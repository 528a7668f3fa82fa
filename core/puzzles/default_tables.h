// What the default database holds (docs/OPERATIONS.md, "Replicas behind nginx"): the
// parameter files compiled in from data/params/<puzzle>/*.in (today the knobs wirings), and
// the table ids that follow from them. Every replica built with the defaults holds these
// tables, so a balancer may send their calls to any replica; the calls of any other table
// (a knobs wiring built on demand) go to one.
#ifndef PUZZLEDB_CORE_PUZZLES_DEFAULT_TABLES_H_
#define PUZZLEDB_CORE_PUZZLES_DEFAULT_TABLES_H_

#include <span>
#include <string>
#include <vector>

namespace puzzledb {

struct DefaultParamsFile {
  const char* puzzle;  // the folder's name: the puzzle's registered name
  const char* name;    // the file's name
  const char* text;    // its contents, in the puzzle's original input format
};

// The files of data/params/, sorted by path.
std::span<const DefaultParamsFile> DefaultParamsFiles();

// The ids (as TableIdOf gives them, and as clients send them in `puzzledb-table`) of the
// default database's tables: each puzzle without parameters by its name, and for a puzzle
// with parameters the id of every parameter set in its default files. Sorted, no repeats.
std::vector<std::string> DefaultTableIds();

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_DEFAULT_TABLES_H_
