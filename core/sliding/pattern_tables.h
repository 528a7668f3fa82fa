// Additive pattern tables for the fifteen puzzle (docs/FORMAT.md, "Pattern tables"): the
// tiles are split into disjoint groups, and for each group a table holds, for every
// placement of the group's tiles on the 16 cells, the exact number of moves *of the group's
// tiles* that bring them home, the other tiles indistinct and their moves free. A move
// carries one tile, so the sum over the groups is a lower bound on the distance.
//
// A table is built by a breadth-first search over the group's abstract states: a
// placement and the region of free cells (connected, not under a group tile) that holds
// the empty place; inside its region the empty place moves for free. The table keeps the
// smallest distance over the regions.
//
// Entries are stored relative to the group's Manhattan distance (the sum of its tiles'
// rows and columns from home), which every path of the group's tiles must cover and whose
// parity every such path has: an entry is (distance - manhattan) / 2 in four bits, so a
// 7-8 set takes 288 MB in memory instead of 577 MB in bytes. A group whose excess passes
// 15 would keep 15 (a smaller bound, still admissible; EncodePatternGroup counts such
// entries); no set puzzledb builds has one (the 7-8 set's largest excess is 9).
#ifndef PUZZLEDB_CORE_SLIDING_PATTERN_TABLES_H_
#define PUZZLEDB_CORE_SLIDING_PATTERN_TABLES_H_

#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/table/packed_table.h"
#include "core/util/huge_buffer.h"

namespace puzzledb {

inline constexpr int kTileCells = 16;  // a 4x4 board; tile t's home is cell t - 1
inline constexpr int kMaxGroupTiles = 8;
inline constexpr int kMaxPatternGroups = 8;  // what the search keeps per board

// A partition of the tiles 1..15 into at most 8 disjoint groups of 1..8 tiles.
class TilePartition {
 public:
  TilePartition() = default;
  // Groups separated by '/', each a list of tiles and ranges: "1-8/9-15",
  // "1,2,5,6,9,10/3,4,7,8,11,12/13-15". Every tile 1..15 exactly once.
  static absl::StatusOr<TilePartition> Parse(std::string_view text);
  // The stored form (a table's parameters): 15 bytes, byte t - 1 the group of tile t.
  static absl::StatusOr<TilePartition> Decode(std::string_view bytes);
  std::string Encode() const;
  // As Parse reads it, ranges folded: "1-8/9-15".
  std::string Describe() const;

  int group_count() const { return static_cast<int>(groups_.size()); }
  // The tiles of group g, ascending.
  const std::vector<int>& group(int g) const { return groups_[g]; }
  int group_of(int tile) const { return group_of_[tile]; }
  bool operator==(const TilePartition& other) const { return groups_ == other.groups_; }

 private:
  std::vector<std::vector<int>> groups_;
  std::array<int8_t, kTileCells> group_of_{};  // by tile; tile 0 (the empty place) -1
};

// The colexicographic rank of a cell set in two lookups: the rank is the sum over the
// j-th smallest cell c_j of C(c_j, j), so the low byte's share depends on that byte alone
// and the high byte's on it and the low byte's count.
struct CellSetTables {
  uint32_t low[256];
  uint32_t high[256][kTileCells + 1];
  constexpr CellSetTables();
};
extern const CellSetTables kCellSetTables;

// The dense index of one group's placements: the set of cells the group covers (ranked
// among the C(16, k) subsets, colexicographically) times the order of the group's tiles on
// those cells (ranked among the k! orders). Entries of one cell set are contiguous, which
// the build relies on.
class PatternGroup {
 public:
  // REQUIRES: 1..8 distinct tiles in 1..15, ascending.
  explicit PatternGroup(std::vector<int> tiles);

  const std::vector<int>& tiles() const { return tiles_; }
  int size() const { return k_; }
  uint64_t orders() const { return orders_; }          // k!
  uint64_t cell_sets() const { return cell_sets_; }    // C(16, k)
  uint64_t placements() const { return orders_ * cell_sets_; }

