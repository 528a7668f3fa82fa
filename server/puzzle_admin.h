// Puzzles given as definitions, added, replaced and removed while the server serves: the
// requests puzzledb-build writes into the database's folder (service/db_requests.h;
// docs/OPERATIONS.md, "Adding and removing puzzles while serving"), answered there. An
// import takes the tables a build wrote aside (TableStore::Import: each in one step, the
// table it replaces served until then), then serves their puzzle in place of the one of
// its name (ReplacePuzzle: calls in flight keep the old one); a removal withdraws the
// puzzle and removes its tables. Listings, metrics and the page read the registry and the
// store, so they follow at once.
#ifndef PUZZLEDB_SERVER_PUZZLE_ADMIN_H_
#define PUZZLEDB_SERVER_PUZZLE_ADMIN_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/statusor.h"
#include "service/db_requests.h"

namespace puzzledb {

class Solver;
class TableStore;

class PuzzleAdmin {
 public:
  // `store` (read-write) and `solver` must outlive this object.
  PuzzleAdmin(TableStore* store, Solver* solver, std::function<void(std::string_view)> log);
  // Stops watching (the request being answered is finished first).
  ~PuzzleAdmin();
  PuzzleAdmin(const PuzzleAdmin&) = delete;
  PuzzleAdmin& operator=(const PuzzleAdmin&) = delete;

  // Says that this server serves the folder (its SERVING file) and starts answering its
  // requests, looking every `every`. FAILED_PRECONDITION if the folder cannot be written.
  absl::Status Start(std::chrono::milliseconds every = std::chrono::milliseconds(100));

  // One request, answered: what the watcher does with each.
  DbAnswer Answer(const DbRequest& request);

  struct Stats {
    uint64_t imported = 0;  // import requests done
    uint64_t removed = 0;   // remove requests done
    uint64_t failed = 0;    // requests refused or failed
  };
  Stats stats() const;

 private:
  absl::StatusOr<std::string> Import(const std::string& folder);
  absl::StatusOr<std::string> Remove(const std::string& puzzle);
  void Loop(std::chrono::milliseconds every);
  void AnswerWaiting();  // the requests in the folder now, in order

  TableStore* const store_;
  Solver* const solver_;
  const std::function<void(std::string_view)> log_;
  std::mutex answering_;  // one request at a time
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mutex_
  Stats stats_;            // guarded by mutex_
  std::thread thread_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_PUZZLE_ADMIN_H_
