// The bytes of a table on disk, apart from the database that holds them (docs/FORMAT.md):
// the keys, the page values, their integers and checksums.
#ifndef PUZZLEDB_CORE_TABLE_TABLE_FORMAT_H_
#define PUZZLEDB_CORE_TABLE_TABLE_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/table/packed_table.h"

namespace puzzledb {

inline constexpr uint32_t kTableFormatVersion = 1;

// Keys: "M/<table id>" for the metadata record, "P/<table id>/<generation>/<page>" for the
// pages, "B/<table id>/<generation>/<page>" for the band pages of a modulo-3 table
// (generation and page in fixed-width lowercase hex).
inline constexpr std::string_view kMetadataPrefix = "M/";
enum class PageKind : char { kEntries = 'P', kBands = 'B' };
std::string MetadataKey(const std::string& table_id);
std::string PagePrefix(const std::string& table_id, uint64_t generation,
                       PageKind kind = PageKind::kEntries);
std::string PageKey(const std::string& table_id, uint64_t generation, uint32_t page,
                    PageKind kind = PageKind::kEntries);

// The keys of every page of a table of one kind, all generations: [begin, end).
struct KeyRange {
  std::string begin;
  std::string end;
};
KeyRange TablePages(const std::string& table_id, PageKind kind = PageKind::kEntries);
// The generation a page key of the table names, or 0 if it is not one.
uint64_t GenerationOfPageKey(std::string_view key, const std::string& table_id);

uint64_t PageCount(uint64_t entries, uint32_t per_page);

// A page value: header, then the payload compressed with zstd.
std::string EncodePage(TableEncoding encoding, uint64_t first_entry, uint32_t entry_count,
                       const std::string& payload, int compression_level);
// The page's payload; DATA_LOSS with what is wrong.
absl::StatusOr<std::string> DecodePage(const std::string& value, TableEncoding encoding,
                                       uint64_t first_entry, uint32_t entry_count);
// The same, decompressed straight into `out` (`out_size` bytes, which must be the payload's
// size), with the payload's CRC-32 (checked against the header's) in `*crc`: a load
// writes every page into the table's own memory and checks it once.
absl::Status DecodePageInto(std::string_view value, TableEncoding encoding, uint64_t first_entry,
                            uint32_t entry_count, uint8_t* out, uint64_t out_size, uint32_t* crc);

// The unpacked copy of a table (docs/FORMAT.md, "Unpacked copy"): a file of
// kUnpackedHeaderSize bytes of header, then the table's entries as its pages' payloads
// hold them, end to end, so that a load reads them without decoding.
inline constexpr uint64_t kUnpackedHeaderSize = 4096;
inline constexpr std::string_view kUnpackedFolder = "unpacked";
struct UnpackedHeader {
  std::string table_id;
  uint64_t generation = 0;
  uint32_t encoding = 0;
  uint64_t state_count = 0;
  uint64_t entry_bytes = 0;
  uint32_t content_crc32 = 0;
  bool operator==(const UnpackedHeader&) const = default;
};
std::string EncodeUnpackedHeader(const UnpackedHeader& header);
// DATA_LOSS with what is wrong (magic, size, format version, reserved bytes, the id).
absl::StatusOr<UnpackedHeader> DecodeUnpackedHeader(std::string_view bytes);
// "<table id>.<generation in 16 lowercase hex digits>", or empty when the id is not a
// plain file name (letters, digits, '.', '_', '-'; not starting with '.'): such a table
// has no copy.
std::string UnpackedFileName(const std::string& table_id, uint64_t generation);

// CRC-32 (zlib's) of `data`, and of two runs joined.
uint32_t Crc32(std::string_view data);
uint32_t Crc32Combine(uint32_t crc, uint32_t next, uint64_t next_size);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_TABLE_FORMAT_H_
