// Every state of a table's space with its exact distance, arranged for drawing states at
// one distance uniformly (docs/API.md, "Sample"): the states at distance d are counted per
// block of kBlock ranks, once per distance asked for, so that the j-th state at distance d
// (in rank order) is one binary search over the blocks and a scan of one block away.
#ifndef PUZZLEDB_CORE_TABLE_DISTANCE_INDEX_H_
#define PUZZLEDB_CORE_TABLE_DISTANCE_INDEX_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "core/table/table_store.h"
#include "core/util/huge_buffer.h"
#include "core/util/random.h"

namespace puzzledb {

// Thread-safe.
class DistanceIndex {
 public:
  static constexpr uint64_t kBlock = 4096;

  // A byte table is its own index; a modulo-3 or next-move table needs its exact
  // distances: from its band pages in `store` if it has them (modulo 3 only), else from
  // `search` (a fresh search checked against the table, ExactDistances in
  // core/table/table_builder.h); FAILED_PRECONDITION if it has neither.
  using Search = std::function<absl::StatusOr<HugeBuffer>()>;
  static absl::StatusOr<std::shared_ptr<const DistanceIndex>> Build(
      const TableStore& store, std::shared_ptr<const LoadedTable> table, const Search& search = {});

  const TableMetadata& metadata() const { return table_->metadata; }
  uint64_t size() const { return table_->metadata.state_count(); }
  // The exact distance of the state of rank `rank`, 255 where the table does not cover it.
  uint8_t Distance(uint64_t rank) const { return distances_[rank]; }
  const uint8_t* distances() const { return distances_; }
  // States at distance d (the table's histogram, checked against the entries when d is
  // first counted); 0 beyond the largest distance.
  uint64_t Population(int d) const;

  // `count` distinct ranks drawn uniformly among the states at distance d (all of them, in
  // random order, when there are no more than `count`); the same for the same rng state.
  // DATA_LOSS if the entries disagree with the table's histogram.
  absl::StatusOr<std::vector<uint64_t>> Draw(int d, uint64_t count, SeededRng& rng) const;

  // The states at distance d whose rank is below `rank` (the place among them that a
  // state of rank `rank` at distance d has).
  absl::StatusOr<uint64_t> Ordinal(int d, uint64_t rank) const;

  // The ranks of the states at distance d whose places among them (in rank order) are
  // `ordinals` (ascending, each below Population(d)), in that order.
  absl::StatusOr<std::vector<uint64_t>> Select(int d, const std::vector<uint64_t>& ordinals) const;

 private:
  DistanceIndex(std::shared_ptr<const LoadedTable> table, HugeBuffer exact);
  // prefix[b]: states at distance d in the blocks before block b (one entry per block, plus
  // the total).
  absl::StatusOr<std::shared_ptr<const std::vector<uint64_t>>> BlockPrefix(int d) const;

  const std::shared_ptr<const LoadedTable> table_;
  const HugeBuffer exact_;  // a modulo-3 table's exact distances; empty for a byte table
  const uint8_t* const distances_;
  mutable std::mutex mutex_;
  mutable std::map<int, std::shared_ptr<const std::vector<uint64_t>>> prefixes_;
};

// `count` distinct numbers drawn uniformly from [0, n), ascending (Floyd's algorithm);
// all of [0, n) when count >= n.
std::vector<uint64_t> DrawDistinct(uint64_t n, uint64_t count, SeededRng& rng);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_DISTANCE_INDEX_H_
