// The entries of one table in memory: a distance (exact, or modulo 3) or a next move per
// state of the table's space, packed as the table's encoding says (docs/FORMAT.md).
#ifndef PUZZLEDB_CORE_TABLE_PACKED_TABLE_H_
#define PUZZLEDB_CORE_TABLE_PACKED_TABLE_H_

#include <cstdint>
#include <string>

#include "core/util/huge_buffer.h"
#include "puzzledb/storage/v1/table.pb.h"

namespace puzzledb {

using TableEncoding = storage::v1::Encoding;

// Thread-safe for concurrent readers; writers need exclusive access.
class PackedTable {
 public:
  // Entry values read back by Get(): a distance (byte), a residue 0..2 (mod 3) or a move
  // 0..13 (next move), or:
  static constexpr uint8_t kByteUncovered = 0xFF;
  static constexpr uint8_t kMod3Uncovered = 3;
  static constexpr uint8_t kNextMoveGoal = 14;
  static constexpr uint8_t kNextMoveUncovered = 15;

  PackedTable() = default;
  // `size` entries, all uncovered.
  PackedTable(TableEncoding encoding, uint64_t size);

  TableEncoding encoding() const { return encoding_; }
  uint64_t size() const { return size_; }
  // The packed bytes (a byte table: one distance per state).
  const uint8_t* data() const { return bytes_.data(); }
  // The byte that holds entry `index` (to prefetch it).
  const uint8_t* Address(uint64_t index) const { return bytes_.data() + (index >> shift_); }

  uint8_t Get(uint64_t index) const {
    switch (shift_) {
      case 0:
        return bytes_[index];
      case 2:
        return (bytes_[index >> 2] >> (2 * (index & 3))) & 3;
      default:
        return (bytes_[index >> 1] >> (4 * (index & 1))) & 15;
    }
  }
  // REQUIRES: value fits the encoding (0..255 byte; 0..3 mod 3; 0..15 next move).
  void Set(uint64_t index, uint8_t value) {
    if (shift_ == 0) {
      bytes_[index] = value;
      return;
    }
    const int bits = 8 >> shift_;  // 2 (mod 3) or 4 (next move)
    const int at = bits * static_cast<int>(index & ((uint64_t{1} << shift_) - 1));
    uint8_t& b = bytes_[index >> shift_];
    b = static_cast<uint8_t>((b & ~(((1 << bits) - 1) << at)) | (value << at));
  }

  // Fills the table from BFS distances (0xFF unseen), converting to the encoding.
  // REQUIRES: a distance encoding (next moves need the puzzle: NextMoves in
  // core/table/table_builder.h).
  void FromDistances(const HugeBuffer& distance);

  // The bytes of entries [first, first + count) as stored in a page. REQUIRES: `first` is
  // on a byte's first entry (a multiple of 4 for mod 3, of 2 for next moves).
  std::string Slice(uint64_t first, uint64_t count) const;
  // Where a page's bytes for entries from `first` go, to be written in place. REQUIRES:
  // `first` as for Slice.
  uint8_t* MutableBytes(uint64_t first) { return bytes_.data() + (first >> shift_); }
  // A table whose every byte the caller writes (a load, page by page).
  static PackedTable Unfilled(TableEncoding encoding, uint64_t size);
  // A table over bytes the caller has (a mapped unpacked copy). REQUIRES: `bytes` holds
  // BytesFor(size) bytes.
  static PackedTable Over(TableEncoding encoding, uint64_t size, HugeBuffer bytes);
  // The packed bytes, taken out (the table is left empty): a byte table's are its
  // distances, BfsResult::distance's form.
  HugeBuffer TakeBytes() && {
    size_ = 0;
    return std::move(bytes_);
  }
  // Bytes used by `count` entries of an encoding, or of this table's.
  static uint64_t BytesFor(TableEncoding encoding, uint64_t count);
  uint64_t BytesFor(uint64_t count) const { return BytesFor(encoding_, count); }

 private:
  TableEncoding encoding_ = storage::v1::DISTANCE_BYTE;
  int shift_ = 0;  // log2 of the entries per byte: 0 byte, 2 mod 3, 1 next move
  uint64_t size_ = 0;
  HugeBuffer bytes_;
};

// Band pages (docs/FORMAT.md): a modulo-3 table's distances divided by 3, four bits per
// state, the even state of a pair in the low bits; kBandUncovered where not covered.
inline constexpr uint8_t kBandUncovered = 15;
// From BFS distances (0xFF unseen). REQUIRES: distances below 45.
HugeBuffer PackBands(const HugeBuffer& distance);
inline uint8_t BandAt(const uint8_t* bands, uint64_t index) {
  return (bands[index >> 1] >> (4 * (index & 1))) & 15;
}

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_PACKED_TABLE_H_
