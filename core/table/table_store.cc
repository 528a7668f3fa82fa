#include "core/table/table_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>
#include <vector>

#include "core/table/table_format.h"
#include "core/util/on_threads.h"
#include "core/util/strings.h"
#include "core/util/text_input.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_reader.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"

namespace puzzledb {
namespace {

absl::Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return absl::OkStatus();
  const std::string message = Cat(what, ": ", s.ToString());
  if (s.IsNotFound()) return absl::NotFoundError(message);
  if (s.IsCorruption()) return absl::DataLossError(message);
  if (s.IsIOError() && s.ToString().find("lock") != std::string::npos) {
    return absl::UnavailableError(
        Cat(what, ": the database is in use by another process (a running puzzledb-server or "
                  "puzzledb-build?): ",
            s.ToString()));
  }
  return absl::InternalError(message);
}

rocksdb::Options DatabaseOptions(bool create) {
  rocksdb::Options options;
  options.create_if_missing = create;
  options.compression = rocksdb::kNoCompression;  // pages are compressed already
  options.keep_log_file_num = 2;
  // A damaged file fails only the reads that touch it (List, Load), not the opening of the
  // whole database: RocksDB still checks every block it reads, and each page has its own
  // checksums (docs/FORMAT.md).
  options.paranoid_checks = false;
  options.max_log_file_size = 1 << 20;
  rocksdb::BlockBasedTableOptions table;
  table.block_size = 64 << 10;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

// A file of a table's record alone (under the current version's key), to be ingested with
// its pages.
absl::Status WriteRecordFile(const std::string& file, const TableMetadata& m) {
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), DatabaseOptions(true));
  rocksdb::Status s = writer.Open(file);
  if (s.ok()) s = writer.Put(MetadataKey(m.table_id()), m.SerializeAsString());
  if (s.ok()) s = writer.Finish();
  return FromRocks(s, Cat("table ", m.table_id(), ": writing ", file));
}

std::atomic<WritePointHook> write_point_hook{nullptr};

// A point of a table write where the crash tests may end the process (SetWritePointHook).
void CrashPoint(std::string_view point) {
  if (const WritePointHook hook = write_point_hook.load(std::memory_order_acquire)) hook(point);
}

}  // namespace

void SetWritePointHook(WritePointHook hook) { write_point_hook.store(hook, std::memory_order_release); }

TableStore::TableStore(std::string dir, Mode mode, rocksdb::DB* db)
    : dir_(std::move(dir)), mode_(mode), db_(db) {}

TableStore::~TableStore() = default;

absl::StatusOr<std::unique_ptr<TableStore>> TableStore::Open(const std::string& dir, Mode mode) {
  rocksdb::DB* db = nullptr;
  rocksdb::Status s;
  if (mode != Mode::kReadWrite && !std::filesystem::exists(std::filesystem::path(dir) / "CURRENT")) {
    return absl::NotFoundError(
        Cat("no puzzledb database at ", dir, " (build one with: puzzledb-build --db ", dir, ")"));
  }
  if (mode == Mode::kReadOnly) {
    // Named column families: OpenForReadOnly(Options, ...) first tries RocksDB's
    // "compacted" mode (made for point reads; the store iterates), which reads the
    // manifest and opens the files only to give up when they are on more than one level:
    // twice the work of an open, about 8 ms of the CLI's first answer.
    const rocksdb::Options options = DatabaseOptions(false);
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    s = rocksdb::DB::OpenForReadOnly(
        rocksdb::DBOptions(options), dir,
        {rocksdb::ColumnFamilyDescriptor(rocksdb::kDefaultColumnFamilyName,
                                         rocksdb::ColumnFamilyOptions(options))},
        &handles, &db);
    // The store reads through the database's own default handle.
    for (rocksdb::ColumnFamilyHandle* handle : handles) db->DestroyColumnFamilyHandle(handle);
  } else {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return absl::PermissionDeniedError(Cat("cannot create ", dir, ": ", ec.message()));
    s = rocksdb::DB::Open(DatabaseOptions(true), dir, &db);
    // Leftovers of builds killed before their ingest; only by the one writer, once it holds
    // the database (a refused open must not take another writer's files from under it).
    if (s.ok()) std::filesystem::remove_all(std::filesystem::path(dir) / "staging", ec);
  }
  if (!s.ok()) return FromRocks(s, Cat("cannot open the database at ", dir));
  return std::unique_ptr<TableStore>(new TableStore(dir, mode, db));
}

namespace {

// Adds the table of every key `it` reaches to `ids`, a seek per table (not a step per
// page). Returns the iteration's status.
rocksdb::Status CollectTableIds(rocksdb::Iterator* it, std::set<std::string>* ids) {
  it->SeekToFirst();
  while (it->Valid()) {
    const std::string_view key = it->key().ToStringView();
    const std::string id = TableOfKey(key);
    if (id.empty()) {
      it->Next();
      continue;
    }
    ids->insert(id);
    // Past this table's keys of this kind: "M/<id>" is one key; "T/<id>/...", "P/<id>/..."
    // and "B/<id>/..." all sort before "<kind>/<id>0".
    if (key[0] == 'M') {
      it->Seek(Cat(key, std::string(1, '\0')));
    } else {
      it->Seek(Cat(key.substr(0, 2), id, "0"));
    }
  }
  return it->status();
}

}  // namespace

