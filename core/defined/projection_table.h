// A projection's complete table (issue 51): the exact distance of every state of a
// projection of a definition (core/definition/projection.h), a byte each, found by the
// definitions' own search over the projection's index. Since the projection of a state is
// never farther from a goal than the state, the table bounds the whole puzzle's distances
// from below: what guides the live search of a definition too large for a table of its own.
//
// Immutable once built: Bound may be called from any thread.
#ifndef PUZZLEDB_CORE_DEFINED_PROJECTION_TABLE_H_
#define PUZZLEDB_CORE_DEFINED_PROJECTION_TABLE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/defined/defined_search.h"
#include "core/definition/defined_index.h"
#include "core/definition/projection.h"
#include "core/table/packed_table.h"

namespace puzzledb {

class ProjectionTable {
 public:
  // A bound larger than any distance: the state reaches no goal.
  static constexpr int kUnreachable = 1 << 20;

  // Builds the table of `spec`'s projection of `definition`. INVALID_ARGUMENT for a bad
  // spec, or a projection whose index has more than max_entries numbers (the message gives
  // the size). With free pieces, the search runs over the projection that tells them apart
  // (its index within max_entries too), and the table keeps the least distance over where
  // they are.
  static absl::StatusOr<ProjectionTable> Build(const Definition& definition,
                                               const ProjectionSpec& spec,
                                               uint64_t max_entries,
                                               const DefinedSearchOptions& options);

  // The table of `spec`'s projection over `count` distances that `keep` holds at `bytes`
  // (its share of a stored table), with its histogram. INVALID_ARGUMENT for a bad spec,
  // DATA_LOSS unless `count` is the size of the projection's index.
  static absl::StatusOr<ProjectionTable> Over(const Definition& definition,
                                              const ProjectionSpec& spec,
                                              std::vector<uint64_t> histogram,
                                              std::shared_ptr<const void> keep,
                                              const uint8_t* bytes, uint64_t count);
  // The size of the index of `spec`'s projection (its entries), without building it:
  // INVALID_ARGUMENT as Build. SearchBytesOf: the bytes its build takes besides the table
  // (with free pieces, those of the projection that tells them apart: three or four bits
  // a state where its search folds, SearchFolded, a byte otherwise), INVALID_ARGUMENT past
  // max_bytes.
  static absl::StatusOr<uint64_t> EntriesOf(const Definition& definition,
                                            const ProjectionSpec& spec, uint64_t max_entries);
  static absl::StatusOr<uint64_t> SearchBytesOf(const Definition& definition,
                                                const ProjectionSpec& spec, uint64_t max_bytes);

  // The bound of a state of the definition: a lower bound of its distance, or
  // kUnreachable when its projection reaches no projected goal (nor then does it).
  // `scratch` holds the projected state between calls.
  int Bound(const DefinedState& state, DefinedState* scratch) const;
  // The same for a state reached by moves from one whose Bound was asked: the moves keep
  // the projection's invariants, so its number is not checked again.
  int BoundOfReached(const DefinedState& state, DefinedState* scratch) const {
    return BoundAt(EntryOfReached(state, scratch));
  }
  // The two halves of BoundOfReached, so that a search may fetch the entries of a state's
  // children before it reads the first: the entry, and its bound.
  uint64_t EntryOfReached(const DefinedState& state, DefinedState* scratch) const {
    projection_.Project(state, scratch);
    return index_.Rank(scratch->data());
  }
  int BoundAt(uint64_t entry) const {
    const uint8_t d = bytes_[entry];
    return d == PackedTable::kByteUncovered ? kUnreachable : d;
  }
  const uint8_t* AddressOf(uint64_t entry) const { return bytes_ + entry; }

  // The spec, free pieces included; the projection the table is laid out by (its free
  // pieces merged).
  const ProjectionSpec& spec() const { return spec_; }
  const Projection& projection() const { return projection_; }
  // The index of projection(): Rank of a projected state is its entry.
  const DefinedIndex& index() const { return index_; }
  uint64_t entries() const { return entries_; }
  // The distances, a byte each (PackedTable::kByteUncovered: no projected goal).
  const uint8_t* data() const { return bytes_; }
  // The states of the projection at each distance (from the search).
  const std::vector<uint64_t>& histogram() const { return histogram_; }
  // The average bound over the projection's reachable states, weighted as the histogram.
  double average() const;

 private:
  ProjectionTable(ProjectionSpec spec, Projection projection, CompiledMoves moves, DefinedIndex index)
      : spec_(std::move(spec)),
        projection_(std::move(projection)),
        moves_(std::move(moves)),
        index_(std::move(index)) {}

  ProjectionSpec spec_;
  Projection projection_;
  CompiledMoves moves_;
  DefinedIndex index_;
  std::shared_ptr<const void> keep_;  // what holds the bytes
  const uint8_t* bytes_ = nullptr;
  uint64_t entries_ = 0;
  std::vector<uint64_t> histogram_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINED_PROJECTION_TABLE_H_
