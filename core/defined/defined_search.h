// The breadth-first search over a definition's index that fills its table: the distance of
// every state to the nearest goal, in the table's own entries (two bits a state, the
// distance modulo 3, where every move can be undone; a byte otherwise), so that the search
// needs no memory beyond the table and the inner coordinates' move table of DefinedIndex's
// split.
//
// Layers are found top-down (the states of layer d mark the unseen states from which a
// block leads to them, its guards holding there) while the layer is small, and bottom-up
// (each unseen state looks for a move into layer d) once the unseen states are fewer:
// neither needs a move's inverse to be a move. The
// threads take runs of outer numbers in turn; entries are written with atomic operations.
// docs/PERFORMANCE.md, "Definitions", has the figures.
#ifndef PUZZLEDB_CORE_DEFINED_DEFINED_SEARCH_H_
#define PUZZLEDB_CORE_DEFINED_DEFINED_SEARCH_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/definition/defined_index.h"
#include "core/definition/definition.h"
#include "core/search/retrograde_bfs.h"
#include "core/table/packed_table.h"

namespace puzzledb {

struct DefinedSearchOptions {
  int threads = 0;  // 0: one per hardware thread
  // A byte a state, the exact distance, whatever the definition's encoding (to check a
  // table or to sample from one).
  bool exact = false;
  std::function<void(const BfsLayer&)> on_layer;  // after every layer, on the calling thread
  // By label (a projection with free pieces: Projection::counted): a block costs one move
  // only where it moves a piece of a counted label, nothing otherwise; the states a layer's
  // states reach at no cost join that layer. Empty: every move costs one. REQUIRES, when
  // set: every byte of a state is a label, and every inner coordinate an order (the cost
  // of a block is then read from the outer ones).
  std::vector<bool> counted;
};

struct DefinedSearchResult {
  PackedTable entries;              // DISTANCE_MOD3 or DISTANCE_BYTE, by the index
  std::vector<uint64_t> histogram;  // states at each distance, 0 .. the farthest
  double seconds = 0;
  bool bottom_up_layers = false;

  uint64_t reached() const {
    uint64_t n = 0;
    for (uint64_t h : histogram) n += h;
    return n;
  }
};

// The encoding a definition's table takes: two bits a state where every move's block is
// undone by a block (CompiledMoves::undirected: unguarded moves, and guarded ones with their
// ways back), so that neighbours differ by at most one; a byte otherwise.
TableEncoding DefinedEncoding(const CompiledMoves& moves);

// INVALID_ARGUMENT when two blocks of one move apply in a reachable state (the message names
// the move, the blocks' lines and the state) or a state is farther than a byte table holds.
absl::StatusOr<DefinedSearchResult> SearchDefinition(const Definition& definition,
                                                     const CompiledMoves& moves,
                                                     const DefinedIndex& index,
                                                     const DefinedSearchOptions& options);

// The search of a projection with free pieces (options.counted set), folded as it goes into
// the table of the projection that merges them (`laid`, whose labels number the counted
// pieces alike and merge every other into the one after them): each of its entries the
// least distance of the states that fold into it. Only bits are kept of `index`'s states
// (seen, the layer at hand, the next: three bits a state; where the moves are not
// undirected, the closure of the free blocks is taken in rounds, with a fourth), so that
// a projection telling the blank apart fits where its bytes would not. REQUIRES: `index`
// and `laid` both have an order as inner part, of the same pieces (FoldsInto).
absl::StatusOr<DefinedSearchResult> SearchFolded(const Definition& definition,
                                                 const CompiledMoves& moves,
                                                 const DefinedIndex& index,
                                                 const DefinedIndex& laid,
                                                 const DefinedSearchOptions& options);
bool FoldsInto(const DefinedIndex& index, const DefinedIndex& laid);

// The states at each distance of a DISTANCE_BYTE table (0 .. the farthest; uncovered
// entries left out).
std::vector<uint64_t> ByteHistogram(const PackedTable& entries);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINED_DEFINED_SEARCH_H_
