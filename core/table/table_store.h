// The tables on disk: a RocksDB database holding, per table, one metadata record and the
// table's entries in compressed pages (docs/FORMAT.md describes every byte).
//
// A table is written atomically: its pages, its band pages and its metadata go into SST
// files (the pages a batch at a time) that are ingested in one step, under a new generation, and only then are the previous
// generation's pages deleted. A build killed at any point leaves the previous table (or
// none) in place, never a half table that looks whole.
//
// Beside the database, in its folder `unpacked/`, a large table (UnpackedCopies) also has
// an unpacked copy: its entries as they are in memory, with a header naming the table's
// generation and content CRC. A load maps the copy when it passes those checks (0.03 s
// for 288 MB of entries against 0.6 s of decoding: docs/PERFORMANCE.md), and reads the
// pages otherwise.
#ifndef PUZZLEDB_CORE_TABLE_TABLE_STORE_H_
#define PUZZLEDB_CORE_TABLE_TABLE_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/table/packed_table.h"
#include "core/table/table_format.h"
#include "puzzledb/storage/v1/table.pb.h"

namespace rocksdb {
class DB;
}

namespace puzzledb {

using TableMetadata = storage::v1::TableMetadata;

inline constexpr uint32_t kDefaultEntriesPerPage = 1u << 18;

// A table read back and checked: its metadata and its entries in memory.
struct LoadedTable {
  TableMetadata metadata;
  PackedTable entries;
  bool from_unpacked_copy = false;  // read from its unpacked copy, not decoded from pages
  std::string unpacked_problem;     // why its unpacked copy was passed over, if it was
};

// Which tables get an unpacked copy (docs/FORMAT.md): those whose entries take at least
// kUnpackedCopyMinBytes (decoding smaller ones takes a few milliseconds, and a copy would
// double their size on disk), every one, or none.
enum class UnpackedCopies { kLarge, kAll, kNone };
inline constexpr uint64_t kUnpackedCopyMinBytes = uint64_t{32} << 20;
// Whether a table of `entry_bytes` gets a copy under `which`.
inline bool GetsUnpackedCopy(UnpackedCopies which, uint64_t entry_bytes) {
  return which == UnpackedCopies::kAll ||
         (which == UnpackedCopies::kLarge && entry_bytes >= kUnpackedCopyMinBytes);
}

struct TableWriteOptions {
  int compression_level = 9;  // zstd
  uint32_t entries_per_page = kDefaultEntriesPerPage;
  int threads = 0;  // 0: one per hardware thread
  UnpackedCopies unpacked = UnpackedCopies::kLarge;
};

// Thread-safe.
class TableStore {
 public:
  enum class Mode {
    kReadOnly,   // never writes; fails if the database does not exist
    kReadWrite,          // creates the database if missing; one read-write user at a time
    kReadWriteExisting,  // as kReadWrite, but NOT_FOUND (saying how to build one) if missing
  };

  static absl::StatusOr<std::unique_ptr<TableStore>> Open(const std::string& dir, Mode mode);
  ~TableStore();
  TableStore(const TableStore&) = delete;
  TableStore& operator=(const TableStore&) = delete;

  const std::string& dir() const { return dir_; }
  Mode mode() const { return mode_; }

  // Every readable table's metadata, ordered by table id, of either format version
  // (docs/FORMAT.md, "Keys"). A table whose record sits in a damaged file (RocksDB's
  // checksums fail) is left out and named by Damaged(): a damaged file costs the tables
  // whose keys it holds (in format version 2, one table's files hold that table's keys
  // alone), not the database.
  absl::StatusOr<std::vector<TableMetadata>> List() const;
  // The tables the last List() could not read, by id, with why: "damaged file N.sst
  // (RocksDB's words)".
  std::map<std::string, std::string> Damaged() const;
  // NOT_FOUND if there is no such table.
  absl::StatusOr<TableMetadata> ReadMetadata(const std::string& table_id) const;
  // Reads a table and checks it: its unpacked copy (the header against the metadata, the
  // content CRC) when there is one that passes; else every page (RocksDB block checksums,
  // each page's CRC, the page count, the content CRC). NOT_FOUND if there is no such table,
  // DATA_LOSS naming the table and the first bad page otherwise. Not cached: callers keep
  // what they load.
  absl::StatusOr<std::shared_ptr<const LoadedTable>> Load(const std::string& table_id) const;
  // Reads every page and the unpacked copy (if any) of a table without keeping them:
  // DATA_LOSS naming what is wrong with either (verify and info; a load that reads the copy
  // does not see a damaged page).
  absl::Status Check(const std::string& table_id) const;
  // Reads every page of a table and checks it (its CRC, and the content CRC), holding a
  // batch of pages at a time, not the table: a build reading back what it wrote.
  absl::Status CheckPages(const std::string& table_id) const;
  // Writes a table's unpacked copy from its pages (a database written before the copies
  // existed, or a copy found damaged). REQUIRES: kReadWrite.
  absl::Status Unpack(const std::string& table_id);
  // Where the table's unpacked copy is (whether or not it exists); empty if its id cannot
  // name a file.
  std::string UnpackedPath(const TableMetadata& m) const;
  // The exact distance of every state of a loaded modulo-3 table, 255 where not covered:
  // its residues combined with its band pages (docs/FORMAT.md), which are read and checked
  // here (page CRCs, the band CRC, agreement with the residues). FAILED_PRECONDITION if
  // the table has no band pages, DATA_LOSS if they fail a check. Only sampling needs this
  // (67.6 MB for the knight), so it is not part of Load.
  absl::StatusOr<HugeBuffer> LoadExactDistances(const LoadedTable& table) const;
  // Writes (or replaces) a table atomically. `metadata` supplies what the caller knows (id,
  // puzzle, parameters, coverage, histogram, build figures); the store fills in the paging
  // fields, generation, checksum and sizes. `bands` (modulo-3 tables: every state's
  // distance divided by 3, PackedBands) are written as the table's band pages.
  // REQUIRES: kReadWrite.
  absl::Status Write(TableMetadata metadata, const PackedTable& entries,
                     const TableWriteOptions& options, const HugeBuffer* bands = nullptr);
  // Removes a table. REQUIRES: kReadWrite.
  absl::Status Remove(const std::string& table_id);
  // What a migration does to a table's record beyond its format: true if it changed it
  // (a definition's table read the old way, core/defined/defined_puzzle.h), false if it
  // needs nothing; an error leaves the table as it is.
  using RecordRewrite = std::function<absl::StatusOr<bool>(TableMetadata*)>;
  // Rewrites a format-version-1 table under the current keys (its pages' bytes as they are,
  // the same generation: its unpacked copy stays valid), and its record as `rewrite` says,
  // atomically, after checking every page; then deletes its old keys. A current table whose
  // record `rewrite` changes gets that record alone. True if it changed the table, false if
  // it was current already (old keys a cut-off migration left are deleted then); DATA_LOSS
  // for a damaged table, which is left as it is. `pages_moved`: pages and band pages
  // written. REQUIRES: kReadWrite.
  absl::StatusOr<bool> Migrate(const std::string& table_id, uint64_t* pages_moved = nullptr,
                               const RecordRewrite& rewrite = nullptr);
  // Copies table `table_id` of `from` (another database: one a build wrote aside while a
  // server holds this one) into this store, atomically, after checking every page of it:
  // its pages' bytes as they are, under a generation newer than this store's, and its
  // record; the table this store held under that id (if any) is served until the ingest,
  // and deleted after it; a large table gets its unpacked copy here as `unpacked` says.
  // Returns the record as stored. NOT_FOUND if `from` has no such table, DATA_LOSS if it is
  // damaged, FAILED_PRECONDITION if it is of an older format. REQUIRES: kReadWrite.
  absl::StatusOr<TableMetadata> Import(const TableStore& from, const std::string& table_id,
                                       UnpackedCopies unpacked = UnpackedCopies::kLarge);
  // The bytes its pages (and band pages) take in the database's files (approximate:
  // RocksDB's estimate), and its unpacked copy.
  uint64_t SizeOnDisk(const std::string& table_id) const;

