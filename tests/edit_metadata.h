// Rewrites a table's metadata record in a database as damage (or an older puzzledb) would
// leave it: the pages and their checksums are left as they were.
#ifndef PUZZLEDB_TESTS_EDIT_METADATA_H_
#define PUZZLEDB_TESTS_EDIT_METADATA_H_

#include <functional>
#include <memory>
#include <string>

#include "core/table/table_format.h"
#include "gtest/gtest.h"
#include "puzzledb/storage/v1/table.pb.h"
#include "rocksdb/db.h"

namespace puzzledb::testing {

// Passes the record of table `id` in the database `db` (closed) through `edit` and stores it.
inline void EditMetadata(const std::string& db, const std::string& id,
                         const std::function<void(storage::v1::TableMetadata*)>& edit) {
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(), db, &raw).ok());
  std::unique_ptr<rocksdb::DB> opened(raw);
  std::string value;
  ASSERT_TRUE(opened->Get(rocksdb::ReadOptions(), MetadataKey(id), &value).ok());
  storage::v1::TableMetadata m;
  ASSERT_TRUE(m.ParseFromString(value));
  edit(&m);
  ASSERT_TRUE(opened->Put(rocksdb::WriteOptions(), MetadataKey(id), m.SerializeAsString()).ok());
}

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_EDIT_METADATA_H_
