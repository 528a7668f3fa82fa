#include "core/table/table_format.h"

#include <libdeflate.h>
#include <zlib.h>
#include <zstd.h>

#include <charconv>
#include <cstring>

#include "core/util/strings.h"

namespace puzzledb {
namespace {

constexpr char kPageMagic[4] = {'P', 'Z', 'P', '1'};
constexpr char kUnpackedMagic[4] = {'P', 'Z', 'U', '1'};
constexpr size_t kPageHeader = 28;

void PutFixed32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void PutFixed64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint32_t GetFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
uint64_t GetFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

std::string Hex(uint64_t value, int digits) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(static_cast<size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, value >>= 4) out[i] = kDigits[value & 15];
  return out;
}

// The payload's bytes for `entry_count` entries of `encoding` (docs/FORMAT.md, "Page").
uint64_t PayloadSize(TableEncoding encoding, uint32_t entry_count) {
  return encoding == storage::v1::DISTANCE_MOD3 ? (uint64_t{entry_count} + 3) / 4
         : encoding == storage::v1::DISTANCE_BAND || encoding == storage::v1::NEXT_MOVE ||
                 encoding == storage::v1::PATTERN_EXCESS
             ? (uint64_t{entry_count} + 1) / 2
             : entry_count;
}

}  // namespace

uint64_t PageCount(uint64_t entries, uint32_t per_page) {
  return per_page == 0 ? 0 : (entries + per_page - 1) / per_page;
}

std::string EncodeUnpackedHeader(const UnpackedHeader& header) {
  std::string out(kUnpackedMagic, 4);
  PutFixed32(&out, kUnpackedFormatVersion);
  PutFixed64(&out, header.generation);
  PutFixed64(&out, header.state_count);
  PutFixed64(&out, header.entry_bytes);
  PutFixed32(&out, header.encoding);
  PutFixed32(&out, header.content_crc32);
  PutFixed32(&out, static_cast<uint32_t>(header.table_id.size()));
  out += header.table_id;
  out.resize(kUnpackedHeaderSize, '\0');
  return out;
}

absl::StatusOr<UnpackedHeader> DecodeUnpackedHeader(std::string_view bytes) {
  if (bytes.size() != kUnpackedHeaderSize || std::memcmp(bytes.data(), kUnpackedMagic, 4) != 0) {
    return absl::DataLossError("not an unpacked copy (bad header)");
  }
  const char* p = bytes.data();
  if (GetFixed32(p + 4) != kUnpackedFormatVersion) {
    return absl::DataLossError(Cat("unpacked copy of format version ", GetFixed32(p + 4),
                                   ", this program reads ", kUnpackedFormatVersion));
  }
  UnpackedHeader header;
  header.generation = GetFixed64(p + 8);
  header.state_count = GetFixed64(p + 16);
  header.entry_bytes = GetFixed64(p + 24);
  header.encoding = GetFixed32(p + 32);
  header.content_crc32 = GetFixed32(p + 36);
  const uint32_t id_size = GetFixed32(p + 40);
  constexpr size_t kIdAt = 44;
  if (id_size > kUnpackedHeaderSize - kIdAt) return absl::DataLossError("unpacked copy: bad id size");
  header.table_id.assign(p + kIdAt, id_size);
  for (size_t i = kIdAt + id_size; i < kUnpackedHeaderSize; ++i) {
    if (p[i] != 0) return absl::DataLossError("unpacked copy: nonzero reserved bytes");
  }
  return header;
}

std::string UnpackedFileName(const std::string& table_id, uint64_t generation) {
  if (table_id.empty() || table_id[0] == '.' || table_id.size() > 200) return "";
  for (char c : table_id) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-';
    if (!plain) return "";
  }
  return Cat(table_id, ".", Hex(generation, 16));
}

uint32_t Crc32(std::string_view data) {
  // zlib's CRC-32 (docs/FORMAT.md), computed by libdeflate, which gives the same value
  // four to five times as fast.
  return libdeflate_crc32(0, data.data(), data.size());
}

uint32_t Crc32Combine(uint32_t crc, uint32_t next, uint64_t next_size) {
  return static_cast<uint32_t>(crc32_combine(crc, next, static_cast<z_off_t>(next_size)));
}

bool ValidTableId(std::string_view table_id) {
  if (table_id.empty() || table_id.size() > 200) return false;
  for (const char c : table_id) {
    if (c == '/' || static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      return false;
    }
  }
  return true;
}

std::string MetadataKey(const std::string& table_id, uint32_t version) {
  if (version == 1) return Cat(kMetadataPrefixV1, table_id);
  return Cat(kTablePrefix, table_id, "/M");
}

std::string PagePrefix(const std::string& table_id, uint64_t generation, PageKind kind,
                       uint32_t version) {
  return Cat(TablePages(table_id, kind, version).begin, Hex(generation, 16), "/");
}

std::string PageKey(const std::string& table_id, uint64_t generation, uint32_t page,
                    PageKind kind, uint32_t version) {
  return PagePrefix(table_id, generation, kind, version) + Hex(page, 8);
}