absl::StatusOr<std::vector<TableMetadata>> TableStore::List() const {
  // The tables are found from the files' key ranges and then read one by one, each by its
  // own lookup, so that a damaged file fails the reads of the keys it holds and no other.
  // One iteration across the tables would not do: RocksDB (7.8) ends an iteration that
  // steps into a damaged file without an error, and every table past it would go unlisted
  // and unnamed.
  std::set<std::string> ids;
  std::map<std::string, std::string> damaged;
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  for (const rocksdb::LiveFileMetaData& file : files) {
    const std::string first = TableOfKey(file.smallestkey);
    const std::string last = TableOfKey(file.largestkey);
    if (!first.empty()) ids.insert(first);
    if (!last.empty()) ids.insert(last);
    if (first == last) continue;
    // A file of several tables' keys (compacted together): the tables between, from the
    // file itself; if it cannot be read, the tables at its ends are named with it.
    rocksdb::SstFileReader reader(DatabaseOptions(false));
    rocksdb::Status s = reader.Open(dir_ + "/" + file.relative_filename);
    if (s.ok()) {
      std::unique_ptr<rocksdb::Iterator> it(reader.NewIterator(rocksdb::ReadOptions()));
      s = CollectTableIds(it.get(), &ids);
    }
    if (!s.ok()) {
      const std::string why = Cat("damaged file ", file.relative_filename, " (", s.ToString(), ")");
      for (const std::string& id : {first, last}) {
        if (!id.empty()) damaged.try_emplace(id, why);
      }
    }
  }
  // What is not in a file yet (a write's records before a flush). This iteration may stop
  // short at a damaged file; the files above name every table it would miss.
  {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    CollectTableIds(it.get(), &ids).PermitUncheckedError();
  }
  std::vector<TableMetadata> tables;
  for (const std::string& id : ids) {
    if (damaged.count(id) != 0) continue;
    auto metadata = ReadMetadata(id);
    if (metadata.ok()) {
      tables.push_back(*std::move(metadata));
    } else if (!absl::IsNotFound(metadata.status())) {  // pages without a record: garbage
      // RocksDB names the file for a bad block, not for a bad footer: the files whose range
      // holds the record (in either layout) are named, so that the reader knows which.
      std::vector<std::string> holding;
      for (const rocksdb::LiveFileMetaData& file : files) {
        for (const uint32_t version : {kOldestTableFormatVersion, kTableFormatVersion}) {
          const std::string key = MetadataKey(id, version);
          if (key >= file.smallestkey && key <= file.largestkey) holding.push_back(file.relative_filename);
        }
      }
      damaged.try_emplace(id, holding.empty()
                                  ? Cat("unreadable record (", Message(metadata.status()), ")")
                                  : Cat("damaged file ", Join(holding, ", "), " (",
                                        Message(metadata.status()), ")"));
    }
  }
  {
    std::lock_guard<std::mutex> lock(damaged_mutex_);
    damaged_ = damaged;
  }
  return tables;
}

std::map<std::string, std::string> TableStore::Damaged() const {
  std::lock_guard<std::mutex> lock(damaged_mutex_);
  return damaged_;
}

absl::StatusOr<TableMetadata> TableStore::ReadMetadata(const std::string& table_id) const {
  if (!ValidTableId(table_id)) return absl::NotFoundError(Cat("no table ", QuoteInput(table_id)));
  // The current layout's record, else a version-1 table's (docs/FORMAT.md, "Keys").
  for (const uint32_t version : {kTableFormatVersion, kOldestTableFormatVersion}) {
    std::string value;
    const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), MetadataKey(table_id, version), &value);
    if (s.IsNotFound()) continue;
    if (!s.ok()) return FromRocks(s, Cat("table ", table_id, ": reading its metadata"));
    TableMetadata metadata;
    if (!metadata.ParseFromString(value) || metadata.table_id() != table_id) {
      return absl::DataLossError(Cat("table ", table_id, ": unreadable metadata record"));
    }
    if (metadata.format_version() != version) {
      return absl::DataLossError(Cat("table ", table_id, ": a record of format version ",
                                     metadata.format_version(), " under a version-", version,
                                     " key"));
    }
    return metadata;
  }
  return absl::NotFoundError(Cat("no table ", table_id));
}

absl::StatusOr<std::shared_ptr<const LoadedTable>> TableStore::Load(
    const std::string& table_id) const {
  return Load(table_id, /*pages_only=*/false);
}

absl::StatusOr<std::shared_ptr<const LoadedTable>> TableStore::Load(const std::string& table_id,
                                                                     bool pages_only) const {
  auto metadata = ReadMetadata(table_id);
  if (!metadata.ok()) return metadata.status();
  const TableMetadata& m = *metadata;
  auto bad = [&](std::string_view what) {
    return absl::DataLossError(Cat("table ", table_id, ": ", what));
  };
  if (m.format_version() < kOldestTableFormatVersion || m.format_version() > kTableFormatVersion) {
    return bad(Cat("format version ", m.format_version(), ", this program reads ",
                   kOldestTableFormatVersion, " to ", kTableFormatVersion));
  }
  if (m.encoding() != storage::v1::DISTANCE_BYTE && m.encoding() != storage::v1::DISTANCE_MOD3 &&
      m.encoding() != storage::v1::NEXT_MOVE && m.encoding() != storage::v1::PATTERN_EXCESS) {
    return bad("unknown encoding");
  }
  if (m.state_count() == 0 || m.state_count() > (uint64_t{1} << 36) ||
      m.page_count() != PageCount(m.state_count(), m.entries_per_page()) ||
      m.entries_per_page() % 4 != 0) {
    return bad("inconsistent sizes in the metadata");
  }
  // The unpacked copy when there is one and it passes its checks; else the pages, with why
  // the copy was passed over.
  std::string passed_over;
  if (!pages_only) {
    auto copy = LoadUnpacked(m);
    if (copy.ok()) return std::shared_ptr<const LoadedTable>(std::move(*copy));
    if (!absl::IsNotFound(copy.status())) passed_over = std::string(Message(copy.status()));
  }
  auto pages = LoadPages(m);
  if (!pages.ok()) {
    if (passed_over.empty()) return pages.status();
    return absl::Status(pages.status().code(), Cat(Message(pages.status()), "; its ", passed_over));
  }
  (*pages)->unpacked_problem = passed_over;
  return std::shared_ptr<const LoadedTable>(std::move(*pages));
}

