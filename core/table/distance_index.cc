#include "core/table/distance_index.h"

#include <algorithm>
#include <unordered_set>

#include "core/util/strings.h"

namespace puzzledb {

absl::StatusOr<std::shared_ptr<const DistanceIndex>> DistanceIndex::Build(
    const TableStore& store, std::shared_ptr<const LoadedTable> table, const Search& search) {
  HugeBuffer exact;
  if (table->metadata.encoding() != storage::v1::DISTANCE_BYTE) {
    auto loaded = table->metadata.band_page_count() == 0 && search
                      ? search()
                      : store.LoadExactDistances(*table);
    if (!loaded.ok()) return loaded.status();
    exact = std::move(*loaded);
  }
  return std::shared_ptr<const DistanceIndex>(new DistanceIndex(std::move(table), std::move(exact)));
}

DistanceIndex::DistanceIndex(std::shared_ptr<const LoadedTable> table, HugeBuffer exact)
    : table_(std::move(table)),
      exact_(std::move(exact)),
      distances_(exact_.empty() ? table_->entries.data() : exact_.data()) {}

uint64_t DistanceIndex::Population(int d) const {
  const auto& histogram = table_->metadata.histogram();
  return d >= 0 && d < histogram.size() ? histogram[d] : 0;
}

absl::StatusOr<std::shared_ptr<const std::vector<uint64_t>>> DistanceIndex::BlockPrefix(
    int d) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = prefixes_.find(d); it != prefixes_.end()) return it->second;
  }
  // Counted outside the lock (a knight table is 35.2 MB: ~10 ms); two threads may both
  // count, the first result is kept.
  const uint64_t n = size();
  const uint64_t blocks = (n + kBlock - 1) / kBlock;
  auto prefix = std::make_shared<std::vector<uint64_t>>(blocks + 1);
  const auto target = static_cast<uint8_t>(d);
  uint64_t total = 0;
  for (uint64_t b = 0; b < blocks; ++b) {
    (*prefix)[b] = total;
    const uint8_t* p = distances_ + b * kBlock;
    const uint64_t len = std::min(kBlock, n - b * kBlock);
    uint32_t in_block = 0;
    for (uint64_t i = 0; i < len; ++i) in_block += p[i] == target;
    total += in_block;
  }
  (*prefix)[blocks] = total;
  if (total != Population(d)) {
    return absl::DataLossError(Cat("table ", metadata().table_id(), " holds ", total,
                                   " states at distance ", d, ", its histogram says ",
                                   Population(d)));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = prefixes_[d];
  if (slot == nullptr) slot = std::move(prefix);
  return slot;
}

absl::StatusOr<std::vector<uint64_t>> DistanceIndex::Select(
    int d, const std::vector<uint64_t>& ordinals) const {
  auto prefix = BlockPrefix(d);
  if (!prefix.ok()) return prefix.status();
  const std::vector<uint64_t>& cumulative = **prefix;
  const auto target = static_cast<uint8_t>(d);
  std::vector<uint64_t> ranks;
  ranks.reserve(ordinals.size());
  for (uint64_t j : ordinals) {
    if (j >= cumulative.back()) {
      return absl::InternalError(Cat("DistanceIndex::Select: ordinal ", j, " of ",
                                     cumulative.back()));
    }
    // The block holding the j-th state: the last whose prefix is <= j.
    const uint64_t b = static_cast<uint64_t>(
        std::upper_bound(cumulative.begin(), cumulative.end(), j) - cumulative.begin() - 1);
    uint64_t left = j - cumulative[b];
    uint64_t rank = b * kBlock;
    for (;; ++rank) {
      if (distances_[rank] == target && left-- == 0) break;
    }
    ranks.push_back(rank);
  }
  return ranks;
}

absl::StatusOr<uint64_t> DistanceIndex::Ordinal(int d, uint64_t rank) const {
  auto prefix = BlockPrefix(d);
  if (!prefix.ok()) return prefix.status();
  rank = std::min(rank, size());
  const uint64_t b = rank / kBlock;
  const auto target = static_cast<uint8_t>(d);
  uint64_t ordinal = (**prefix)[b];
  for (uint64_t i = b * kBlock; i < rank; ++i) ordinal += distances_[i] == target;
  return ordinal;
}

absl::StatusOr<std::vector<uint64_t>> DistanceIndex::Draw(int d, uint64_t count,
                                                          SeededRng& rng) const {
  std::vector<uint64_t> ordinals = DrawDistinct(Population(d), count, rng);
  auto ranks = Select(d, ordinals);
  if (!ranks.ok()) return ranks.status();
  rng.Shuffle(&*ranks);
  return ranks;
}

std::vector<uint64_t> DrawDistinct(uint64_t n, uint64_t count, SeededRng& rng) {
  std::vector<uint64_t> chosen;
  if (count >= n) {
    chosen.resize(n);
    for (uint64_t i = 0; i < n; ++i) chosen[i] = i;
    return chosen;
  }
  // Floyd: for j = n - count .. n - 1 take a uniform t in [0, j], or j itself if t is
  // taken already; every count-subset comes out with the same probability.
  std::unordered_set<uint64_t> taken;
  taken.reserve(count * 2);
  for (uint64_t j = n - count; j < n; ++j) {
    const uint64_t t = rng.Below(j + 1);
    taken.insert(taken.count(t) != 0 ? j : t);
  }
  chosen.assign(taken.begin(), taken.end());
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace puzzledb
