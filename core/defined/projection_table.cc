#include "core/defined/projection_table.h"

#include <atomic>
#include <cstring>
#include <thread>
#include <utility>

#include "core/util/strings.h"

namespace puzzledb {

namespace {

// The projection a table is laid out by (free pieces merged), its moves and index.
struct Laid {
  Projection projection;
  CompiledMoves moves;
  DefinedIndex index;
};

absl::StatusOr<Laid> LayOut(const Definition& definition, const ProjectionSpec& spec,
                            uint64_t max_entries) {
  auto projection = Projection::Make(definition, spec.WithoutFree());
  if (!projection.ok()) return projection.status();
  CompiledMoves moves(projection->projected());
  auto index = DefinedIndex::Make(projection->projected(), moves, max_entries);
  if (!index.ok()) return index.status();
  return Laid{*std::move(projection), std::move(moves), *std::move(index)};
}

// The least distance over where the free pieces are: each state of the searched projection
// (free pieces told apart) merged into the table's. The labels of both number the pieces
// told apart alike, then the free ones, then the merged: a free label becomes the merged.
PackedTable LeastOverFree(const DefinedIndex& searched, const PackedTable& distances,
                          const DefinedIndex& laid, int counted_labels, int threads) {
  PackedTable out(storage::v1::DISTANCE_BYTE, laid.size());
  uint8_t* bytes = out.MutableBytes(0);
  std::memset(bytes, PackedTable::kByteUncovered, laid.size());
  const uint8_t merged = static_cast<uint8_t>(counted_labels + 1);
  std::atomic<uint64_t> next{0};
  auto worker = [&] {
    std::vector<uint8_t> state(static_cast<size_t>(searched.state_bytes()), 0);
    constexpr uint64_t kChunk = uint64_t{1} << 16;
    for (uint64_t first; (first = next.fetch_add(kChunk)) < searched.size();) {
      for (uint64_t i = first; i < std::min(searched.size(), first + kChunk); ++i) {
        const uint8_t d = distances.Get(i);
        if (d == PackedTable::kByteUncovered) continue;
        searched.Unrank(i, state.data());
        for (uint8_t& label : state) label = label > merged ? merged : label;
        std::atomic_ref<uint8_t> entry(bytes[laid.Rank(state.data())]);
        for (uint8_t held = entry.load(std::memory_order_relaxed);
             d < held && !entry.compare_exchange_weak(held, d, std::memory_order_relaxed);) {
        }
      }
    }
  };
  std::vector<std::thread> pool;
  const int n = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return out;
}

}  // namespace

absl::StatusOr<ProjectionTable> ProjectionTable::Build(const Definition& definition,
                                                       const ProjectionSpec& spec,
                                                       uint64_t max_entries,
                                                       const DefinedSearchOptions& options) {
  auto laid = LayOut(definition, spec, max_entries);
  if (!laid.ok()) return laid.status();
  ProjectionTable out(spec, std::move(laid->projection), std::move(laid->moves), std::move(laid->index));
  DefinedSearchOptions exact = options;
  exact.exact = true;  // a bound is read alone: the distance itself, not modulo 3
  PackedTable entries;
  std::vector<uint64_t> histogram;
  if (!spec.has_free()) {
    auto searched = SearchDefinition(out.projection_.projected(), out.moves_, out.index_, exact);
    if (!searched.ok()) return searched.status();
    entries = std::move(searched->entries);
    histogram = std::move(searched->histogram);
  } else {
    auto apart = Projection::Make(definition, spec);
    if (!apart.ok()) return apart.status();
    const CompiledMoves moves(apart->projected());
    auto index = DefinedIndex::Make(apart->projected(), moves, max_entries);
    if (!index.ok()) return index.status();
    if (index->inner_size() > 1 && !index->inner_is_order()) {
      return absl::InvalidArgumentError(
          Cat("projection ", FormatProjection(spec), ": its free pieces need positions that the "
              "guards read"));
    }
    exact.counted = apart->counted();
    if (FoldsInto(*index, out.index_)) {
      // Bits of the states with the free pieces apart, folded into the table as found.
      auto searched = SearchFolded(apart->projected(), moves, *index, out.index_, exact);
      if (!searched.ok()) return searched.status();
      entries = std::move(searched->entries);
      histogram = std::move(searched->histogram);
    } else {
      auto searched = SearchDefinition(apart->projected(), moves, *index, exact);
      if (!searched.ok()) return searched.status();
      int counted = 0;
      for (bool c : apart->counted()) counted += c ? 1 : 0;
      entries = LeastOverFree(*index, searched->entries, out.index_, counted, options.threads);
      histogram = ByteHistogram(entries);
    }
  }
  auto table = std::make_shared<const PackedTable>(std::move(entries));
  out.bytes_ = table->data();
  out.entries_ = table->size();
  out.keep_ = std::move(table);
  out.histogram_ = std::move(histogram);
  return out;
}

absl::StatusOr<ProjectionTable> ProjectionTable::Over(const Definition& definition,
                                                      const ProjectionSpec& spec,
                                                      std::vector<uint64_t> histogram,
                                                      std::shared_ptr<const void> keep,
                                                      const uint8_t* bytes, uint64_t count) {
  auto projection = Projection::Make(definition, spec.WithoutFree());
  if (!projection.ok()) return projection.status();
  if (spec.has_free()) {
    auto apart = Projection::Make(definition, spec);  // the spec's rules on free pieces
    if (!apart.ok()) return apart.status();
  }
  CompiledMoves moves(projection->projected());
  auto index = DefinedIndex::Make(projection->projected(), moves, count);
  if (!index.ok() || index->size() != count) {
    return absl::DataLossError(Cat("projection ", FormatProjection(spec), " has ",
                                   index.ok() ? Cat(index->size(), " entries") : std::string("more entries"),
                                   ", the table gives it ", count));
  }
  ProjectionTable out(spec, *std::move(projection), std::move(moves), *std::move(index));
  out.keep_ = std::move(keep);
  out.bytes_ = bytes;
  out.entries_ = count;
  out.histogram_ = std::move(histogram);
  return out;
}

absl::StatusOr<uint64_t> ProjectionTable::EntriesOf(const Definition& definition,
                                                    const ProjectionSpec& spec,
                                                    uint64_t max_entries) {
  if (spec.has_free()) {
    auto apart = Projection::Make(definition, spec);  // the spec's rules on free pieces
    if (!apart.ok()) return apart.status();
  }
  auto laid = LayOut(definition, spec, max_entries);
  if (!laid.ok()) return laid.status();
  return laid->index.size();
}

absl::StatusOr<uint64_t> ProjectionTable::SearchBytesOf(const Definition& definition,
                                                        const ProjectionSpec& spec,
                                                        uint64_t max_bytes) {
  auto laid = LayOut(definition, spec, max_bytes);
  if (!laid.ok()) return laid.status();
  if (!spec.has_free()) return laid->index.size();
  auto projection = Projection::Make(definition, spec);
  if (!projection.ok()) return projection.status();
  CompiledMoves moves(projection->projected());
  // Bits a state when its search folds (SearchFolded: three where the moves are undirected,
  // four otherwise), a byte otherwise: within max_bytes either way.
  const uint64_t bits = moves.undirected() ? 3 : 4;
  auto index = DefinedIndex::Make(projection->projected(), moves, max_bytes / bits * 8);
  if (!index.ok()) return index.status();
  const uint64_t bytes = FoldsInto(*index, laid->index) ? (index->size() * bits + 7) / 8 : index->size();
  if (bytes > max_bytes) {
    return absl::InvalidArgumentError(Cat("it takes ", bytes, " bytes while it is built, more than ", max_bytes));
  }
  return bytes;
}

int ProjectionTable::Bound(const DefinedState& state, DefinedState* scratch) const {
  projection_.Project(state, scratch);
  if (!index_.Indexable(scratch->data())) return kUnreachable;
  const uint8_t d = bytes_[index_.Rank(scratch->data())];
  return d == PackedTable::kByteUncovered ? kUnreachable : d;
}

double ProjectionTable::average() const {
  double sum = 0, n = 0;
  for (size_t d = 0; d < histogram_.size(); ++d) {
    sum += static_cast<double>(d) * static_cast<double>(histogram_[d]);
    n += static_cast<double>(histogram_[d]);
  }
  return n > 0 ? sum / n : 0;
}

}  // namespace puzzledb
