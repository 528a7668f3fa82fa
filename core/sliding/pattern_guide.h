// What the solver and the builder ask of a puzzle guided by pattern tables (the fifteen
// puzzle: `using Guide = PatternGuide<FifteenPuzzle>`): the one place where the generic
// layers (core/solver_templates.h, core/puzzles/model_puzzle.h) meet this family's tables,
// search, sampler and builder, so that they name none of them. A model with
// `kTableEncoding == TableEncodingKind::kPatternBound` and `kLiveSearch ==
// LiveSearchKind::kGuided` names its Guide; only its .cc includes this header.
//
// The model: a SlidingTiles board 4 wide whose tile t's home is cell t - 1 (what the
// pattern tables assume), with `kPatternSets` (strongest first), `kDistanceCounts` and
// `Farthest()` (what sampling draws from where no table lists the states).
#ifndef PUZZLEDB_CORE_SLIDING_PATTERN_GUIDE_H_
#define PUZZLEDB_CORE_SLIDING_PATTERN_GUIDE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/search/perimeter.h"
#include "core/sliding/pattern_builder.h"
#include "core/sliding/pattern_sampler.h"
#include "core/sliding/pattern_search.h"
#include "core/sliding/pattern_tables.h"
#include "core/table/sampler.h"
#include "core/table/table_builder.h"
#include "core/table/table_store.h"
#include "core/util/strings.h"

namespace puzzledb {

template <class P>
struct PatternGuide {
  static_assert(P::kWidth == 4 && P::kGoalCells == std::string_view("123456789abcdef0"),
                "pattern tables are of the 4x4 board whose tile t's home is cell t - 1");
  using State = typename P::State;
  using PerimeterType = Perimeter<typename P::Space>;
  using Params = typename P::Params;  // none: the fifteen's tables are the same for all

  // The sets' names, strongest first.
  static std::vector<std::string_view> Sets(const Params&) {
    std::vector<std::string_view> names;
    for (const PatternSet& set : P::kPatternSets) names.push_back(set.name);
    return names;
  }
  // A set's table: the puzzle, "-", the set's name ("fifteen-7-8").
  static std::string TableId(const Params&, std::string_view set) { return Cat(P::kName, "-", set); }

  // The pattern tables of a stored table (kept alive with it), type-erased for the solver,
  // which keeps them by table id and gives them back to Search and Sample. DATA_LOSS if
  // the table is not one of this puzzle's pattern tables.
  static absl::StatusOr<std::shared_ptr<const void>> Load(
      const Params&, const std::shared_ptr<const LoadedTable>& table) {
    auto tables = PatternTablesOf(table);
    if (!tables.ok()) return tables.status();
    if (table->metadata.puzzle() != P::kName) {
      return absl::DataLossError(Cat("table ", table->metadata.table_id(), " is for puzzle ",
                                     table->metadata.puzzle()));
    }
    return std::shared_ptr<const void>(*tables);
  }

  // IDA* over `guide` (what Load gave), ending in the perimeter (may be null).
  static absl::StatusOr<Solution> Search(const P& model, const void* guide,
                                         const PerimeterType* perimeter, const State& start,
                                         const SearchLimits& limits) {
    return TilePatternSearch<P>(model, *static_cast<const PatternTables*>(guide), perimeter,
                                limits)
        .Run(start);
  }

  // States drawn at `distance` (PatternSample); `guide` may be null (no tables: only the
  // distances that need no search are drawn).
  static absl::StatusOr<Sample<P>> Draw(const P& model, const void* guide,
                                        const PerimeterType* perimeter, int distance,
                                        uint64_t count, uint64_t seed,
                                        const SearchLimits& limits) {
    return PatternSample(model, static_cast<const PatternTables*>(guide), perimeter, distance,
                         count, seed, limits);
  }

  // Builds the set named `set` into the store (one atomic write), reporting progress as
  // lines for people through options.on_progress when set.
  static absl::StatusOr<TableMetadata> Build(const Params& params, std::string_view set,
                                             TableStore& store, const BuildOptions& options) {
    const PatternSet* chosen = nullptr;
    for (const PatternSet& one : P::kPatternSets) {
      if (one.name == set) chosen = &one;
    }
    if (chosen == nullptr) {
      return absl::InvalidArgumentError(Cat("the ", P::kName, " puzzle has no pattern set ", set));
    }
    auto partition = TilePartition::Parse(chosen->groups);
    if (!partition.ok()) return partition.status();
    const PatternTableSpec spec{TableId(params, set), std::string(P::kName), *partition};
    PatternBuildProgress build;
    build.threads = options.threads;
    build.compression_level = options.compression_level;
    build.unpacked = options.unpacked;
    if (options.on_progress) {
      const auto& say = options.on_progress;
      const std::string id = spec.table_id;
      say(Cat("building ", id, " (pattern tables of tiles ", partition->Describe(), ": ",
              Thousands(PatternTables::EntryCount(*partition)), " placements)"));
      build.on_layer = [say, id](const PatternBuildLayer& layer) {
        say(Cat("  ", id, "  group ", layer.group + 1, "  depth ", layer.depth, ": ",
                Thousands(layer.states), " states, ", SecondsText(layer.seconds)));
      };
      build.on_group = [say, id](int group, uint64_t placements, int largest, double seconds) {
        say(Cat("  ", id, "  group ", group + 1, " done: ", Thousands(placements),
                " placements, largest distance ", largest, ", ", SecondsText(seconds),
                " since the start"));
      };
    }
    return BuildPatternTable(spec, store, build);
  }

  // A stored set against fresh searches (VerifyPatternTable).
  static absl::Status Verify(const Params&, const LoadedTable& table, int threads) {
    return VerifyPatternTable(table, threads);
  }
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SLIDING_PATTERN_GUIDE_H_