absl::StatusOr<std::shared_ptr<LoadedTable>> TableStore::LoadPages(const TableMetadata& m,
                                                                   bool keep) const {
  const std::string& table_id = m.table_id();
  auto bad = [&](std::string_view what) {
    return absl::DataLossError(Cat("table ", table_id, ": ", what));
  };
  auto table = std::make_shared<LoadedTable>();
  table->metadata = m;
  // Every byte comes from a page, and a table with a page missing is refused.
  if (keep) table->entries = PackedTable::Unfilled(m.encoding(), m.state_count());

  rocksdb::ReadOptions read;
  read.verify_checksums = true;
  read.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read));
  const std::string prefix = PagePrefix(table_id, m.generation(), PageKind::kEntries, m.format_version());
  // The pages are read in order here and decoded, copied in and checksummed a batch at a
  // time on every hardware thread (decompressing and checksumming are most of a load:
  // docs/PERFORMANCE.md, "Loading tables"); their checksums are combined in page order.
  constexpr uint32_t kBatch = 32;
  const int threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  std::vector<std::string> values(kBatch);
  std::vector<absl::Status> problems(kBatch);
  std::vector<uint32_t> crcs(kBatch);
  std::vector<uint64_t> sizes(kBatch);
  std::vector<std::vector<uint8_t>> scratch(keep ? 0 : kBatch);  // a page's bytes each
  uint32_t crc = 0;
  it->Seek(prefix);
  for (uint32_t start = 0; start < m.page_count(); start += kBatch) {
    const uint32_t n = std::min(kBatch, m.page_count() - start);
    for (uint32_t i = 0; i < n; ++i, it->Next()) {
      const uint32_t page = start + i;
      if (!it->Valid() ||
          it->key().ToString() != PageKey(table_id, m.generation(), page, PageKind::kEntries,
                                          m.format_version())) {
        if (!it->status().ok()) return FromRocks(it->status(), Cat("table ", table_id));
        return bad(Cat("page ", page, " of ", m.page_count(), " is missing"));
      }
      values[i] = it->value().ToString();
    }
    OnThreads(n, threads, [&](uint64_t i) {
      const uint64_t first = (start + i) * uint64_t{m.entries_per_page()};
      const auto count = static_cast<uint32_t>(
          std::min<uint64_t>(m.entries_per_page(), m.state_count() - first));
      // Decompressed into the table's own bytes (disjoint per page) and checked there.
      sizes[i] = PackedTable::BytesFor(m.encoding(), count);
      uint8_t* into;
      if (keep) {
        into = table->entries.MutableBytes(first);
      } else {
        scratch[i].resize(sizes[i]);
        into = scratch[i].data();
      }
      problems[i] = DecodePageInto(values[i], m.encoding(), first, count, into, sizes[i], &crcs[i]);
    });
    for (uint32_t i = 0; i < n; ++i) {
      if (!problems[i].ok()) return bad(Cat("page ", start + i, ": ", Message(problems[i])));
      crc = Crc32Combine(crc, crcs[i], sizes[i]);
    }
  }
  if (!it->status().ok()) return FromRocks(it->status(), Cat("table ", table_id));
  if (crc != m.content_crc32()) return bad("content CRC mismatch");
  return table;
}

std::string TableStore::UnpackedPath(const TableMetadata& m) const {
  const std::string name = UnpackedFileName(m.table_id(), m.generation());
  if (name.empty()) return "";
  return (std::filesystem::path(dir_) / kUnpackedFolder / name).string();
}

