// Building a puzzle's table (retrograde BFS, then the store) and verifying a stored one
// against a fresh BFS.
#ifndef PUZZLEDB_CORE_TABLE_TABLE_BUILDER_H_
#define PUZZLEDB_CORE_TABLE_TABLE_BUILDER_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <string>
#include <vector>
#include <type_traits>

#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/search/retrograde_bfs.h"
#include "core/util/strings.h"
#include "core/table/table_store.h"

namespace puzzledb {

struct BuildOptions {
  int max_depth = -1;  // -1: the whole space
  int threads = 0;     // 0: one per hardware thread
  int compression_level = 9;
  // A residue table's exact distances as band pages (docs/FORMAT.md). Without them the
  // first sample searches again for them (ExactDistances).
  bool band_pages = false;
  UnpackedCopies unpacked = UnpackedCopies::kLarge;  // which tables get an unpacked copy
  std::function<void(const BfsLayer&)> on_layer;  // progress, after every BFS layer
  // Progress as lines for people, from builds that have no BFS layers (pattern tables).
  std::function<void(const std::string&)> on_progress;
  // A definition's pattern tables (core/defined/defined_patterns.h): the projections to
  // build, as ParseProjection reads them (empty: chosen within pattern_memory), and the
  // bytes their tables may take together (0: 512 MiB).
  std::vector<std::string> projections;
  uint64_t pattern_memory = 0;
  // The bytes each projection's search may take besides the tables (0: 4 GiB): searches that
  // tell free pieces apart hold more than their table while they run.
  uint64_t build_memory = 0;
};

// What a model with a search of its own returns (a definition's, core/defined/): the
// table's entries in its encoding (or, `exact`, a byte each: the distance), instead of a
// retrograde BFS's byte a state, which a two-bit table would need four times over.
struct OwnSearch {
  PackedTable entries;
  std::vector<uint64_t> histogram;  // states per distance 0..the farthest
  double seconds = 0;
};
template <class P>
concept HasOwnSearch = requires(const P& model, const BfsOptions& options, bool exact) {
  { model.SearchTable(options, exact) } -> std::same_as<absl::StatusOr<OwnSearch>>;
};

template <PuzzleModel P>
TableEncoding EncodingOf() {
  switch (P::kTableEncoding) {
    case TableEncodingKind::kDistanceMod3:
      return storage::v1::DISTANCE_MOD3;
    case TableEncodingKind::kNextMove:
      return storage::v1::NEXT_MOVE;
    case TableEncodingKind::kPatternBound:
      return storage::v1::PATTERN_EXCESS;
    default:
      return storage::v1::DISTANCE_BYTE;
  }
}

// A space's next-move entries (docs/FORMAT.md) from its BFS distances: for every covered
// state the first move, in canonical order, to a state one step closer; kNextMoveGoal at a
// goal. Threads take chunks of whole bytes in turn. INTERNAL if a covered state has no
// move one step closer (the distances are not a search's).
template <IndexedSpace S>
absl::StatusOr<PackedTable> NextMoves(const S& space, const HugeBuffer& distance, int threads) {
  static_assert(S::kNumMoves <= PackedTable::kNextMoveGoal, "a move must fit below the marks");
  using State = typename S::State;
  const uint64_t n = distance.size();
  PackedTable table(storage::v1::NEXT_MOVE, n);
  constexpr uint64_t kChunk = uint64_t{1} << 16;  // even: a byte is never shared
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> broken{n};  // the smallest index found without a closer move
  // Each state tries its moves in order and stops at the first one step closer (about 3
  // tries a state for the knobs). Prefetching every move's entry first measured no faster,
  // and for batches of 16 states slower: the pass is bound by the tries, not by waiting for
  // memory (docs/PERFORMANCE.md, "Next moves for the knobs").
  auto worker = [&] {
    for (uint64_t first; (first = next.fetch_add(kChunk)) < n;) {
      const uint64_t last = std::min(n, first + kChunk);
      for (uint64_t i = first; i < last; ++i) {
        const uint8_t d = distance[i];
        if (d == BfsResult::kUnseen) continue;  // stays kNextMoveUncovered
        if (d == 0) {
          table.Set(i, PackedTable::kNextMoveGoal);
          continue;
        }
        const State s = space.Unrank(i);
        int chosen = -1;
        for (int m = 0; m < MoveCount(space); ++m) {
          State t;
          if (space.Apply(s, m, &t) && distance[space.Rank(t)] == d - 1) {
            chosen = m;
            break;
          }
        }
        if (chosen < 0) {
          uint64_t seen = broken.load();
          while (i < seen && !broken.compare_exchange_weak(seen, i)) {
          }
          continue;
        }
        table.Set(i, static_cast<uint8_t>(chosen));
      }
    }
  };
  const int workers = threads > 0 ? threads
                                  : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int t = 1; t < workers; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (broken.load() < n) {
    return absl::InternalError(Cat("entry ", broken.load(), " is covered but has no move one "
                                   "step closer: the distances are not a search's"));
  }
  return table;
}

// A table's entries from its BFS distances, in the model's encoding.
template <PuzzleModel P>
absl::StatusOr<PackedTable> EntriesFor(const P& model, const HugeBuffer& distance, int threads) {
  if constexpr (P::kTableEncoding == TableEncodingKind::kNextMove) {
    static_assert(P::kMaxKeys == 1, "a next-move table walks one key per state");
    return NextMoves(model.space(), distance, threads);
  } else {
    PackedTable entries(EncodingOf<P>(), distance.size());
    entries.FromDistances(distance);
    return entries;
  }
}

// The metadata a build knows before the store adds paging and checksums.
template <PuzzleModel P>
TableMetadata MetadataFor(const P& model, const BfsResult& bfs, int max_depth) {
  TableMetadata m;
  m.set_table_id(P::TableId(model.params()));
  m.set_puzzle(std::string(ModelName(model)));
  m.set_parameters(P::EncodeParams(model.params()));
  m.set_parameters_text(P::DescribeParams(model.params()));
  if constexpr (requires { model.params().Fingerprint(); }) {
    m.set_parameters_fingerprint(model.params().Fingerprint());
  } else if constexpr (requires { model.params()->Fingerprint(); }) {
    m.set_parameters_fingerprint(model.params()->Fingerprint());
  }
  m.set_state_count(model.space().Size());
  m.set_complete(bfs.complete);
  m.set_coverage_depth(static_cast<uint32_t>(
      bfs.complete || max_depth < 0 ? bfs.max_distance() : max_depth));
  m.set_covered_states(bfs.covered());
  for (uint64_t h : bfs.histogram) m.add_histogram(h);
  m.set_max_distance(static_cast<uint32_t>(bfs.max_distance()));
  m.set_build_seconds(bfs.seconds);
  m.set_build_unix_micros(std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
  return m;
}

// Writes a build's entries (and band pages, if any) as `options` say, replacing the table's
// previous build atomically; the build's time counts from `started`.
inline absl::StatusOr<TableMetadata> WriteBuilt(TableStore& store, TableMetadata metadata,
                                               const PackedTable& entries, const HugeBuffer* bands,
                                               const BuildOptions& options,
                                               std::chrono::steady_clock::time_point started) {
  TableWriteOptions write;
  write.compression_level = options.compression_level;
  write.threads = options.threads;
  write.unpacked = options.unpacked;
  metadata.set_build_seconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  const absl::Status written = store.Write(metadata, entries, write, bands);
  if (!written.ok()) return written;
  return store.ReadMetadata(metadata.table_id());
}

// Runs the BFS (or the model's own search) and writes the table (replacing the previous one
// atomically).
template <PuzzleModel P>
absl::StatusOr<TableMetadata> BuildTable(const P& model, TableStore& store,
                                         const BuildOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  BfsOptions bfs_options;
  bfs_options.max_depth = options.max_depth;
  bfs_options.threads = options.threads;
  bfs_options.on_layer = options.on_layer;
  if constexpr (HasOwnSearch<P>) {
    // Its entries straight from the search, complete.
    auto searched = model.SearchTable(bfs_options, /*exact=*/false);
    if (!searched.ok()) return searched.status();
    BfsResult summary;  // the histogram alone
    summary.histogram = searched->histogram;
    summary.complete = true;
    summary.seconds = searched->seconds;
    return WriteBuilt(store, MetadataFor(model, summary, -1), searched->entries, nullptr,
                      options, started);
  } else {
    BfsResult bfs = RetrogradeBfs<typename P::Space>(model.space()).Run(bfs_options);
    TableMetadata metadata = MetadataFor(model, bfs, options.max_depth);
    auto entries = EntriesFor(model, bfs.distance, options.threads);
    if (!entries.ok()) return entries.status();
    // A residue table may also keep its distances divided by 3 (band pages), from which
    // sampling learns exact distances without searching again.
    HugeBuffer bands;
    if (EncodingOf<P>() == storage::v1::DISTANCE_MOD3 && options.band_pages) {
      bands = PackBands(bfs.distance);
    }
    bfs.distance = {};  // free 1 byte per state before compressing
    return WriteBuilt(store, std::move(metadata), *entries, bands.empty() ? nullptr : &bands,
                      options, started);
  }
}

// A stored table against a fresh BFS of the same depth: the histogram, the coverage and
// every entry. A BFS distance is the only function with the invariants a table must keep
// (goals at 0; every covered state at d > 0 has a move to d - 1 and none to less), so
// equality checks them all. Returns the search's exact distances (one byte per entry,
// BfsResult::kUnseen where not covered); DATA_LOSS names the first difference.
template <PuzzleModel P>
absl::StatusOr<HugeBuffer> ExactDistances(const P& model, const LoadedTable& table,
                                          int threads) {
  const TableMetadata& m = table.metadata;
  const std::string id = m.table_id();
  if (m.state_count() != model.space().Size()) {
    return absl::DataLossError(Cat("table ", id, ": ", m.state_count(), " entries, the puzzle has ",
                                   model.space().Size(), " states"));
  }
  if (m.encoding() != EncodingOf<P>()) {
    return absl::DataLossError(Cat("table ", id, ": unexpected encoding"));
  }
  BfsOptions options;
  options.threads = threads;
  options.max_depth = m.complete() ? -1 : static_cast<int>(m.coverage_depth());
  BfsResult bfs;
  if constexpr (HasOwnSearch<P>) {
    auto searched = model.SearchTable(options, /*exact=*/true);
    if (!searched.ok()) return absl::DataLossError(Cat("table ", id, ": ", Message(searched.status())));
    bfs.histogram = searched->histogram;
    bfs.complete = true;
    bfs.distance = std::move(searched->entries).TakeBytes();
  } else {
    bfs = RetrogradeBfs<typename P::Space>(model.space()).Run(options);
  }
  if (static_cast<size_t>(m.histogram_size()) != bfs.histogram.size()) {
    return absl::DataLossError(Cat("table ", id, ": the metadata's histogram has ",
                                   m.histogram_size(), " distances, the puzzle has ",
                                   bfs.histogram.size()));
  }
  for (size_t d = 0; d < bfs.histogram.size(); ++d) {
    if (m.histogram(static_cast<int>(d)) != bfs.histogram[d]) {
      return absl::DataLossError(Cat("table ", id, ": the metadata says ",
                                     m.histogram(static_cast<int>(d)), " states at distance ", d,
                                     ", there are ", bfs.histogram[d]));
    }
  }
  if (m.complete() != bfs.complete || m.covered_states() != bfs.covered()) {
    return absl::DataLossError(Cat("table ", id, ": the metadata's coverage is wrong"));
  }
  auto expected = EntriesFor(model, bfs.distance, threads);
  if (!expected.ok()) return expected.status();
  for (uint64_t i = 0; i < expected->size(); ++i) {
    const uint8_t stored = table.entries.Get(i);
    if (stored == expected->Get(i)) continue;
    std::string state = Cat("entry ", i);
    if constexpr (std::is_same_v<typename P::Space::State, typename P::State>) {
      if constexpr (!requires { P::Space::kMirrorQuotient; }) {
        state += Cat(" (", P::FormatCompact({model.params(), model.space().Unrank(i)}), ")");
      }
    }
    const uint8_t d = bfs.distance[i];
    if constexpr (P::kTableEncoding == TableEncodingKind::kNextMove) {
      auto entry = [&model, i](uint8_t code) -> std::string {
        if (code == PackedTable::kNextMoveGoal) return "the goal's mark";
        if (code == PackedTable::kNextMoveUncovered) return "the uncovered mark";
        if (code >= MoveCount(model)) return Cat("the code ", static_cast<int>(code));
        return Cat("move ", model.MoveName(model.space().Unrank(i), code));
      };
      return absl::DataLossError(Cat(
          "table ", id, ": ", state, " holds ", entry(stored),
          d == BfsResult::kUnseen
              ? std::string(", but the table does not cover that state")
              : Cat(", but the first optimal move there is ", entry(expected->Get(i)))));
    }
    return absl::DataLossError(
        Cat("table ", id, ": ", state, " holds ", static_cast<int>(stored),
            d == BfsResult::kUnseen ? std::string(", but the table does not cover that state")
                                    : Cat(", but the state is ", static_cast<int>(d),
                                          " moves from the goal")));
  }
  return std::move(bfs.distance);
}

// ExactDistances, and `exact`, if given (the table's exact distances from its band pages,
// TableStore::LoadExactDistances), against them.
template <PuzzleModel P>
absl::Status VerifyTable(const P& model, const LoadedTable& table, int threads,
                         const HugeBuffer* exact = nullptr) {
  auto distances = ExactDistances(model, table, threads);
  if (!distances.ok()) return distances.status();
  const std::string id = table.metadata.table_id();
  if (exact != nullptr) {
    if (exact->size() != distances->size()) {
      return absl::DataLossError(Cat("table ", id, ": band pages of the wrong size"));
    }
    for (uint64_t i = 0; i < exact->size(); ++i) {
      if ((*exact)[i] != (*distances)[i]) {
        return absl::DataLossError(Cat("table ", id, ": band pages give entry ", i, " distance ",
                                       static_cast<int>((*exact)[i]), ", the search ",
                                       static_cast<int>((*distances)[i])));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_TABLE_BUILDER_H_