 private:
  TableStore(std::string dir, Mode mode, rocksdb::DB* db);
  absl::Status DeleteOlderGenerations(const std::string& table_id, uint64_t generation);
  // A format-version-1 table's record and pages, if it has any.
  absl::Status DeleteVersion1(const std::string& table_id);
  absl::Status DeleteKeys(const std::string& begin, const std::string& end);
  // Writes the `count` pages of one kind of table m (its record's generation, keys of
  // format `from_version`) from `source` into the SST file `file`, under `generation` and
  // the current keys, their bytes as they are, checked as they are read; `pages` counts them.
  static absl::Status CopyPages(const TableStore& source, const TableMetadata& m, uint32_t from_version,
                                uint64_t generation, PageKind kind, uint32_t count,
                                const std::string& file, uint64_t* pages);
  // Ingests a table's files in one step (docs/FORMAT.md, "Atomicity") and removes them;
  // the crash tests' points are `crash_points` + "before-ingest" / "after-ingest".
  absl::Status Ingest(const std::string& table_id, const std::vector<std::string>& files,
                      std::string_view crash_points);
  // The newest generation of the table's pages in either layout; 0 if it has none.
  uint64_t NewestGeneration(const std::string& table_id) const;
  absl::StatusOr<std::shared_ptr<const LoadedTable>> Load(const std::string& table_id,
                                                          bool pages_only) const;
  // Every page, checked (the metadata's fields are checked already).
  // `keep` false: each page is decoded into a scratch buffer and checked, and the table's
  // entries are left empty (CheckPages).
  absl::StatusOr<std::shared_ptr<LoadedTable>> LoadPages(const TableMetadata& m,
                                                         bool keep = true) const;
  // NOT_FOUND if the table has no copy, DATA_LOSS if it fails a check.
  absl::StatusOr<std::shared_ptr<LoadedTable>> LoadUnpacked(const TableMetadata& m) const;
  absl::Status WriteUnpacked(const TableMetadata& m, const PackedTable& entries);
  // Removes the table's copies of every generation (and their temporary files) but `keep`.
  void RemoveUnpacked(const std::string& table_id, const std::string& keep) const;

  const std::string dir_;
  const Mode mode_;
  std::unique_ptr<rocksdb::DB> db_;
  std::mutex write_mutex_;  // one table write at a time
  mutable std::mutex damaged_mutex_;
  mutable std::map<std::string, std::string> damaged_;  // guarded by damaged_mutex_
};

// A seam for the crash tests (tests/crash_build_main.cc): called at each point of a table
// write where a crash must leave the database whole ("before-ingest", "after-ingest", the
// same with "migrate-" before them for a migration). None by default: the programs never set
// one. Set it before any write; it may end the process.
using WritePointHook = void (*)(std::string_view point);
void SetWritePointHook(WritePointHook hook);

// Writes a table of bounds (pattern tables: no state's distance, `complete` false) with what
// every such table records: its entries all covered, `histogram` and `max_distance`, the
// build's time; returns the metadata as stored. `m` holds the id, the puzzle and the
// parameters.
absl::StatusOr<TableMetadata> WriteBoundTable(TableStore& store, TableMetadata m,
                                              const PackedTable& entries,
                                              const std::vector<uint64_t>& histogram,
                                              uint32_t max_distance, double build_seconds,
                                              const TableWriteOptions& write);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_TABLE_STORE_H_