absl::StatusOr<std::shared_ptr<LoadedTable>> TableStore::LoadUnpacked(const TableMetadata& m) const {
  const std::string path = UnpackedPath(m);
  if (path.empty()) return absl::NotFoundError("no unpacked copy for such a table id");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return absl::NotFoundError(Cat("no unpacked copy ", path));
    return absl::DataLossError(Cat("unpacked copy ", path, ": ", std::strerror(errno)));
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  auto bad = [&](std::string_view what) {
    return absl::DataLossError(Cat("unpacked copy ", path, ": ", what));
  };
  auto table = std::make_shared<LoadedTable>();
  table->metadata = m;
  const uint64_t bytes = PackedTable::BytesFor(m.encoding(), m.state_count());
  struct stat st {};
  if (fstat(fd, &st) != 0) return bad(std::strerror(errno));
  if (static_cast<uint64_t>(st.st_size) != kUnpackedHeaderSize + bytes) {
    return bad(Cat(st.st_size, " bytes, the table needs ", kUnpackedHeaderSize + bytes));
  }
  std::string head(kUnpackedHeaderSize, '\0');
  if (pread(fd, head.data(), head.size(), 0) != static_cast<ssize_t>(head.size())) {
    return bad("its header cannot be read");
  }
  auto header = DecodeUnpackedHeader(head);
  if (!header.ok()) return bad(Message(header.status()));
  const UnpackedHeader expected{m.table_id(), m.generation(), static_cast<uint32_t>(m.encoding()),
                                m.state_count(), bytes, m.content_crc32()};
  if (!(*header == expected)) return bad("its header does not match the table's metadata");
  // Mapped, not read: the page cache's memory is the table's (shared by every process
  // that maps it, in huge pages where the kernel keeps the file so: docs/PERFORMANCE.md),
  // and checksummed in slices on every hardware thread.
  int error = 0;
  HugeBuffer mapped = HugeBuffer::MapFile(fd, kUnpackedHeaderSize + bytes, kUnpackedHeaderSize, &error);
  if (mapped.empty()) return bad(Cat("mapping it: ", std::strerror(error)));
  constexpr uint64_t kSlice = uint64_t{8} << 20;
  const uint64_t slices = (bytes + kSlice - 1) / kSlice;
  std::vector<uint32_t> crcs(slices);
  const uint8_t* in = mapped.data();
  const int threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  OnThreads(slices, threads, [&](uint64_t i) {
    const uint64_t begin = i * kSlice;
    crcs[i] = Crc32(std::string_view(reinterpret_cast<const char*>(in + begin),
                                     std::min(kSlice, bytes - begin)));
  });
  uint32_t crc = 0;
  for (uint64_t i = 0; i < slices; ++i) crc = Crc32Combine(crc, crcs[i], std::min(kSlice, bytes - i * kSlice));
  if (crc != m.content_crc32()) return bad("content CRC mismatch");
  table->entries = PackedTable::Over(m.encoding(), m.state_count(), std::move(mapped));
  table->from_unpacked_copy = true;
  return table;
}

absl::Status TableStore::WriteUnpacked(const TableMetadata& m, const PackedTable& entries) {
  const std::string path = UnpackedPath(m);
  if (path.empty()) return absl::OkStatus();  // the pages serve such a table alone
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(dir_) / kUnpackedFolder;
  std::filesystem::create_directories(folder, ec);
  const std::string temporary = path + ".tmp";
  auto failed = [&](std::string_view what) {
    const int error = errno;
    std::filesystem::remove(temporary, ec);
    return absl::InternalError(Cat("table ", m.table_id(), " is written, but not its unpacked copy ",
                                   path, ": ", what, ": ", std::strerror(error)));
  };
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return failed("creating it");
  const uint64_t bytes = entries.BytesFor(entries.size());
  const std::string header = EncodeUnpackedHeader(
      {m.table_id(), m.generation(), static_cast<uint32_t>(m.encoding()), m.state_count(), bytes,
       m.content_crc32()});
  auto write_all = [&](const char* data, uint64_t size) {
    for (uint64_t done = 0; done < size;) {
      const ssize_t n = write(fd, data + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<uint64_t>(n);
    }
    return true;
  };
  const bool written = write_all(header.data(), header.size()) &&
                       write_all(reinterpret_cast<const char*>(entries.data()), bytes) &&
                       fsync(fd) == 0;
  if (close(fd) != 0 || !written) return failed("writing it");
  // Whole or absent under its final name: a crash leaves at most the temporary file, which
  // the next write of the table removes.
  if (rename(temporary.c_str(), path.c_str()) != 0) return failed("renaming it");
  RemoveUnpacked(m.table_id(), std::filesystem::path(path).filename().string());
  return absl::OkStatus();
}

void TableStore::RemoveUnpacked(const std::string& table_id, const std::string& keep) const {
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(dir_) / kUnpackedFolder;
  const std::string prefix = table_id + ".";
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    // "<id>.<16 hex digits>" and its ".tmp": this table's, of any generation.
    if (name == keep || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    const std::string generation = rest.substr(0, 16);
    if (generation.size() != 16 || generation.find_first_not_of("0123456789abcdef") != std::string::npos ||
        (rest.size() != 16 && rest.substr(16) != ".tmp")) {
      continue;
    }
    std::filesystem::remove(entry.path(), ec);
  }
}

absl::Status TableStore::Check(const std::string& table_id) const {
  auto pages = Load(table_id, /*pages_only=*/true);
  if (!pages.ok()) return pages.status();
  auto copy = LoadUnpacked((*pages)->metadata);
  if (copy.ok() || absl::IsNotFound(copy.status())) return absl::OkStatus();  // none is whole
  return absl::DataLossError(Cat("table ", table_id, ": ", Message(copy.status())));
}

absl::Status TableStore::CheckPages(const std::string& table_id) const {
  auto m = ReadMetadata(table_id);
  if (!m.ok()) return m.status();
  return LoadPages(*m, /*keep=*/false).status();
}

absl::Status TableStore::Unpack(const std::string& table_id) {
  if (mode_ == Mode::kReadOnly) return absl::FailedPreconditionError("the database is read-only");
  std::lock_guard<std::mutex> lock(write_mutex_);
  auto pages = Load(table_id, /*pages_only=*/true);
  if (!pages.ok()) return pages.status();
  return WriteUnpacked((*pages)->metadata, (*pages)->entries);
}

absl::StatusOr<HugeBuffer> TableStore::LoadExactDistances(const LoadedTable& table) const {
  const TableMetadata& m = table.metadata;
  const std::string& id = m.table_id();
  if (m.encoding() == storage::v1::DISTANCE_BYTE) {
    return absl::InvalidArgumentError(Cat("table ", id, " holds exact distances already"));
  }
  if (m.band_page_count() == 0 || m.encoding() != storage::v1::DISTANCE_MOD3) {
    return absl::FailedPreconditionError(
        Cat("table ", id, " has no band pages (its exact distances come from searching again; "
                          "for a modulo-3 table, puzzledb-build --db ", dir_, " --puzzle ",
            m.puzzle(), " --band-pages writes them)"));
  }
  auto bad = [&](std::string_view what) {
    return absl::DataLossError(Cat("table ", id, ": band pages: ", what));
  };
  if (m.band_page_count() != m.page_count()) return bad("their count differs from the pages'");
  HugeBuffer exact(m.state_count(), PackedTable::kByteUncovered);
  rocksdb::ReadOptions read;
  read.verify_checksums = true;
  read.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read));
  uint32_t crc = 0;
  std::vector<uint8_t> payload;  // one band page's, reused
  it->Seek(PagePrefix(id, m.generation(), PageKind::kBands, m.format_version()));
  for (uint32_t page = 0; page < m.page_count(); ++page, it->Next()) {
    if (!it->Valid() || it->key().ToString() != PageKey(id, m.generation(), page, PageKind::kBands,
                                                        m.format_version())) {
      if (!it->status().ok()) return FromRocks(it->status(), Cat("table ", id));
      return bad(Cat("page ", page, " of ", m.page_count(), " is missing"));
    }
    const uint64_t first = uint64_t{page} * m.entries_per_page();
    const auto count = static_cast<uint32_t>(
        std::min<uint64_t>(m.entries_per_page(), m.state_count() - first));
    payload.resize((uint64_t{count} + 1) / 2);
    uint32_t page_crc = 0;
    const rocksdb::Slice value = it->value();
    absl::Status decoded = DecodePageInto(std::string_view(value.data(), value.size()),
                                          storage::v1::DISTANCE_BAND, first, count,
                                          payload.data(), payload.size(), &page_crc);
    if (!decoded.ok()) return bad(Cat("page ", page, ": ", Message(decoded)));
    crc = Crc32Combine(crc, page_crc, payload.size());
    const uint8_t* bands = payload.data();
    for (uint32_t i = 0; i < count; ++i) {
      const uint8_t band = BandAt(bands, i);
      const uint8_t residue = table.entries.Get(first + i);
      if ((band == kBandUncovered) != (residue == PackedTable::kMod3Uncovered)) {
        return bad(Cat("entry ", first + i, " is covered by one and not by the other"));
      }
      if (band != kBandUncovered) exact[first + i] = static_cast<uint8_t>(3 * band + residue);
    }
  }
  if (!it->status().ok()) return FromRocks(it->status(), Cat("table ", id));
  if (crc != m.band_crc32()) return bad("CRC mismatch");
  return exact;
}

