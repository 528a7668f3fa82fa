#include "core/sliding/pattern_builder.h"

#include <algorithm>
#include <chrono>

#include "core/util/strings.h"

namespace puzzledb {
namespace {

// Every group's entries, freshly searched, with what the metadata records of them.
struct SearchedEntries {
  PackedTable entries;
  std::vector<uint64_t> histogram;  // entries by stored excess
  int largest = 0;                  // the largest group distance
  uint64_t saturated = 0;
};

absl::StatusOr<SearchedEntries> SearchEntries(const TilePartition& partition,
                                              const PatternBuildProgress& options,
                                              std::chrono::steady_clock::time_point started) {
  SearchedEntries out;
  out.entries = PackedTable(storage::v1::PATTERN_EXCESS, PatternTables::EntryCount(partition));
  uint64_t offset = 0;
  for (int g = 0; g < partition.group_count(); ++g) {
    const PatternGroup group(partition.group(g));
    PatternBuildOptions search;
    search.threads = options.threads;
    search.on_layer = options.on_layer;
    auto distances = SearchPatternGroup(group, g, search);
    if (!distances.ok()) return distances.status();
    int largest = 0;
    for (uint8_t d : *distances) largest = std::max<int>(largest, d);
    out.largest = std::max(out.largest, largest);
    if (absl::Status encoded =
            EncodePatternGroup(group, *distances, offset, &out.entries, &out.saturated);
        !encoded.ok()) {
      return encoded;
    }
    if (options.on_group) options.on_group(g, group.placements(), largest, SecondsSince(started));
    offset += group.placements();
  }
  out.histogram.assign(16, 0);
  const uint8_t* bytes = out.entries.data();
  const uint64_t n = out.entries.size();
  for (uint64_t i = 0; i + 1 < n; i += 2) {
    ++out.histogram[bytes[i >> 1] & 15];
    ++out.histogram[bytes[i >> 1] >> 4];
  }
  if (n % 2 == 1) ++out.histogram[out.entries.Get(n - 1)];
  while (out.histogram.size() > 1 && out.histogram.back() == 0) out.histogram.pop_back();
  return out;
}

}  // namespace

absl::StatusOr<TableMetadata> BuildPatternTable(const PatternTableSpec& spec, TableStore& store,
                                                const PatternBuildProgress& options) {
  const auto started = std::chrono::steady_clock::now();
  auto searched = SearchEntries(spec.partition, options, started);
  if (!searched.ok()) return searched.status();
  TableMetadata m;
  m.set_table_id(spec.table_id);
  m.set_puzzle(spec.puzzle);
  m.set_parameters(spec.partition.Encode());
  m.set_parameters_text(Cat("tiles ", spec.partition.Describe()));
  TableWriteOptions write;
  write.compression_level = options.compression_level;
  write.threads = options.threads;
  write.unpacked = options.unpacked;
  return WriteBoundTable(store, std::move(m), searched->entries, searched->histogram,
                         static_cast<uint32_t>(searched->largest), SecondsSince(started), write);
}

absl::Status VerifyPatternTable(const LoadedTable& table, int threads) {
  const TableMetadata& m = table.metadata;
  const std::string& id = m.table_id();
  auto partition = TilePartition::Decode(m.parameters());
  if (!partition.ok()) {
    return absl::DataLossError(Cat("table ", id, ": unreadable partition: ",
                                   Message(partition.status())));
  }
  PatternBuildProgress options;
  options.threads = threads;
  auto searched = SearchEntries(*partition, options, std::chrono::steady_clock::now());
  if (!searched.ok()) return searched.status();
  if (m.state_count() != searched->entries.size() || table.entries.size() != m.state_count()) {
    return absl::DataLossError(Cat("table ", id, ": ", m.state_count(), " entries, partition ",
                                   partition->Describe(), " has ", searched->entries.size()));
  }
  if (static_cast<size_t>(m.histogram_size()) != searched->histogram.size() ||
      !std::equal(searched->histogram.begin(), searched->histogram.end(),
                  m.histogram().begin())) {
    return absl::DataLossError(Cat("table ", id, ": the metadata's histogram is wrong"));
  }
  if (m.max_distance() != static_cast<uint32_t>(searched->largest)) {
    return absl::DataLossError(Cat("table ", id, ": the metadata's largest distance is ",
                                   m.max_distance(), ", the search's ", searched->largest));
  }
  for (uint64_t i = 0; i < m.state_count(); ++i) {
    const uint8_t stored = table.entries.Get(i);
    const uint8_t expected = searched->entries.Get(i);
    if (stored != expected) {
      return absl::DataLossError(Cat("table ", id, ": entry ", i, " holds ",
                                     static_cast<int>(stored), ", the search gives ",
                                     static_cast<int>(expected)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const PatternTables>> PatternTablesOf(
    std::shared_ptr<const LoadedTable> table) {
  const TableMetadata& m = table->metadata;
  const std::string& id = m.table_id();
  if (m.encoding() != storage::v1::PATTERN_EXCESS) {
    return absl::DataLossError(Cat("table ", id, ": not a pattern table (encoding ",
                                   storage::v1::Encoding_Name(m.encoding()), ")"));
  }
  auto partition = TilePartition::Decode(m.parameters());
  if (!partition.ok()) {
    return absl::DataLossError(Cat("table ", id, ": unreadable partition: ",
                                   Message(partition.status())));
  }
  if (m.state_count() != PatternTables::EntryCount(*partition) ||
      table->entries.size() != m.state_count()) {
    return absl::DataLossError(Cat("table ", id, ": ", m.state_count(), " entries, partition ",
                                   partition->Describe(), " has ",
                                   PatternTables::EntryCount(*partition)));
  }
  std::shared_ptr<const PackedTable> entries(table, &table->entries);
  return std::make_shared<const PatternTables>(std::move(*partition), std::move(entries));
}

}  // namespace puzzledb
