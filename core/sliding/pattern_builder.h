// Building, checking and loading a set of pattern tables (core/sliding/pattern_tables.h) as
// one table of the store (docs/FORMAT.md, "Pattern tables"): the same atomic ingest,
// checksums, `verify` and `info` as the distance tables.
#ifndef PUZZLEDB_CORE_SLIDING_PATTERN_BUILDER_H_
#define PUZZLEDB_CORE_SLIDING_PATTERN_BUILDER_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/sliding/pattern_tables.h"
#include "core/table/table_store.h"

namespace puzzledb {

// What a pattern table is for: its id, the puzzle that reads it, and its partition.
struct PatternTableSpec {
  std::string table_id;   // PatternTableId: the puzzle, "-", the set's name
  std::string puzzle;     // the registered name of the puzzle that reads it
  TilePartition partition;
};

struct PatternBuildProgress {
  int threads = 0;  // 0: one per hardware thread
  int compression_level = 9;
  UnpackedCopies unpacked = UnpackedCopies::kLarge;
  std::function<void(const PatternBuildLayer&)> on_layer;
  // After each group: its number, placements, largest distance, seconds since the start.
  std::function<void(int group, uint64_t placements, int largest, double seconds)> on_group;
};

// Every group's search, the entries, then one atomic write. The metadata's histogram
// counts the entries by stored excess (0..15), max_distance is the largest group distance.
absl::StatusOr<TableMetadata> BuildPatternTable(const PatternTableSpec& spec, TableStore& store,
                                                const PatternBuildProgress& options);

// A stored pattern table against fresh searches: the metadata and every entry. DATA_LOSS
// names the first difference.
absl::Status VerifyPatternTable(const LoadedTable& table, int threads);

// The pattern tables of a loaded table (which they keep alive). DATA_LOSS if its metadata
// is not a pattern table's (encoding, partition, entry count).
absl::StatusOr<std::shared_ptr<const PatternTables>> PatternTablesOf(
    std::shared_ptr<const LoadedTable> table);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SLIDING_PATTERN_BUILDER_H_
