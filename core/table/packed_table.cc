#include "core/table/packed_table.h"

#include <cstdlib>
#include <cstring>

namespace puzzledb {

namespace {
int EntriesPerByteLog2(TableEncoding encoding) {
  switch (encoding) {
    case storage::v1::DISTANCE_MOD3:
      return 2;
    case storage::v1::NEXT_MOVE:
    case storage::v1::PATTERN_EXCESS:
      return 1;
    default:
      return 0;
  }
}
}  // namespace

// All bits set is "uncovered" in every encoding (0xFF, 3, 15).
PackedTable::PackedTable(TableEncoding encoding, uint64_t size)
    : encoding_(encoding), shift_(EntriesPerByteLog2(encoding)), size_(size) {
  bytes_ = HugeBuffer(BytesFor(encoding, size), 0xFF);
}

PackedTable PackedTable::Unfilled(TableEncoding encoding, uint64_t size) {
  return Over(encoding, size, HugeBuffer::Unfilled(BytesFor(encoding, size)));
}

PackedTable PackedTable::Over(TableEncoding encoding, uint64_t size, HugeBuffer bytes) {
  PackedTable table;
  table.encoding_ = encoding;
  table.shift_ = EntriesPerByteLog2(encoding);
  table.size_ = size;
  table.bytes_ = std::move(bytes);
  return table;
}

void PackedTable::FromDistances(const HugeBuffer& distance) {
  if (encoding_ == storage::v1::NEXT_MOVE) std::abort();  // a caller's error: see the header
  if (encoding_ == storage::v1::DISTANCE_BYTE) {
    bytes_ = distance;
    return;
  }
  static constexpr uint8_t kResidue[256] = {
#define R(d) static_cast<uint8_t>((d) == 255 ? 3 : (d) % 3)
#define R4(d) R(d), R(d + 1), R(d + 2), R(d + 3)
#define R16(d) R4(d), R4(d + 4), R4(d + 8), R4(d + 12)
      R16(0),   R16(16),  R16(32),  R16(48),  R16(64),  R16(80),  R16(96),  R16(112),
      R16(128), R16(144), R16(160), R16(176), R16(192), R16(208), R16(224), R16(240)};
#undef R16
#undef R4
#undef R
  const uint64_t n = distance.size();
  for (uint64_t i = 0; i + 4 <= n; i += 4) {
    bytes_[i >> 2] = static_cast<uint8_t>(kResidue[distance[i]] | kResidue[distance[i + 1]] << 2 |
                                          kResidue[distance[i + 2]] << 4 |
                                          kResidue[distance[i + 3]] << 6);
  }
  for (uint64_t i = n & ~uint64_t{3}; i < n; ++i) Set(i, kResidue[distance[i]]);
}

uint64_t PackedTable::BytesFor(TableEncoding encoding, uint64_t count) {
  const int shift = EntriesPerByteLog2(encoding);
  return (count + (uint64_t{1} << shift) - 1) >> shift;
}

std::string PackedTable::Slice(uint64_t first, uint64_t count) const {
  return std::string(reinterpret_cast<const char*>(bytes_.data()) + (first >> shift_),
                     BytesFor(count));
}

HugeBuffer PackBands(const HugeBuffer& distance) {
  const uint64_t n = distance.size();
  HugeBuffer bands((n + 1) / 2, 0xFF);
  auto band = [](uint8_t d) { return d == 0xFF ? kBandUncovered : static_cast<uint8_t>(d / 3); };
  for (uint64_t i = 0; i + 2 <= n; i += 2) {
    bands[i >> 1] = static_cast<uint8_t>(band(distance[i]) | band(distance[i + 1]) << 4);
  }
  if (n & 1) bands[n >> 1] = static_cast<uint8_t>(0xF0 | band(distance[n - 1]));
  return bands;
}

}  // namespace puzzledb
