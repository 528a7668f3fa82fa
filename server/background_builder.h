// Builds missing tables in the background: when a query had to search because its
// parameters have no table, the table is built and stored, so that later
// queries with those parameters are table lookups. One build at a time, a bounded queue, a
// cap on the number of tables in the database.
#ifndef PUZZLEDB_SERVER_BACKGROUND_BUILDER_H_
#define PUZZLEDB_SERVER_BACKGROUND_BUILDER_H_

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
  Stats stats_;  // but `queued`, which is pending_.size()
  std::thread thread_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_BACKGROUND_BUILDER_H_