absl::Status TableStore::Write(TableMetadata metadata, const PackedTable& entries,
                               const TableWriteOptions& options, const HugeBuffer* bands) {
  if (mode_ == Mode::kReadOnly) return absl::FailedPreconditionError("the database is read-only");
  if (bands != nullptr && bands->size() != (entries.size() + 1) / 2) {
    return absl::InvalidArgumentError("TableStore::Write: the bands do not match the entries");
  }
  std::lock_guard<std::mutex> lock(write_mutex_);
  const std::string id = metadata.table_id();
  if (!ValidTableId(id)) {
    return absl::InvalidArgumentError(Cat("table id ", QuoteInput(id), ": 1 to 200 printable "
                                          "characters, no space and no '/'"));
  }
  // The newest generation with pages in either layout (which a damaged metadata record
  // cannot hide).
  const uint64_t generation = NewestGeneration(id) + 1;
  const uint32_t per_page = options.entries_per_page;
  const uint64_t pages = PageCount(entries.size(), per_page);

  // Pages are compressed a batch at a time on every thread and written in order to an SST
  // file of their own, so that a batch of them is held rather than all (the compressed
  // pages were up to three quarters of the entries' size again); band pages likewise to
  // theirs. The metadata, which needs the pages' checksums and sizes, goes last, to a file
  // of its own; the files are ingested in one step, all or none (docs/FORMAT.md,
  // "Atomicity").
  const int threads = options.threads > 0 ? options.threads
                                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::filesystem::path staging = std::filesystem::path(dir_) / "staging";
  std::error_code ec;
  std::filesystem::create_directories(staging, ec);
  const std::string stem = (staging / Cat(id, "-", generation)).string();
  std::vector<std::string> files;
  auto remove_files = [&files, &ec] {
    for (const std::string& f : files) std::filesystem::remove(f, ec);
  };
  // Writes every page of one kind; returns the CRC of their payloads and their stored bytes.
  auto write_pages = [&](PageKind kind, const std::string& file, uint32_t* crc,
                         uint64_t* stored) -> absl::Status {
    files.push_back(file);
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), DatabaseOptions(true));
    rocksdb::Status s = writer.Open(file);
    const uint64_t batch = static_cast<uint64_t>(threads) * 8;
    std::vector<std::string> values;
    std::vector<uint32_t> crcs;
    std::vector<uint64_t> sizes;
    *crc = 0;
    *stored = 0;
    for (uint64_t begin = 0; s.ok() && begin < pages; begin += batch) {
      const uint64_t n = std::min(batch, pages - begin);
      values.assign(n, std::string());
      crcs.assign(n, 0);
      sizes.assign(n, 0);
      OnThreads(n, threads, [&](uint64_t i) {
        const uint64_t first = (begin + i) * per_page;
        const auto count = static_cast<uint32_t>(std::min<uint64_t>(per_page, entries.size() - first));
        std::string payload;
        TableEncoding encoding = entries.encoding();
        if (kind == PageKind::kEntries) {
          payload = entries.Slice(first, count);
        } else {
          // per_page is a multiple of 4, so a page's bands start on a byte.
          payload.assign(reinterpret_cast<const char*>(bands->data()) + first / 2, (count + 1) / 2);
          encoding = storage::v1::DISTANCE_BAND;
        }
        crcs[i] = Crc32(payload);
        sizes[i] = payload.size();
        values[i] = EncodePage(encoding, first, count, payload, options.compression_level);
      });
      for (uint64_t i = 0; s.ok() && i < n; ++i) {
        *crc = Crc32Combine(*crc, crcs[i], sizes[i]);
        *stored += values[i].size();
        s = writer.Put(PageKey(id, generation, static_cast<uint32_t>(begin + i), kind), values[i]);
      }
    }
    if (s.ok()) s = writer.Finish();
    return FromRocks(s, Cat("table ", id, ": writing ", file));
  };
  uint32_t crc = 0, band_crc = 0;
  uint64_t stored = 0, band_stored = 0;
  absl::Status written = write_pages(PageKind::kEntries, stem + "-pages.sst", &crc, &stored);
  if (written.ok() && bands != nullptr) {
    written = write_pages(PageKind::kBands, stem + "-bands.sst", &band_crc, &band_stored);
  }
  if (!written.ok()) {
    remove_files();
    return written;
  }
  metadata.set_format_version(kTableFormatVersion);
  metadata.set_encoding(entries.encoding());
  metadata.set_state_count(entries.size());
  metadata.set_entries_per_page(per_page);
  metadata.set_page_count(static_cast<uint32_t>(pages));
  metadata.set_generation(generation);
  metadata.set_content_crc32(crc);
  metadata.set_stored_bytes(stored);
  metadata.set_band_page_count(bands != nullptr ? static_cast<uint32_t>(pages) : 0);
  metadata.set_band_crc32(band_crc);
  metadata.set_band_stored_bytes(band_stored);
  files.push_back(stem + "-metadata.sst");
  if (absl::Status record = WriteRecordFile(files.back(), metadata); !record.ok()) {
    remove_files();
    return record;
  }
  if (absl::Status ingested = Ingest(id, files, ""); !ingested.ok()) return ingested;
  // The new table is live; the pages of earlier generations (also those a crash left
  // behind, and a version-1 table's keys) are garbage now, and so are their unpacked copies.
  absl::Status deleted = DeleteOlderGenerations(id, generation);
  if (deleted.ok()) deleted = DeleteVersion1(id);
  if (!deleted.ok()) return deleted;
  if (!GetsUnpackedCopy(options.unpacked, entries.BytesFor(entries.size()))) {
    RemoveUnpacked(id, "");
    return absl::OkStatus();
  }
  return WriteUnpacked(metadata, entries);
}

