#include "core/table/table_store.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <set>

#include <zlib.h>

#include "core/puzzles/eight.h"
#include "core/puzzles/knobs.h"
#include "core/search/retrograde_bfs.h"
#include "core/puzzles/rotation.h"
#include "core/table/table_builder.h"
#include "core/util/strings.h"
#include "gtest/gtest.h"
#include "rocksdb/db.h"
#include "tests/format_v1.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

class TempDir {
 public:
  explicit TempDir(const std::string& name) : path_(testing::TempPath(name)) {
    std::filesystem::remove_all(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// `size` random entries of `encoding`, each below `values`, and the metadata of a table
// `id` of no puzzle: what the store's own tests write.
PackedTable RandomEntries(TableEncoding encoding, uint64_t size, uint64_t values, uint64_t seed) {
  PackedTable entries(encoding, size);
  std::mt19937_64 rng(seed);
  for (uint64_t i = 0; i < size; ++i) entries.Set(i, static_cast<uint8_t>(rng() % values));
  return entries;
}
TableMetadata PuzzleFreeMetadata(const std::string& id) {
  TableMetadata metadata;
  metadata.set_table_id(id);
  metadata.set_puzzle("none");
  return metadata;
}

TEST(PackedTableTest, ModThreeKeepsResiduesAndUncovered) {
  const std::vector<uint8_t> values = {0, 1, 2, 3, 4, 5, 255, 39, 38};
  HugeBuffer distance(values.size(), 0);
  std::copy(values.begin(), values.end(), distance.begin());
  PackedTable table(storage::v1::DISTANCE_MOD3, distance.size());
  table.FromDistances(distance);
  const std::vector<uint8_t> expected = {0, 1, 2, 0, 1, 2, 3, 0, 2};
  for (size_t i = 0; i < distance.size(); ++i) EXPECT_EQ(table.Get(i), expected[i]) << i;
  PackedTable bytes(storage::v1::DISTANCE_BYTE, distance.size());
  bytes.FromDistances(distance);
  for (size_t i = 0; i < distance.size(); ++i) EXPECT_EQ(bytes.Get(i), distance[i]);
}

// Next moves: four bits an entry, the lower entry in the lower bits; every value 0..15 is
// kept, a fresh table is all "uncovered", and pages carry whole bytes.
TEST(PackedTableTest, NextMovesKeepFourBitsAnEntry) {
  PackedTable table(storage::v1::NEXT_MOVE, 37);
  EXPECT_EQ(table.BytesFor(37), 19u);
  for (uint64_t i = 0; i < 37; ++i) ASSERT_EQ(table.Get(i), PackedTable::kNextMoveUncovered);
  for (uint64_t i = 0; i < 37; ++i) table.Set(i, static_cast<uint8_t>((i * 7) % 16));
  for (uint64_t i = 0; i < 37; ++i) ASSERT_EQ(table.Get(i), (i * 7) % 16) << i;
  EXPECT_EQ(table.data()[1], (5 << 4) | 14);  // entries 2 (low bits) and 3
  // As a load fills a table: each page decoded into its place, the odd last entry too.
  PackedTable copy = PackedTable::Unfilled(storage::v1::NEXT_MOVE, 37);
  for (const auto& [first, count] : {std::pair<uint64_t, uint32_t>{0, 16}, {16, 21}}) {
    const std::string stored =
        EncodePage(storage::v1::NEXT_MOVE, first, count, table.Slice(first, count), 3);
    uint32_t crc = 0;
    ASSERT_TRUE(DecodePageInto(stored, storage::v1::NEXT_MOVE, first, count,
                               copy.MutableBytes(first), copy.BytesFor(count), &crc)
                    .ok());
    EXPECT_EQ(crc, Crc32(table.Slice(first, count)));
  }
  for (uint64_t i = 0; i < 37; ++i) ASSERT_EQ(copy.Get(i), table.Get(i)) << i;
  const std::string page = EncodePage(storage::v1::NEXT_MOVE, 16, 21, table.Slice(16, 21), 3);
  auto decoded = DecodePage(page, storage::v1::NEXT_MOVE, 16, 21);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, table.Slice(16, 21));
  EXPECT_EQ(DecodePage(page, storage::v1::DISTANCE_BYTE, 16, 21).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(PageTest, RoundTripsAndDetectsDamage) {
  std::string payload(4096, '\0');
  std::mt19937 rng(1);
  for (char& c : payload) c = static_cast<char>(rng() % 3);
  const std::string page = EncodePage(storage::v1::DISTANCE_BYTE, 8192, 4096, payload, 3);
  auto decoded = DecodePage(page, storage::v1::DISTANCE_BYTE, 8192, 4096);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, payload);
  // Wrong place, wrong encoding, and every single flipped byte are refused.
  EXPECT_EQ(DecodePage(page, storage::v1::DISTANCE_BYTE, 0, 4096).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodePage(page, storage::v1::DISTANCE_MOD3, 8192, 4096).status().code(),
            absl::StatusCode::kDataLoss);
  for (size_t i = 0; i < page.size(); ++i) {
    std::string damaged = page;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x5A);
    ASSERT_FALSE(DecodePage(damaged, storage::v1::DISTANCE_BYTE, 8192, 4096).ok()) << "byte " << i;
  }
}

// Crc32 is zlib's crc32() (docs/FORMAT.md), whatever computes it: over every length up to
// 300 (the short tails and alignments a fast CRC treats apart), at every start offset up
// to 16, and over 1 MB; and a page decoded in place gives its CRC.
TEST(PageTest, Crc32IsZlibs) {
  std::string data(1 << 20, '\0');
  std::mt19937 rng(7);
  for (char& c : data) c = static_cast<char>(rng());
  auto zlib = [](std::string_view d) {
    return static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(d.data()),
                                       static_cast<uInt>(d.size())));
  };
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t length = 0; length <= 300; ++length) {
      const std::string_view part(data.data() + offset, length);
      ASSERT_EQ(Crc32(part), zlib(part)) << "offset " << offset << " length " << length;
    }
  }
  EXPECT_EQ(Crc32(data), zlib(data));
  EXPECT_EQ(Crc32("123456789"), 0xCBF43926u);  // the CRC-32 check value

  const std::string payload = data.substr(0, 2048);
  const std::string page = EncodePage(storage::v1::DISTANCE_BYTE, 0, 2048, payload, 3);
  std::vector<uint8_t> out(2048);
  uint32_t crc = 0;
  ASSERT_TRUE(DecodePageInto(page, storage::v1::DISTANCE_BYTE, 0, 2048, out.data(), out.size(), &crc).ok());
  EXPECT_EQ(crc, zlib(payload));
  EXPECT_EQ(std::string(out.begin(), out.end()), payload);
  // A destination of the wrong size is refused before anything is written.
  EXPECT_EQ(DecodePageInto(page, storage::v1::DISTANCE_BYTE, 0, 2048, out.data(), 2047, &crc).code(),
            absl::StatusCode::kDataLoss);
}

