// A database as format version 1 laid it out (docs/FORMAT.md, "Keys"), made from one of
// today's: the tests of reading and migrating older databases.
#ifndef PUZZLEDB_TESTS_FORMAT_V1_H_
#define PUZZLEDB_TESTS_FORMAT_V1_H_

#include <memory>
#include <string>

#include "core/table/table_format.h"
#include "core/util/strings.h"
#include "puzzledb/storage/v1/table.pb.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"

namespace puzzledb::testing {

// Moves every key of the database at `dir` from "T/<id>/M", "T/<id>/P/...", "T/<id>/B/..."
// to version 1's "M/<id>" (the record saying format_version 1), "P/<id>/...", "B/<id>/...",
// then compacts the whole database (so that files hold several tables, as an older
// database's do after rebuilds). Returns the number of keys moved, or -1 on failure.
inline int DowngradeToFormat1(const std::string& dir) {
  rocksdb::Options options;
  rocksdb::DB* raw = nullptr;
  if (!rocksdb::DB::Open(options, dir, &raw).ok()) return -1;
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::WriteBatch batch;
  int moved = 0;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(kTablePrefix); it->Valid() && it->key().starts_with(kTablePrefix); it->Next()) {
    const std::string key = it->key().ToString();
    const std::string id = TableOfKey(key);
    const std::string rest = key.substr(kTablePrefix.size() + id.size() + 1);
    if (rest == "M") {
      storage::v1::TableMetadata metadata;
      if (!metadata.ParseFromString(it->value().ToString())) return -1;
      metadata.set_format_version(1);
      batch.Put(MetadataKey(id, 1), metadata.SerializeAsString());
    } else {
      batch.Put(Cat(rest[0], "/", id, rest.substr(1)), it->value());
    }
    batch.Delete(key);
    ++moved;
  }
  if (!it->status().ok()) return -1;
  it.reset();
  if (!db->Write(rocksdb::WriteOptions(), &batch).ok()) return -1;
  if (!db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok()) return -1;
  return moved;
}

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_FORMAT_V1_H_
