// Builds missing tables in the background: when a query had to search because its
// parameters have no table, the table is built and stored, so that later
// queries with those parameters are table lookups. One build at a time, a bounded queue, a
// cap on the number of tables in the database. A build that fails (a full disk, a database
// that cannot be written) stops all builds for a while: `retry_after` after the first
// failure, twice as long after each further one in a row, at most `retry_max`; requests
// meanwhile are not queued (their queries were answered by search anyway), so that a
// failing disk costs one failed build per period, not one per request.
#ifndef PUZZLEDB_SERVER_BACKGROUND_BUILDER_H_
#define PUZZLEDB_SERVER_BACKGROUND_BUILDER_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/solver.h"
#include "core/table/table_builder.h"
#include "core/table/table_store.h"
#include "server/search_pool.h"
#include "service/table_builds.h"

namespace puzzledb {

struct BackgroundBuilderOptions {
  size_t max_queued = 8;    // requests beyond this are dropped (the query was answered anyway)
  size_t max_tables = 64;   // no build once the database holds this many tables
  int threads = 1;          // threads of one build; the rest of the machine keeps serving
  std::function<void(const std::string&)> on_built;  // after each table is stored
  SearchPriority priority = SearchPriority::kLow;      // of the building thread
  std::chrono::milliseconds retry_after{30000};  // after a failed build (doubles, in a row)
  std::chrono::milliseconds retry_max{3600000};
};

// Thread-safe.
class BackgroundBuilder final : public TableBuilds {
 public:
  // `store` (read-write) and `solver` must outlive this object.
  BackgroundBuilder(TableStore* store, Solver* solver, BackgroundBuilderOptions options,
                    std::function<void(std::string_view)> log);
  // Finishes the build in progress, drops the queued ones, joins.
  ~BackgroundBuilder();

  // Queues the build unless it is queued, running, present, or the limits say no.
  bool Request(const std::string& id, Build build) override;
  std::vector<std::string> Pending() const override;
  using TableBuilds::Request;

  // What the builder has done since it started (the server's metrics).
  struct Stats {
    size_t queued = 0;  // queued or running
    uint64_t done = 0;
    uint64_t failed = 0;
    uint64_t dropped = 0;  // not queued: the queue was full
    uint64_t deferred = 0;  // not queued (or dropped from the queue): builds were backing off
    uint64_t failures_in_a_row = 0;
    double retry_in_seconds = 0;  // until builds are tried again; 0 when they are not held
    double seconds = 0;    // spent building
  };
  Stats stats() const;

 private:
  void Loop();

  TableStore* const store_;
  Solver* const solver_;
  const BackgroundBuilderOptions options_;
  const std::function<void(std::string_view)> log_;
  BuildOptions build_options_;

  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<std::string, Build>> queue_;
  std::set<std::string> pending_;
  bool stopping_ = false;
  Stats stats_;  // but `queued`, which is pending_.size(), and `retry_in_seconds`
  std::chrono::steady_clock::time_point retry_at_{};  // no build before this
  std::thread thread_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_BACKGROUND_BUILDER_H_