absl::Status TableStore::Ingest(const std::string& table_id, const std::vector<std::string>& files,
                                std::string_view crash_points) {
  CrashPoint(Cat(crash_points, "before-ingest"));
  rocksdb::IngestExternalFileOptions ingest;
  ingest.move_files = true;
  const rocksdb::Status s = db_->IngestExternalFile(files, ingest);
  std::error_code ec;
  for (const std::string& f : files) std::filesystem::remove(f, ec);
  if (!s.ok()) return FromRocks(s, Cat("table ", table_id, ": ingesting ", Join(files, ", ")));
  CrashPoint(Cat(crash_points, "after-ingest"));
  return absl::OkStatus();
}

absl::Status TableStore::DeleteOlderGenerations(const std::string& table_id, uint64_t generation) {
  for (PageKind kind : {PageKind::kEntries, PageKind::kBands}) {
    // Generations are fixed-width hex, so every older one sorts before this prefix.
    absl::Status s = DeleteKeys(TablePages(table_id, kind).begin, PagePrefix(table_id, generation, kind));
    if (!s.ok()) {
      return absl::Status(s.code(), Cat("table ", table_id, ": deleting generations before ",
                                        generation, ": ", Message(s)));
    }
  }
  return absl::OkStatus();
}

uint64_t TableStore::NewestGeneration(const std::string& table_id) const {
  uint64_t newest = 0;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (const uint32_t version : {kOldestTableFormatVersion, kTableFormatVersion}) {
    it->SeekForPrev(TablePages(table_id, PageKind::kEntries, version).end);
    if (it->Valid()) {
      newest = std::max(newest, GenerationOfPageKey(it->key().ToStringView(), table_id,
                                                    PageKind::kEntries, version));
    }
  }
  return newest;
}

