// puzzledb-build while a puzzledb-server serves the database (and so holds it: one writer
// at a time): the build writes into a database of its own under DIR/handover/, then asks
// the server, through the database's folder (service/db_requests.h), to take its tables;
// the server serves them within moments, calls in flight unaffected. If the server stops
// meanwhile, the tables are taken here. docs/OPERATIONS.md, "Adding and removing puzzles
// while serving".
#ifndef PUZZLEDB_BUILDER_HANDOVER_H_
#define PUZZLEDB_BUILDER_HANDOVER_H_

#include <chrono>
#include <memory>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "core/table/table_store.h"

namespace puzzledb {

// Where a build writes.
struct BuildTarget {
  std::unique_ptr<TableStore> store;  // the database, or the one aside
  std::string db;                     // the database asked for
  std::string handover;               // the folder aside (its name), when the server holds `db`
  int server = 0;                     // that server's process id
};

// The database opened for writing; or, while a puzzledb-server serves it writable, a new
// database aside (said on `err` unless `quiet`). The error of the open otherwise.
absl::StatusOr<BuildTarget> OpenBuildTarget(const std::string& db, bool quiet, std::ostream& err);

// After the build: for a build aside, its tables handed to the server (its answer on
// `out`) and the folder removed, or, when `built` is false, the folder removed alone.
// Returns the exit status: `status` (the build's), or a failure of the handover.
int FinishBuildTarget(BuildTarget& target, int status, std::chrono::seconds timeout,
                      std::ostream& out, std::ostream& err);

// Removes the puzzle given as a definition `puzzle` and its tables from `db`: through the
// server that serves it, or here.
int RunRemove(const std::string& db, const std::string& puzzle, std::chrono::seconds timeout,
              std::ostream& out, std::ostream& err);

}  // namespace puzzledb

#endif  // PUZZLEDB_BUILDER_HANDOVER_H_