  // The index of the placement in which each tile t of the group stands on cell_of[t]
  // (`cell_of` is indexed by tile number, 0..15).
  uint64_t Index(const uint8_t* cell_of) const {
    uint32_t cells = 0, order = 0;
    Split(cell_of, &cells, &order);
    return Join(cells, order);
  }
  // The two halves of the index: the set of cells (a bit per cell) and the order's rank.
  void Split(const uint8_t* cell_of, uint32_t* cells, uint32_t* order) const {
    // The order's Lehmer digit of tile i is the number of the group's later tiles on lower
    // cells (slots follow the cells' order), so one pass from the last tile down ranks the
    // order and collects the cells.
    uint32_t later = 0;
    uint32_t rank = 0;
    for (int i = k_ - 1; i >= 0; --i) {
      const uint32_t bit = 1u << cell_of[tiles_[i]];
      rank += static_cast<uint32_t>(std::popcount(later & (bit - 1))) * weight_[i];
      later |= bit;
    }
    *cells = later;
    *order = rank;
  }
  uint64_t Join(uint32_t cells, uint32_t order) const {
    return uint64_t{CellSetRank(cells)} * orders_ + order;
  }
  // The order's rank after tile `tile` of the group moves from cell `from` to the free
  // adjacent cell `to` on the board `tile_at` (by cell, before the move). Only the group's
  // tiles on the cells between the two change places with it in the cells' order: none
  // for a move along a row, up to three for a move along a column.
  template <typename TileNumber>
  uint32_t OrderAfterMove(uint32_t order, int tile, int from, int to,
                          const TileNumber* tile_at) const {
    // Moving up the cells' order past a later tile raises the moved tile's digit; past an
    // earlier one, it lowers that tile's digit (passed_, by the two tiles' places).
    // Moving down, the other way. Computed for every move and kept for a column's only:
    // which kind of move comes next is a coin toss that a branch would pay for.
    const int low = from < to ? from : to;
    const int32_t* passed = passed_[slot_[tile]];
    int32_t delta = passed[slot_[tile_at[(low + 1) & 15]]] +
                    passed[slot_[tile_at[(low + 2) & 15]]] + passed[slot_[tile_at[(low + 3) & 15]]];
    delta = (from - to == 4 || to - from == 4) ? delta : 0;
    return static_cast<uint32_t>(from < to ? order + delta : order - delta);
  }
  // The cells of the tiles (by the group's tile order) of placement `index`.
  std::array<uint8_t, kMaxGroupTiles> Cells(uint64_t index) const;
  // The sum over the group's tiles of rows plus columns from home at placement `index`.
  int Manhattan(uint64_t index) const;

  // Colexicographic rank of a 16-bit cell set among those of its size.
  static uint32_t CellSetRank(uint32_t mask) {
    const uint32_t lo = mask & 0xFF;
    return kCellSetTables.low[lo] + kCellSetTables.high[(mask >> 8) & 0xFF][std::popcount(lo)];
  }

 private:
  std::vector<int> tiles_;
  int k_;
  uint64_t orders_;
  uint64_t cell_sets_;
  std::array<uint32_t, kMaxGroupTiles> weight_{};  // (k - 1 - i)!
  std::array<uint8_t, kTileCells> slot_{};  // by tile: 1 + its place in tiles_, or 0
  // passed_[1 + j][1 + p]: the change of the order's rank when tile j of the group moves
  // from below tile p to above it in the cells' order (0 for p = -1, no tile of the group).
  int32_t passed_[kMaxGroupTiles + 1][kMaxGroupTiles + 1] = {};
};

struct PatternBuildLayer {
  int group = 0;
  int depth = 0;
  uint64_t states = 0;  // abstract states (placement, region) first reached at this depth
  double seconds = 0;   // since this group's search started
};

struct PatternBuildOptions {
  int threads = 0;  // 0: one per hardware thread
  std::function<void(const PatternBuildLayer&)> on_layer;
};

// The exact group-move distance of every placement of `group` (one byte each, in
// PatternGroup index order). INTERNAL if a placement is never reached (it always is).
absl::StatusOr<HugeBuffer> SearchPatternGroup(const PatternGroup& group, int group_number,
                                              const PatternBuildOptions& options);

// A set of pattern tables in memory: every group's entries, one after another in group
// order, four bits each (the excess over the group's Manhattan distance, halved).
// Thread-safe for concurrent readers.
class PatternTables {
 public:
  // REQUIRES: `entries` holds EntryCount(partition) entries (PATTERN_EXCESS).
  PatternTables(TilePartition partition, std::shared_ptr<const PackedTable> entries);

  const TilePartition& partition() const { return partition_; }
  const PatternGroup& group(int g) const { return groups_[g]; }
  uint64_t offset(int g) const { return offsets_[g]; }
  const PackedTable& entries() const { return *entries_; }
  // Entries of every group of a partition, in order.
  static uint64_t EntryCount(const TilePartition& partition);

  // The stored excess of group g's placement `index` (0..15).
  uint8_t Excess(int g, uint64_t index) const {
    const uint64_t i = offsets_[g] + index;
    return (bytes_[i >> 1] >> (4 * (i & 1))) & 15;
  }
  // The address holding it, to prefetch.
  const uint8_t* Address(int g, uint64_t index) const {
    return entries_->Address(offsets_[g] + index);
  }
  // Sum over the groups of the stored excesses for a board given as tile -> cell.
  int ExcessSum(const uint8_t* cell_of) const;

 private:
  TilePartition partition_;
  std::vector<PatternGroup> groups_;
  std::vector<uint64_t> offsets_;
  std::shared_ptr<const PackedTable> entries_;
  const uint8_t* bytes_;  // entries_'s, two entries a byte
};

// The entries of group g of a set from its distances (SearchPatternGroup), written into
// `entries` at the group's offset. Counts entries whose excess passed 15 (kept as 15) in
// `*saturated`. INTERNAL if a distance is below the Manhattan distance or of the other
// parity (the distances are not a search's).
absl::Status EncodePatternGroup(const PatternGroup& group, const HugeBuffer& distances,
                                uint64_t offset, PackedTable* entries, uint64_t* saturated);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SLIDING_PATTERN_TABLES_H_