// Deletes [begin, end) and compacts it away.
absl::Status TableStore::DeleteKeys(const std::string& begin, const std::string& end) {
  rocksdb::Status s = db_->DeleteRange(rocksdb::WriteOptions(), db_->DefaultColumnFamily(), begin, end);
  if (s.ok()) {
    const rocksdb::Slice b(begin), e(end);
    rocksdb::CompactRangeOptions compact;
    compact.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    s = db_->CompactRange(compact, &b, &e);
  }
  return FromRocks(s, Cat("deleting keys from ", begin, " to ", end));
}

absl::Status TableStore::DeleteVersion1(const std::string& table_id) {
  // Nothing to do (and no compaction) where the table has no version-1 key.
  std::string value;
  bool any = !db_->Get(rocksdb::ReadOptions(), MetadataKey(table_id, 1), &value).IsNotFound();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (PageKind kind : {PageKind::kEntries, PageKind::kBands}) {
    const KeyRange pages = TablePages(table_id, kind, 1);
    it->Seek(pages.begin);
    any |= it->Valid() && it->key().compare(rocksdb::Slice(pages.end)) < 0;
  }
  if (!any) return absl::OkStatus();
  rocksdb::Status s = db_->Delete(rocksdb::WriteOptions(), MetadataKey(table_id, 1));
  if (!s.ok()) return FromRocks(s, Cat("table ", table_id, ": deleting its version-1 record"));
  for (PageKind kind : {PageKind::kEntries, PageKind::kBands}) {
    const KeyRange pages = TablePages(table_id, kind, 1);
    if (absl::Status deleted = DeleteKeys(pages.begin, pages.end); !deleted.ok()) return deleted;
  }
  return absl::OkStatus();
}

absl::Status TableStore::Remove(const std::string& table_id) {
  if (mode_ == Mode::kReadOnly) return absl::FailedPreconditionError("the database is read-only");
  if (!ValidTableId(table_id)) return absl::NotFoundError(Cat("no table ", QuoteInput(table_id)));
  std::lock_guard<std::mutex> lock(write_mutex_);
  const KeyRange keys = TableKeys(table_id);
  absl::Status s = DeleteKeys(keys.begin, keys.end);
  if (s.ok()) s = DeleteVersion1(table_id);
  if (s.ok()) RemoveUnpacked(table_id, "");
  if (!s.ok()) return absl::Status(s.code(), Cat("removing table ", table_id, ": ", Message(s)));
  return absl::OkStatus();
}

absl::StatusOr<bool> TableStore::Migrate(const std::string& table_id, uint64_t* pages_moved,
                                         const RecordRewrite& rewrite) {
  if (mode_ == Mode::kReadOnly) return absl::FailedPreconditionError("the database is read-only");
  std::lock_guard<std::mutex> lock(write_mutex_);
  if (pages_moved != nullptr) *pages_moved = 0;
  auto read = ReadMetadata(table_id);
  if (!read.ok()) return read.status();
  TableMetadata m = *std::move(read);
  const bool current = m.format_version() == kTableFormatVersion;
  bool rewritten = false;
  if (rewrite) {
    auto changed = rewrite(&m);
    if (!changed.ok()) return changed.status();
    rewritten = *changed;
  }
  if (current && !rewritten) {
    // Already moved; a migration cut off after its ingest leaves the old keys behind.
    absl::Status deleted = DeleteVersion1(table_id);
    if (!deleted.ok()) return deleted;
    return false;
  }
  // A damaged table is not carried over: it is refused, to be rebuilt.
  if (absl::Status pages = LoadPages(m, /*keep=*/false).status(); !pages.ok()) return pages;
  const std::filesystem::path staging = std::filesystem::path(dir_) / "staging";
  std::error_code ec;
  std::filesystem::create_directories(staging, ec);
  const std::string stem = (staging / Cat(table_id, "-", m.generation(), "-migrate")).string();
  std::vector<std::string> files;
  auto remove_files = [&files, &ec] {
    for (const std::string& f : files) std::filesystem::remove(f, ec);
  };
  // The pages' bytes as they are, under the new keys; the generation stays, and with it the
  // unpacked copy's name.
  auto copy_pages = [&](PageKind kind, uint32_t count, const std::string& file) -> absl::Status {
    files.push_back(file);
    return CopyPages(*this, m, /*from_version=*/1, m.generation(), kind, count, file, pages_moved);
  };
  // A current table's pages stay where they are: only its record is written again.
  absl::Status written;
  if (!current) written = copy_pages(PageKind::kEntries, m.page_count(), stem + "-pages.sst");
  if (!current && written.ok() && m.band_page_count() > 0) {
    written = copy_pages(PageKind::kBands, m.band_page_count(), stem + "-bands.sst");
  }
  if (written.ok()) {
    m.set_format_version(kTableFormatVersion);
    files.push_back(stem + "-metadata.sst");
    written = WriteRecordFile(files.back(), m);
  }
  if (!written.ok()) {
    remove_files();
    return written;
  }
  if (absl::Status ingested = Ingest(table_id, files, "migrate-"); !ingested.ok()) return ingested;
  absl::Status deleted = DeleteVersion1(table_id);
  if (!deleted.ok()) return deleted;
  return true;
}