TEST(TableStoreTest, ReadOnlyOpenOfAMissingDatabaseSaysHowToBuildOne) {
  TempDir dir("missing_db");
  auto store = TableStore::Open(dir.path(), TableStore::Mode::kReadOnly);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(Message(store.status())).find("puzzledb-build --db"), std::string::npos);
}

TEST(TableStoreTest, OneWriterAtATime) {
  TempDir dir("locked_db");
  auto first = TableStore::Open(dir.path(), TableStore::Mode::kReadWrite);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = TableStore::Open(dir.path(), TableStore::Mode::kReadWrite);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(std::string(Message(second.status())).find("in use"), std::string::npos);
}

// Build, read back, rebuild (a new generation replaces the old), remove.
TEST(TableStoreTest, WritesLoadsReplacesAndRemovesATable) {
  TempDir dir("store_db");
  auto opened = TableStore::Open(dir.path(), TableStore::Mode::kReadWrite);
  ASSERT_TRUE(opened.ok()) << opened.status();
  TableStore& store = **opened;
  const RotationPuzzle rotation;
  BuildOptions options;
  options.max_depth = 5;
  auto partial = BuildTable(rotation, store, options);
  ASSERT_TRUE(partial.ok()) << partial.status();
  EXPECT_EQ(partial->generation(), 1u);
  EXPECT_FALSE(partial->complete());
  EXPECT_EQ(partial->coverage_depth(), 5u);
  EXPECT_EQ(partial->covered_states(), 1u + 8 + 44 + 208 + 876 + 3220);

  auto full = BuildTable(rotation, store, BuildOptions{});
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(full->generation(), 2u);
  EXPECT_TRUE(full->complete());
  auto tables = store.List();
  ASSERT_TRUE(tables.ok());
  ASSERT_EQ(tables->size(), 1u);

  auto loaded = store.Load("rotation");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const BfsResult bfs = RetrogradeBfs<CentrePlacementSpace>(rotation.space()).Run({});
  for (uint64_t i = 0; i < bfs.distance.size(); ++i) {
    ASSERT_EQ((*loaded)->entries.Get(i), bfs.distance[i]);
  }
  EXPECT_TRUE(VerifyTable(rotation, **loaded, 0).ok());
  EXPECT_GT(store.SizeOnDisk("rotation"), 0u);

  ASSERT_TRUE(store.Remove("rotation").ok());
  EXPECT_EQ(store.Load("rotation").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(store.List()->empty());
}

// A table written in another database (a build aside, while a server holds this one) is
// imported whole: its entries and checksums as they were, under a generation newer than
// the one it replaces, whose pages are gone; its band pages too; an unpacked copy where
// asked. A missing table is NOT_FOUND, a damaged one is refused and leaves the store as it
// was.
TEST(TableStoreTest, ImportsATableFromAnotherDatabase) {
  TempDir main_dir("store_import_main"), side_dir("store_import_side");
  auto main = TableStore::Open(main_dir.path(), TableStore::Mode::kReadWrite);
  auto side = TableStore::Open(side_dir.path(), TableStore::Mode::kReadWrite);
  ASSERT_TRUE(main.ok() && side.ok());
  TableWriteOptions write;
  write.entries_per_page = 1024;
  // The store holds generations 1 and 2 of the table; the side database its own.
  const PackedTable before = RandomEntries(storage::v1::DISTANCE_BYTE, 5000, 30, 1);
  ASSERT_TRUE((*main)->Write(PuzzleFreeMetadata("t"), before, write).ok());
  ASSERT_TRUE((*main)->Write(PuzzleFreeMetadata("t"), before, write).ok());
  const PackedTable after = RandomEntries(storage::v1::DISTANCE_MOD3, 10000, 3, 2);
  HugeBuffer bands(5000, 0);
  for (size_t i = 0; i < bands.size(); ++i) bands[i] = static_cast<uint8_t>(i * 7);
  ASSERT_TRUE((*side)->Write(PuzzleFreeMetadata("t"), after, write, &bands).ok());
  const auto written = (*side)->ReadMetadata("t");
  ASSERT_TRUE(written.ok());

  const auto imported = (*main)->Import(**side, "t", UnpackedCopies::kAll);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->generation(), 3u);
  EXPECT_EQ(imported->content_crc32(), written->content_crc32());
  EXPECT_EQ(imported->band_crc32(), written->band_crc32());
  const auto loaded = (*main)->Load("t");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE((*loaded)->from_unpacked_copy) << "its unpacked copy was written";
  ASSERT_EQ((*loaded)->entries.size(), after.size());
  for (uint64_t i = 0; i < after.size(); ++i) ASSERT_EQ((*loaded)->entries.Get(i), after.Get(i)) << i;
  EXPECT_TRUE((*main)->Check("t").ok());
  EXPECT_EQ(imported->band_page_count(), written->band_page_count()) << "the band pages came too";
  const auto listed = (*main)->List();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 1u);
  // Only generation 3's pages are left.
  main->reset();
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::OpenForReadOnly(rocksdb::Options(), main_dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  int pages = 0, old_pages = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string key = it->key().ToString();
    pages += key.rfind(PagePrefix("t", 3), 0) == 0;
    old_pages += key.rfind(PagePrefix("t", 1), 0) == 0 || key.rfind(PagePrefix("t", 2), 0) == 0;
  }
  EXPECT_EQ(pages, 10);
  EXPECT_EQ(old_pages, 0);
  it.reset();
  db.reset();

  main = TableStore::Open(main_dir.path(), TableStore::Mode::kReadWrite);
  ASSERT_TRUE(main.ok());
  EXPECT_EQ((*main)->Import(**side, "none", UnpackedCopies::kNone).status().code(), absl::StatusCode::kNotFound);
  // A page of the side's table damaged: refused, and the store keeps its own.
  side->reset();
  {
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(), side_dir.path(), &raw).ok());
    std::unique_ptr<rocksdb::DB> damaged(raw);
    ASSERT_TRUE(damaged->Put(rocksdb::WriteOptions(), PageKey("t", written->generation(), 4), "not a page").ok());
  }
  side = TableStore::Open(side_dir.path(), TableStore::Mode::kReadOnly);
  ASSERT_TRUE(side.ok());
  const auto refused = (*main)->Import(**side, "t", UnpackedCopies::kNone);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss) << refused.status();
  const auto kept = (*main)->ReadMetadata("t");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->generation(), 3u);
  EXPECT_TRUE((*main)->Check("t").ok());
}

