// The table a walker reads, whatever the walker's puzzle (core/table/table_walker.h).
#ifndef PUZZLEDB_CORE_TABLE_TABLE_VIEW_H_
#define PUZZLEDB_CORE_TABLE_TABLE_VIEW_H_

#include <memory>

#include "core/table/table_store.h"

namespace puzzledb {

// What every table walker knows whatever its puzzle: the table it reads. The solver keeps
// walkers of every puzzle behind this (core/solver.h); a model's own code casts it back to
// its TableWalker<P>.
class TableView {
 public:
  explicit TableView(std::shared_ptr<const LoadedTable> table) : table_(std::move(table)) {}
  virtual ~TableView() = default;

  const TableMetadata& metadata() const { return table_->metadata; }
  const std::shared_ptr<const LoadedTable>& table() const { return table_; }
  bool complete() const { return table_->metadata.complete(); }
  // Every uncovered state of a partial table is at least this far.
  int UncoveredBound() const { return static_cast<int>(table_->metadata.coverage_depth()) + 1; }

 protected:
  const std::shared_ptr<const LoadedTable> table_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_TABLE_VIEW_H_