absl::Status TableStore::CopyPages(const TableStore& source, const TableMetadata& m,
                                   uint32_t from_version, uint64_t generation, PageKind kind,
                                   uint32_t count, const std::string& file, uint64_t* pages) {
  const std::string& table_id = m.table_id();
  rocksdb::ReadOptions verified;
  verified.verify_checksums = true;
  verified.fill_cache = false;
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), DatabaseOptions(true));
  rocksdb::Status s = writer.Open(file);
  std::unique_ptr<rocksdb::Iterator> it(source.db_->NewIterator(verified));
  it->Seek(PagePrefix(table_id, m.generation(), kind, from_version));
  for (uint32_t page = 0; s.ok() && page < count; ++page, it->Next()) {
    if (!it->Valid() || it->key().ToString() != PageKey(table_id, m.generation(), page, kind, from_version)) {
      if (!it->status().ok()) return FromRocks(it->status(), Cat("table ", table_id));
      return absl::DataLossError(Cat("table ", table_id, ": page ", page, " of ", count, " is missing"));
    }
    s = writer.Put(PageKey(table_id, generation, page, kind), it->value());
    if (s.ok() && pages != nullptr) ++*pages;
  }
  if (s.ok()) s = writer.Finish();
  return FromRocks(s, Cat("table ", table_id, ": writing ", file));
}

absl::StatusOr<TableMetadata> TableStore::Import(const TableStore& from, const std::string& table_id,
                                                 UnpackedCopies unpacked) {
  if (mode_ == Mode::kReadOnly) return absl::FailedPreconditionError("the database is read-only");
  TableMetadata m;
  {
    std::lock_guard<std::mutex> lock(write_mutex_);
    auto read = from.ReadMetadata(table_id);
    if (!read.ok()) return read.status();
    m = *std::move(read);
    if (m.format_version() != kTableFormatVersion) {
      return absl::FailedPreconditionError(
          Cat("table ", table_id, " of ", from.dir(), " is of format ", m.format_version(),
              "; puzzledb-build migrate --db ", from.dir(), " moves it first"));
    }
    // Every page is checked before one is taken: a damaged table is not carried over.
    if (absl::Status pages = from.LoadPages(m, /*keep=*/false).status(); !pages.ok()) return pages;
    // The pages' bytes as they are, under a generation newer than any this store has of
    // the table, then the record, in one ingest: the table served before (if any) until
    // then, this one after.
    const uint64_t generation = NewestGeneration(table_id) + 1;
    const std::filesystem::path staging = std::filesystem::path(dir_) / "staging";
    std::error_code ec;
    std::filesystem::create_directories(staging, ec);
    const std::string stem = (staging / Cat(table_id, "-", generation, "-import")).string();
    std::vector<std::string> files = {stem + "-pages.sst"};
    absl::Status written =
        CopyPages(from, m, kTableFormatVersion, generation, PageKind::kEntries, m.page_count(), files.back(), nullptr);
    if (written.ok() && m.band_page_count() > 0) {
      files.push_back(stem + "-bands.sst");
      written = CopyPages(from, m, kTableFormatVersion, generation, PageKind::kBands, m.band_page_count(),
                          files.back(), nullptr);
    }
    m.set_generation(generation);
    if (written.ok()) {
      files.push_back(stem + "-metadata.sst");
      written = WriteRecordFile(files.back(), m);
    }
    if (!written.ok()) {
      for (const std::string& f : files) std::filesystem::remove(f, ec);
      return written;
    }
    if (absl::Status ingested = Ingest(table_id, files, "import-"); !ingested.ok()) return ingested;
    absl::Status deleted = DeleteOlderGenerations(table_id, generation);
    if (deleted.ok()) deleted = DeleteVersion1(table_id);
    if (!deleted.ok()) return deleted;
    if (!GetsUnpackedCopy(unpacked, PackedTable::BytesFor(m.encoding(), m.state_count()))) {
      RemoveUnpacked(table_id, "");
      return m;
    }
  }
  // A large table's unpacked copy, written from the pages now in place (Unpack takes the
  // write lock itself).
  if (absl::Status copied = Unpack(table_id); !copied.ok()) return copied;
  return m;
}

uint64_t TableStore::SizeOnDisk(const std::string& table_id) const {
  uint64_t total = 0;
  std::vector<KeyRange> ranges = {TableKeys(table_id)};
  for (PageKind kind : {PageKind::kEntries, PageKind::kBands}) ranges.push_back(TablePages(table_id, kind, 1));
  for (const KeyRange& keys : ranges) {
    const rocksdb::Range range(keys.begin, keys.end);
    uint64_t size = 0;
    rocksdb::SizeApproximationOptions options;
    options.include_memtables = true;
    options.include_files = true;
    db_->GetApproximateSizes(options, db_->DefaultColumnFamily(), &range, 1, &size);
    total += size;
  }
  if (auto m = ReadMetadata(table_id); m.ok()) {
    std::error_code ec;
    const uint64_t copy = std::filesystem::file_size(UnpackedPath(*m), ec);
    if (!ec) total += copy;
  }
  return total;
}

absl::StatusOr<TableMetadata> WriteBoundTable(TableStore& store, TableMetadata m,
                                              const PackedTable& entries,
                                              const std::vector<uint64_t>& histogram,
                                              uint32_t max_distance, double build_seconds,
                                              const TableWriteOptions& write) {
  m.set_state_count(entries.size());
  m.set_complete(false);
  m.set_coverage_depth(0);
  m.set_covered_states(entries.size());
  for (const uint64_t h : histogram) m.add_histogram(h);
  m.set_max_distance(max_distance);
  m.set_build_unix_micros(std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
  m.set_build_seconds(build_seconds);
  const std::string id = m.table_id();
  if (absl::Status written = store.Write(std::move(m), entries, write); !written.ok()) {
    return written;
  }
  return store.ReadMetadata(id);
}

}  // namespace puzzledb