// Load decodes pages a batch at a time on several threads (core/table/table_store.cc):
// many small pages, the last one short, come back entry for entry and pass the checksum.
TEST(TableStoreTest, LoadsATableOfManyPagesInOrder) {
  TempDir dir("many_pages_db");
  auto store = TableStore::Open(dir.path(), TableStore::Mode::kReadWrite);
  ASSERT_TRUE(store.ok()) << store.status();
  const uint64_t size = 100'003;  // 1,563 pages of 64 entries: 49 batches, the last page 35
  const PackedTable entries = RandomEntries(storage::v1::DISTANCE_BYTE, size, 40, 37);
  const TableMetadata metadata = PuzzleFreeMetadata("many-pages");
  TableWriteOptions options;
  options.entries_per_page = 64;
  ASSERT_TRUE((*store)->Write(metadata, entries, options).ok());
  auto loaded = (*store)->Load("many-pages");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ((*loaded)->metadata.page_count(), 1'563u);
  for (uint64_t i = 0; i < size; ++i) ASSERT_EQ((*loaded)->entries.Get(i), entries.Get(i)) << i;
}

// The unpacked copy (docs/FORMAT.md): written with the table, read instead of the pages,
// replaced with the next generation and removed with the table. A copy that fails any
// check (a flipped byte, another generation's header, a short file) is passed over for
// the pages, saying why, and Check names it; Unpack writes it again from the pages.
TEST(TableStoreTest, AnUnpackedCopyIsReadWhenWholeAndPassedOverOtherwise) {
  TempDir dir("unpacked_db");
  auto opened = TableStore::Open(dir.path(), TableStore::Mode::kReadWrite);
  ASSERT_TRUE(opened.ok()) << opened.status();
  TableStore& store = **opened;
  const uint64_t size = 3'000'001;  // odd: the last byte holds one entry
  const PackedTable entries = RandomEntries(storage::v1::NEXT_MOVE, size, 16, 41);
  const TableMetadata metadata = PuzzleFreeMetadata("copied");
  TableWriteOptions options;
  options.entries_per_page = 1 << 16;
  // 1.5 MB of entries: a copy only when every table gets one.
  ASSERT_TRUE(store.Write(metadata, entries, options).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/unpacked/copied.0000000000000001"));
  options.unpacked = UnpackedCopies::kAll;
  ASSERT_TRUE(store.Remove("copied").ok());
  ASSERT_TRUE(store.Write(metadata, entries, options).ok());
  auto written = store.ReadMetadata("copied");
  ASSERT_TRUE(written.ok());
  const std::string path = store.UnpackedPath(*written);
  EXPECT_EQ(path, dir.path() + "/unpacked/copied.0000000000000001");
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(std::filesystem::file_size(path), kUnpackedHeaderSize + (size + 1) / 2);

  auto same = [&](const LoadedTable& t) {
    for (uint64_t i = 0; i < size; ++i) {
      if (t.entries.Get(i) != entries.Get(i)) return false;
    }
    return true;
  };
  auto loaded = store.Load("copied");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE((*loaded)->from_unpacked_copy);
  EXPECT_TRUE((*loaded)->unpacked_problem.empty());
  EXPECT_TRUE(same(**loaded));
  EXPECT_TRUE(store.Check("copied").ok());
  EXPECT_GE(store.SizeOnDisk("copied"), kUnpackedHeaderSize + (size + 1) / 2);

  auto damage = [&](const std::function<void(std::fstream&)>& how, std::string_view why) {
    SCOPED_TRACE(why);
    {
      std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
      ASSERT_TRUE(file.is_open());
      how(file);
    }
    auto fallen_back = store.Load("copied");
    ASSERT_TRUE(fallen_back.ok()) << fallen_back.status();
    EXPECT_FALSE((*fallen_back)->from_unpacked_copy);
    EXPECT_NE((*fallen_back)->unpacked_problem.find(why), std::string::npos)
        << (*fallen_back)->unpacked_problem;
    EXPECT_TRUE(same(**fallen_back));
    const absl::Status checked = store.Check("copied");
    EXPECT_EQ(checked.code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(Message(checked).find(why), std::string_view::npos) << checked;
    ASSERT_TRUE(store.Unpack("copied").ok());
    auto again = store.Load("copied");
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE((*again)->from_unpacked_copy);
    EXPECT_TRUE(store.Check("copied").ok());
  };
  damage([](std::fstream& f) {
    f.seekg(kUnpackedHeaderSize + 777'777);
    const char c = static_cast<char>(f.get() ^ 0x10);
    f.seekp(kUnpackedHeaderSize + 777'777);
    f.put(c);
  }, "content CRC mismatch");
  damage([](std::fstream& f) {
    f.seekp(8);  // the generation
    f.put('\7');
  }, "does not match the table's metadata");
  damage([&](std::fstream& f) {
    f.close();
    std::filesystem::resize_file(path, kUnpackedHeaderSize + 1000);
  }, "bytes, the table needs");
  damage([](std::fstream& f) { f.write("XXXX", 4); }, "bad header");

  // A rewrite replaces the copy; without one asked for, none is left; removing the table
  // removes its copy.
  ASSERT_TRUE(store.Write(metadata, entries, options).ok());
  EXPECT_FALSE(std::filesystem::exists(path));
  const std::string second = dir.path() + "/unpacked/copied.0000000000000002";
  EXPECT_TRUE(std::filesystem::exists(second));
  options.unpacked = UnpackedCopies::kNone;
  ASSERT_TRUE(store.Write(metadata, entries, options).ok());
  EXPECT_FALSE(std::filesystem::exists(second));
  auto pages_only = store.Load("copied");
  ASSERT_TRUE(pages_only.ok());
  EXPECT_FALSE((*pages_only)->from_unpacked_copy);
  EXPECT_TRUE((*pages_only)->unpacked_problem.empty());  // no copy is no problem
  EXPECT_TRUE(store.Check("copied").ok());
  ASSERT_TRUE(store.Unpack("copied").ok());
  ASSERT_TRUE(std::filesystem::exists(dir.path() + "/unpacked/copied.0000000000000003"));
  ASSERT_TRUE(store.Remove("copied").ok());
  EXPECT_TRUE(std::filesystem::is_empty(dir.path() + "/unpacked"));
}

TEST(TableStoreTest, VerifyNamesADamagedEntry) {
  TempDir dir("verify_db");
  auto store = TableStore::Open(dir.path(), TableStore::Mode::kReadWrite);
  ASSERT_TRUE(store.ok());
  auto cases = KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9001.in"));
  const KnobsPuzzle knobs(cases[0].instance->params);
  ASSERT_TRUE(BuildTable(knobs, **store, BuildOptions{}).ok());
  auto loaded = (*store)->Load(KnobsPuzzle::TableId(knobs.params()));
  ASSERT_TRUE(loaded.ok());
  LoadedTable damaged = **loaded;
  damaged.entries.Set(12345, static_cast<uint8_t>(damaged.entries.Get(12345) ^ 1));
  const absl::Status status = VerifyTable(knobs, damaged, 0);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  // The knobs' entries are next moves: the message names the state and both moves.
  EXPECT_NE(std::string(Message(status)).find(Cat("entry 12345 (",
                                                  KnobsPuzzle::FormatCompact(
                                                      {knobs.params(), knobs.space().Unrank(12345)}),
                                                  ") holds move ")),
            std::string::npos)
      << status;
  EXPECT_NE(std::string(Message(status)).find(", but the first optimal move there is move "),
            std::string::npos)
      << status;
  LoadedTable wrong_histogram = **loaded;
  wrong_histogram.metadata.set_histogram(3, 1);
  EXPECT_NE(std::string(Message(VerifyTable(knobs, wrong_histogram, 0))).find("distance 3"),
            std::string::npos);
}


// Overwrites `bytes` bytes of the database file that holds `table`'s pages, at `where` (a
// fraction of the file); returns the file's name.
std::string DamageFileOf(const std::string& db, const std::string& table, double where,
                         size_t bytes) {
  std::string victim;
  uintmax_t largest = 0;
  // Each table is ingested as a file of its own; the largest holding the table's name is
  // its pages' (the knobs table's 8 M entries against the rotation's 0.7 M).
  for (const auto& entry : std::filesystem::directory_iterator(db)) {
    if (entry.path().extension() != ".sst") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string content{std::istreambuf_iterator<char>(in), {}};
    if (content.find(table) != std::string::npos && entry.file_size() > largest) {
      largest = entry.file_size();
      victim = entry.path().string();
    }
  }
  std::fstream out(victim, std::ios::in | std::ios::out | std::ios::binary);
  out.seekp(static_cast<std::streamoff>(static_cast<double>(largest) * where));
  out << std::string(bytes, '\x5a');
  return std::filesystem::path(victim).filename().string();
}

// A damaged file costs the tables whose keys it holds, never the opening of the database:
// a damaged page refuses its table at Load (these tables are too small for an unpacked
// copy, which would stand in for the pages); a damaged index (the file's last blocks) costs
// the tables whose keys fall within the file.
TEST(TableStoreTest, ADamagedFileCostsItsTablesNotTheDatabase) {
  TempDir dir("damaged_db");
  const auto knobs = *KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9001.in"))[0].instance;
  const std::string knobs_id = KnobsPuzzle::TableId(knobs.params);
  auto build = [&] {
    std::filesystem::remove_all(dir.path());
    auto store = TableStore::Open(dir.path(), TableStore::Mode::kReadWrite);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(BuildTable(KnobsPuzzle(knobs.params), **store, BuildOptions{}).ok());
    ASSERT_TRUE(BuildTable(RotationPuzzle(), **store, BuildOptions{}).ok());
  };
  // A page in the middle of the knobs table's file.
  build();
  const std::string file = DamageFileOf(dir.path(), knobs_id, 0.5, 256);
  {
    auto store = TableStore::Open(dir.path(), TableStore::Mode::kReadOnly);
    ASSERT_TRUE(store.ok()) << store.status();
    auto tables = (*store)->List();
    ASSERT_TRUE(tables.ok()) << tables.status();
    EXPECT_EQ(tables->size(), 2u);
    EXPECT_TRUE((*store)->Damaged().empty());
    const auto loaded = (*store)->Load(knobs_id);
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(std::string(Message(loaded.status())).find(file), std::string::npos)
        << loaded.status();
    EXPECT_TRUE((*store)->Load("rotation").ok());
  }
  // The end of the file: its index and footer. The database still opens; the table is
  // refused, named with the file (by List, when the damaged file holds records too; by its
  // load otherwise: a table's records and pages are written to files of their own), and
  // the other table serves.
  build();
  const std::string index = DamageFileOf(dir.path(), knobs_id, 0.9995, 400);
  auto store = TableStore::Open(dir.path(), TableStore::Mode::kReadOnly);
  ASSERT_TRUE(store.ok()) << store.status();
  auto tables = (*store)->List();
  ASSERT_TRUE(tables.ok()) << tables.status();
  const auto damaged = (*store)->Damaged();
  if (damaged.count(knobs_id) == 1) {
    EXPECT_NE(damaged.at(knobs_id).find(index), std::string::npos) << damaged.at(knobs_id);
  } else {
    const auto loaded = (*store)->Load(knobs_id);
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();
    EXPECT_NE(std::string(Message(loaded.status())).find(index), std::string::npos)
        << loaded.status();
  }
  for (const TableMetadata& m : *tables) EXPECT_EQ(damaged.count(m.table_id()), 0u);
  EXPECT_EQ(tables->size() + damaged.size(), 2u);
  EXPECT_TRUE((*store)->Load("rotation").ok());
}


// Three tables of three puzzles, the eight-puzzle's with band pages; returns their ids.
std::vector<std::string> BuildThreeTables(const std::string& dir, UnpackedCopies unpacked) {
  const auto knobs = *KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9001.in"))[0].instance;
  auto store = TableStore::Open(dir, TableStore::Mode::kReadWrite);
  EXPECT_TRUE(store.ok()) << store.status();
  BuildOptions options;
  options.unpacked = unpacked;
  EXPECT_TRUE(BuildTable(KnobsPuzzle(knobs.params), **store, options).ok());
  EXPECT_TRUE(BuildTable(RotationPuzzle(), **store, options).ok());
  options.band_pages = true;
  EXPECT_TRUE(BuildTable(EightPuzzle(), **store, options).ok());
  return {"eight", KnobsPuzzle::TableId(knobs.params), "rotation"};
}

struct FileRange {
  std::string name;
  std::string smallest, largest;
  uint64_t size;
};
std::vector<FileRange> FilesOf(const std::string& dir) {
  rocksdb::DB* raw = nullptr;
  EXPECT_TRUE(rocksdb::DB::OpenForReadOnly(rocksdb::Options(), dir, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::vector<rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  std::vector<FileRange> out;
  for (const auto& f : files) {
    out.push_back({f.relative_filename, f.smallestkey, f.largestkey, f.size});
  }
  return out;
}

// Format version 2 puts the table id first: each table's files hold its keys alone, so a
// file whose index and footer are damaged costs its own table and no other, and no table
// goes missing unnamed. (Before, an iteration over the records stopped at a damaged file
// without an error, and every table past it went unlisted: damaging the first table's
// record file hid the rest.)
TEST(TableStoreTest, ADamagedFileCostsOnlyItsOwnTable) {
  TempDir built("damage_each_file");
  const std::vector<std::string> ids = BuildThreeTables(built.path(), UnpackedCopies::kNone);
  const std::vector<FileRange> files = FilesOf(built.path());
  ASSERT_GE(files.size(), 7u);  // per table: pages, a record (and the eight's band pages)
  for (const FileRange& file : files) {
    const std::string owner = TableOfKey(file.smallest);
    ASSERT_EQ(TableOfKey(file.largest), owner) << file.name << " holds two tables' keys";
    TempDir dir("damage_each_file_copy");
    std::filesystem::copy(built.path(), dir.path(), std::filesystem::copy_options::recursive);
    {
      // The last 300 bytes (or the whole of a small file's blocks after its first):
      // the index, the properties and the footer.
      std::fstream out(dir.path() + "/" + file.name, std::ios::in | std::ios::out | std::ios::binary);
      const uint64_t at = file.size > 400 ? file.size - 300 : 100;
      out.seekp(static_cast<std::streamoff>(at));
      out << std::string(file.size - at - 8, '\x5a');
    }
    auto store = TableStore::Open(dir.path(), TableStore::Mode::kReadOnly);
    ASSERT_TRUE(store.ok()) << file.name << ": " << store.status();
    auto tables = (*store)->List();
    ASSERT_TRUE(tables.ok()) << tables.status();
    std::set<std::string> listed;
    for (const TableMetadata& m : *tables) listed.insert(m.table_id());
    const auto damaged = (*store)->Damaged();
    for (const std::string& id : ids) {
      if (id == owner) {
        // Its record's file: named with the file; its pages': refused when loaded.
        if (listed.count(id) == 0) {
          ASSERT_EQ(damaged.count(id), 1u) << file.name << ": " << id << " is neither listed nor named";
          EXPECT_NE(damaged.at(id).find(file.name), std::string::npos) << file.name << ": " << damaged.at(id);
        } else {
          auto loaded = (*store)->Load(id);
          if (loaded.ok()) {
            auto exact = (*store)->LoadExactDistances(**loaded);
            EXPECT_FALSE(exact.ok()) << file.name << " of " << id << " damaged, yet all of it reads";
          }
        }
        continue;
      }
      EXPECT_EQ(listed.count(id), 1u) << file.name << " (" << owner << "'s) damaged: " << id
                                       << " went unlisted";
      EXPECT_EQ(damaged.count(id), 0u) << file.name << " (" << owner << "'s) damaged: " << id
                                        << " refused";
      auto loaded = (*store)->Load(id);
      EXPECT_TRUE(loaded.ok()) << file.name << " (" << owner << "'s) damaged: " << loaded.status();
    }
  }
}

// A database of format version 1 (the record kind first in every key) is read as it is,
// and Migrate moves each table to version 2 in one step: the same bytes, generation and
// unpacked copy, no version-1 key left; a second Migrate finds nothing to do.
TEST(TableStoreTest, ReadsFormatVersion1AndMigratesIt) {
  TempDir dir("format_v1");
  const std::vector<std::string> ids = BuildThreeTables(dir.path(), UnpackedCopies::kAll);
  std::map<std::string, TableMetadata> before;
  {
    auto store = TableStore::Open(dir.path(), TableStore::Mode::kReadOnly);
    ASSERT_TRUE(store.ok());
    auto tables = (*store)->List();
    ASSERT_TRUE(tables.ok()) << tables.status();
    for (const TableMetadata& m : *tables) before[m.table_id()] = m;
  }
  ASSERT_EQ(before.size(), 3u);
  ASSERT_GT(testing::DowngradeToFormat1(dir.path()), 3);
  auto check_tables = [&](TableStore& store, uint32_t version) {
    auto tables = store.List();
    ASSERT_TRUE(tables.ok()) << tables.status();
    ASSERT_EQ(tables->size(), 3u);
    for (const TableMetadata& m : *tables) {
      const TableMetadata& was = before.at(m.table_id());
      EXPECT_EQ(m.format_version(), version) << m.table_id();
      EXPECT_EQ(m.generation(), was.generation());
      EXPECT_EQ(m.content_crc32(), was.content_crc32());
      EXPECT_EQ(m.page_count(), was.page_count());
      // From the pages (under this version's keys), and from the unpacked copy.
      EXPECT_TRUE(store.CheckPages(m.table_id()).ok()) << store.CheckPages(m.table_id());
      auto loaded = store.Load(m.table_id());
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      EXPECT_TRUE((*loaded)->from_unpacked_copy) << m.table_id();
      if (m.band_page_count() > 0) {
        auto exact = store.LoadExactDistances(**loaded);
        ASSERT_TRUE(exact.ok()) << exact.status();
        // Every distance as often as the histogram says.
        std::vector<uint64_t> counts(m.histogram_size(), 0);
        for (uint64_t i = 0; i < exact->size(); ++i) {
          if ((*exact)[i] < counts.size()) ++counts[(*exact)[i]];
        }
        EXPECT_EQ(counts, std::vector<uint64_t>(m.histogram().begin(), m.histogram().end()));
      }
    }
  };
  {
    auto store = TableStore::Open(dir.path(), TableStore::Mode::kReadOnly);
    ASSERT_TRUE(store.ok());
    check_tables(**store, 1);
  }
  auto store = TableStore::Open(dir.path(), TableStore::Mode::kReadWriteExisting);
  ASSERT_TRUE(store.ok());
  for (const std::string& id : ids) {
    uint64_t pages = 0;
    auto moved = (*store)->Migrate(id, &pages);
    ASSERT_TRUE(moved.ok()) << moved.status();
    EXPECT_TRUE(*moved) << id;
    EXPECT_EQ(pages, before.at(id).page_count() + before.at(id).band_page_count()) << id;
  }
  check_tables(**store, 2);
  for (const std::string& id : ids) {
    auto again = (*store)->Migrate(id);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_FALSE(*again) << id;
  }
  store->reset();
  // No key of version 1 is left.
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::OpenForReadOnly(rocksdb::Options(), dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  int version_1_keys = 0, keys = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++keys) {
    version_1_keys += !it->key().starts_with(kTablePrefix);
  }
  EXPECT_EQ(version_1_keys, 0) << "of " << keys;
  EXPECT_GT(keys, 6);
}

}  // namespace
}  // namespace puzzledb
