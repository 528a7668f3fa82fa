// What the service asks of whoever builds missing tables: the server runs a background
// builder behind this; the CLI's in-process mode has none. A search for parameters that
// have no table asks for that table, so that later queries are lookups.
#ifndef PUZZLEDB_SERVICE_TABLE_BUILDS_H_
#define PUZZLEDB_SERVICE_TABLE_BUILDS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/puzzle.h"

namespace puzzledb {

class TableStore;     // core/table/table_store.h
struct BuildOptions;  // core/table/table_builder.h

class TableBuilds {
 public:
  // Builds one table into `store` (read-write) with `options`.
  using Build = std::function<absl::Status(TableStore& store, const BuildOptions& options)>;

  virtual ~TableBuilds() = default;

  // Asks for the table `id`, made by `build`. The builder may decline (queued already,
  // present, over its limits); returns true if the build was queued.
  virtual bool Request(const std::string& id, Build build) = 0;

  // Table ids queued or being built.
  virtual std::vector<std::string> Pending() const = 0;

  // The request for the table of the parameters of `parameters` (a position under them).
  bool Request(const Position& parameters);  // table_builds.cc
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_TABLE_BUILDS_H_
