#include "core/table/packed_table.h"

#include <cstring>

namespace puzzledb {

PackedTable::PackedTable(TableEncoding encoding, uint64_t size)
    : encoding_(encoding), size_(size) {
  if (encoding_ == storage::v1::DISTANCE_MOD3) {
    bytes_ = HugeBuffer((size + 3) / 4, 0xFF);  // every 2-bit entry 3: uncovered
  } else {
    bytes_ = HugeBuffer(size, kByteUncovered);
  }
}

void PackedTable::FromDistances(const HugeBuffer& distance) {
  if (encoding_ != storage::v1::DISTANCE_MOD3) {
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

uint64_t PackedTable::BytesFor(uint64_t count) const {
  return encoding_ == storage::v1::DISTANCE_MOD3 ? (count + 3) / 4 : count;
}

std::string PackedTable::Slice(uint64_t first, uint64_t count) const {
  const uint64_t offset = encoding_ == storage::v1::DISTANCE_MOD3 ? first / 4 : first;
  return std::string(reinterpret_cast<const char*>(bytes_.data()) + offset, BytesFor(count));
}

bool PackedTable::Assign(uint64_t first, uint64_t count, const std::string& bytes) {
  if (bytes.size() != BytesFor(count) || first + count > size_) return false;
  const uint64_t offset = encoding_ == storage::v1::DISTANCE_MOD3 ? first / 4 : first;
  std::memcpy(bytes_.data() + offset, bytes.data(), bytes.size());
  return true;
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
