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

// The version a table is written in (its metadata's format_version), and the oldest one
// read. Version 2 puts the table id first in every key, so that a table's keys are one
// range and a file of one table holds no other's; version 1 put the kind of record first
// (docs/FORMAT.md, "Keys"). `puzzledb-build migrate` rewrites version-1 tables.
inline constexpr uint32_t kTableFormatVersion = 2;
inline constexpr uint32_t kOldestTableFormatVersion = 1;
// The unpacked copy's own header version (docs/FORMAT.md, "Unpacked copy").
inline constexpr uint32_t kUnpackedFormatVersion = 1;

// Keys (generation and page in fixed-width lowercase hex), version 2:
//   "T/<table id>/M"                        the metadata record
//   "T/<table id>/P/<generation>/<page>"    the pages
//   "T/<table id>/B/<generation>/<page>"    the band pages of a modulo-3 table
// version 1: "M/<table id>", "P/<table id>/<generation>/<page>", "B/<table id>/...".
// A table id holds no '/' (ValidTableId).
enum class PageKind : char { kEntries = 'P', kBands = 'B' };
inline constexpr std::string_view kTablePrefix = "T/";        // version 2
inline constexpr std::string_view kMetadataPrefixV1 = "M/";  // version 1
bool ValidTableId(std::string_view table_id);
std::string MetadataKey(const std::string& table_id, uint32_t version = kTableFormatVersion);
std::string PagePrefix(const std::string& table_id, uint64_t generation,
                       PageKind kind = PageKind::kEntries, uint32_t version = kTableFormatVersion);
std::string PageKey(const std::string& table_id, uint64_t generation, uint32_t page,
                    PageKind kind = PageKind::kEntries, uint32_t version = kTableFormatVersion);

// A range of keys, [begin, end).
struct KeyRange {
  std::string begin;
  std::string end;
};
// The keys of every page of a table of one kind, all generations.
KeyRange TablePages(const std::string& table_id, PageKind kind = PageKind::kEntries,
                    uint32_t version = kTableFormatVersion);
// Every key of a version-2 table: its record and all its pages.
KeyRange TableKeys(const std::string& table_id);
// The generation a page key of the table names, or 0 if it is not one.
uint64_t GenerationOfPageKey(std::string_view key, const std::string& table_id,
                             PageKind kind = PageKind::kEntries,
                             uint32_t version = kTableFormatVersion);
// The table a key of either version belongs to; empty for a key of neither.
std::string TableOfKey(std::string_view key);

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
