// The entries of one table in memory: a distance (exact, or modulo 3) per state of the
// table's space, packed as the table's encoding says (docs/FORMAT.md).
#ifndef PUZZLEDB_CORE_TABLE_PACKED_TABLE_H_
#define PUZZLEDB_CORE_TABLE_PACKED_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/util/huge_buffer.h"
#include "puzzledb/storage/v1/table.pb.h"

namespace puzzledb {

using TableEncoding = storage::v1::Encoding;

// Thread-safe for concurrent readers; writers need exclusive access.
class PackedTable {
 public:
  // Entry values read back by Get(): a distance (byte) or a residue 0..2 (mod 3), or:
  static constexpr uint8_t kByteUncovered = 0xFF;
  static constexpr uint8_t kMod3Uncovered = 3;

  PackedTable() = default;
  // `size` entries, all uncovered.
  PackedTable(TableEncoding encoding, uint64_t size);

  TableEncoding encoding() const { return encoding_; }
  uint64_t size() const { return size_; }
  // The packed bytes (a byte table: one distance per state).
  const uint8_t* data() const { return bytes_.data(); }
  // The byte that holds entry `index` (to prefetch it).
  const uint8_t* Address(uint64_t index) const {
    return bytes_.data() + (encoding_ == storage::v1::DISTANCE_MOD3 ? index >> 2 : index);
  }

  uint8_t Get(uint64_t index) const {
    if (encoding_ == storage::v1::DISTANCE_MOD3) {
      return (bytes_[index >> 2] >> (2 * (index & 3))) & 3;
    }
    return bytes_[index];
  }
  // REQUIRES: value fits the encoding (0..255 byte; 0..3 mod 3).
  void Set(uint64_t index, uint8_t value) {
    if (encoding_ == storage::v1::DISTANCE_MOD3) {
      const int shift = 2 * static_cast<int>(index & 3);
      uint8_t& b = bytes_[index >> 2];
      b = static_cast<uint8_t>((b & ~(3 << shift)) | (value << shift));
    } else {
      bytes_[index] = value;
    }
  }

  // Fills the table from BFS distances (0xFF unseen), converting to the encoding.
  void FromDistances(const HugeBuffer& distance);

  // The bytes of entries [first, first + count) as stored in a page. REQUIRES: for mod 3,
  // `first` is a multiple of 4.
  std::string Slice(uint64_t first, uint64_t count) const;
  // Writes bytes from a page into entries [first, first + count); false on a size mismatch.
  bool Assign(uint64_t first, uint64_t count, const std::string& bytes);
  // Bytes used by `count` entries of this encoding.
  uint64_t BytesFor(uint64_t count) const;

 private:
  TableEncoding encoding_ = storage::v1::DISTANCE_BYTE;
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