// '0' is the byte after '/': every key "<prefix>/..." sorts in [begin, end), and no other
// (a table id holds no '/').
KeyRange TablePages(const std::string& table_id, PageKind kind, uint32_t version) {
  const char letter = static_cast<char>(kind);
  if (version == 1) return {Cat(letter, "/", table_id, "/"), Cat(letter, "/", table_id, "0")};
  return {Cat(kTablePrefix, table_id, "/", letter, "/"), Cat(kTablePrefix, table_id, "/", letter, "0")};
}

KeyRange TableKeys(const std::string& table_id) {
  return {Cat(kTablePrefix, table_id, "/"), Cat(kTablePrefix, table_id, "0")};
}

std::string TableOfKey(std::string_view key) {
  if (key.size() < 3 || key[1] != '/') return "";
  const char kind = key[0];
  if (kind != 'T' && kind != 'M' && kind != 'P' && kind != 'B') return "";
  key.remove_prefix(2);
  if (kind == 'M') return std::string(key);
  return std::string(key.substr(0, key.find('/')));
}

uint64_t GenerationOfPageKey(std::string_view key, const std::string& table_id, PageKind kind,
                             uint32_t version) {
  const std::string prefix = TablePages(table_id, kind, version).begin;
  if (key.substr(0, prefix.size()) != prefix || key.size() < prefix.size() + 16) return 0;
  uint64_t generation = 0;
  const std::string_view hex = key.substr(prefix.size(), 16);
  std::from_chars(hex.data(), hex.data() + hex.size(), generation, 16);
  return generation;
}

std::string EncodePage(TableEncoding encoding, uint64_t first_entry, uint32_t entry_count,
                       const std::string& payload, int compression_level) {
  std::string value(kPageMagic, 4);
  value.push_back(static_cast<char>(encoding));
  value.append(3, '\0');
  PutFixed64(&value, first_entry);
  PutFixed32(&value, entry_count);
  PutFixed32(&value, static_cast<uint32_t>(payload.size()));
  PutFixed32(&value, Crc32(payload));
  const size_t bound = ZSTD_compressBound(payload.size());
  value.resize(kPageHeader + bound);
  const size_t n = ZSTD_compress(value.data() + kPageHeader, bound, payload.data(), payload.size(),
                                 compression_level);
  value.resize(kPageHeader + (ZSTD_isError(n) ? 0 : n));
  // A table's pages are all held until they are written: each keeps what it stores, not
  // the bound it was compressed into (which held the table's size over again).
  value.shrink_to_fit();
  return value;
}

absl::Status DecodePageInto(std::string_view value, TableEncoding encoding, uint64_t first_entry,
                            uint32_t entry_count, uint8_t* out, uint64_t out_size, uint32_t* crc) {
  if (value.size() < kPageHeader || std::memcmp(value.data(), kPageMagic, 4) != 0) {
    return absl::DataLossError("not a page (bad header)");
  }
  if (value[5] != 0 || value[6] != 0 || value[7] != 0) {
    return absl::DataLossError("page header has nonzero reserved bytes");
  }
  if (static_cast<uint8_t>(value[4]) != encoding) {
    return absl::DataLossError(Cat("page encoding ", static_cast<int>(value[4]),
                                   " differs from the table's ", static_cast<int>(encoding)));
  }
  if (GetFixed64(value.data() + 8) != first_entry || GetFixed32(value.data() + 16) != entry_count) {
    return absl::DataLossError(Cat("page holds entries from ", GetFixed64(value.data() + 8), " (",
                                   GetFixed32(value.data() + 16), "), expected ", first_entry, " (",
                                   entry_count, ")"));
  }
  const uint32_t raw_size = GetFixed32(value.data() + 20);
  if (raw_size != PayloadSize(encoding, entry_count) || raw_size != out_size) {
    return absl::DataLossError("page payload size is wrong");
  }
  const size_t n = ZSTD_decompress(out, out_size, value.data() + kPageHeader,
                                   value.size() - kPageHeader);
  if (ZSTD_isError(n) || n != raw_size) {
    return absl::DataLossError(Cat("page does not decompress: ",
                                   ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short payload"));
  }
  *crc = Crc32(std::string_view(reinterpret_cast<const char*>(out), out_size));
  if (*crc != GetFixed32(value.data() + 24)) return absl::DataLossError("page CRC mismatch");
  return absl::OkStatus();
}

absl::StatusOr<std::string> DecodePage(const std::string& value, TableEncoding encoding,
                                       uint64_t first_entry, uint32_t entry_count) {
  std::string payload(PayloadSize(encoding, entry_count), '\0');
  uint32_t crc = 0;
  absl::Status decoded =
      DecodePageInto(value, encoding, first_entry, entry_count,
                     reinterpret_cast<uint8_t*>(payload.data()), payload.size(), &crc);
  if (!decoded.ok()) return decoded;
  return payload;
}

}  // namespace puzzledb
