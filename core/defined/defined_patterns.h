// A definition's pattern tables (issue 51): the complete tables of some of its projections
// (core/defined/projection_table.h), stored as one table of the store, "<name>-patterns",
// whose metadata holds the definition and the projections (docs/FORMAT.md, "A definition's
// pattern tables"). They guide the live search (core/defined/defined_ida.h) of a definition
// that has no complete table: DefinedGuide is its model's Guide (core/model/model.h,
// kGuided; core/defined/defined_guide.h), through which the solver and the builder reach
// them without naming them.
//
// The builder takes the projections named on its command line (--projection) or chooses
// them within a memory budget (ChooseProjections). Each entry is a byte: the memory of the
// tables is their entries.
#ifndef PUZZLEDB_CORE_DEFINED_DEFINED_PATTERNS_H_
#define PUZZLEDB_CORE_DEFINED_DEFINED_PATTERNS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/defined/defined_ida.h"
#include "core/defined/defined_perimeter.h"
#include "core/defined/defined_pruning.h"
#include "core/defined/defined_symmetry.h"
#include "core/defined/defined_model.h"
#include "core/defined/projection_table.h"
#include "core/table/table_builder.h"
#include "core/table/table_store.h"

namespace puzzledb {

// The one set of a definition's pattern tables: its table is "<name>-patterns".
inline constexpr std::string_view kDefinedPatternsSet = "patterns";
// The bytes of pattern tables the builder chooses when told nothing (--pattern-memory).
inline constexpr uint64_t kDefaultPatternMemory = uint64_t{512} << 20;
// The bytes a projection's search may take besides the tables while the builder builds it,
// when told nothing (--build-memory): searches that tell free pieces apart take more than
// their table (the fifteen's eight tiles and its blank: 1.6 GB for a table of 519 MB).
inline constexpr uint64_t kDefaultBuildMemory = uint64_t{4} << 30;
// The longest answer a definition's live search looks for when the caller sets no cap.
inline constexpr int kMaxDefinedSearchDepth = 255;
// The duplicate block sequences the builder looks for (DefinedPruning::Find): of up to this
// many blocks, within this much work space.
inline constexpr int kDuplicateLength = 10;
inline constexpr uint64_t kDuplicateBytes = uint64_t{64} << 20;

// The tables of one stored set, kept alive by what holds their entries. Immutable.
class DefinedPatterns {
 public:
  // `sum`: the search adds the tables' bounds (REQUIRES: MoveDisjoint of their projections).
  DefinedPatterns(std::vector<ProjectionTable> tables, bool sum,
                  std::shared_ptr<const DefinedPerimeter> perimeter = nullptr,
                  std::vector<DefinedSymmetry> symmetries = {}, DefinedPruning pruning = {});
  const std::vector<ProjectionTable>& tables() const { return tables_; }
  bool sum() const { return sum_; }
  // The states near the goals, searched when the tables are loaded (may be null).
  const DefinedPerimeter* perimeter() const { return perimeter_.get(); }
  // The definition's symmetries (FindSymmetries), found when the tables are loaded.
  const std::vector<DefinedSymmetry>& symmetries() const { return symmetries_; }
  // The duplicate block sequences the search never plays, found by the builder and stored
  // with the tables (none for tables built before).
  const DefinedPruning& pruning() const { return pruning_; }
  // The tables as the live search takes them, in stored order.
  std::span<const ProjectionTable* const> bounds() const { return bounds_; }
  // What every search of `definition` (the one the tables are of) through them shares,
  // made by the first search (DefinedIdaPlan; any thread).
  const DefinedIdaPlan& Plan(const Definition& definition) const;

  DefinedPatterns(const DefinedPatterns&) = delete;  // the plan points into it
  DefinedPatterns& operator=(const DefinedPatterns&) = delete;

 private:
  std::vector<ProjectionTable> tables_;
  std::vector<const ProjectionTable*> bounds_;
  bool sum_ = false;
  std::shared_ptr<const DefinedPerimeter> perimeter_;
  std::vector<DefinedSymmetry> symmetries_;
  DefinedPruning pruning_;
  mutable std::once_flag planned_;
  mutable std::shared_ptr<const DefinedIdaPlan> plan_;
};

// Projections whose tables take at most `memory` bytes together (and each one's search
// within `search_memory`, as for named ones). A definition of one set whose moves carry
// one piece each besides the pieces guards read (sliding tiles and their blank) gets
// groups of those pieces whose distances add up (MoveDisjoint), the guards' pieces free in
// each, each group as large as fits, in the order of the goal's cells: the fifteen's
// `T 1-8 ~16`, `T 9-15 ~16` within 1 GiB (the first one's search takes 1.6 GB, within the
// default search_memory). Otherwise, for each set, those whose whole table is smallest
// first, the whole set if its table fits its share of what is left, else its
// labels in runs (1-5, 6-10, ...) each as long as fits, with orientations where they fit
// and without where only that does. Empty when not even one piece fits. `why`, if given,
// says for people which rule chose and where each group ends.
std::vector<ProjectionSpec> ChooseProjections(const Definition& definition, uint64_t memory,
                                              uint64_t search_memory, std::string* why = nullptr);

// For each spec: 0, or the 1-based number of an earlier one whose projection is the same
// puzzle (SamePuzzle), whose table it then shares: goal tables of goals alike but for the
// labels they name (one colour's cells, another's) are one table.
std::vector<int> SharedProjections(const Definition& definition, const std::vector<ProjectionSpec>& specs);

// The projections to build for `options` (BuildOptions::projections read, or chosen within
// BuildOptions::pattern_memory, their searches within BuildOptions::build_memory, `why`
// then saying why, as ChooseProjections): INVALID_ARGUMENT
// naming the projection that is wrong or saying what does not fit.
absl::StatusOr<std::vector<ProjectionSpec>> ProjectionsToBuild(const Definition& definition,
                                                               const BuildOptions& options,
                                                               std::string* why = nullptr);

// Builds the tables of `specs` and writes them as the table "<name>-patterns" (one atomic
// write), reporting progress through options.on_progress; `why`, when the builder chose
// them (ProjectionsToBuild), is recorded with them for `info`.
absl::StatusOr<TableMetadata> BuildDefinedPatterns(const DefinedPuzzleData& data,
                                                   const std::vector<ProjectionSpec>& specs,
                                                   TableStore& store, const BuildOptions& options,
                                                   std::string_view why = {});

// The tables of a stored set (which they keep alive), their bounds summed where their
// projections are disjoint in the moves that change them (MoveDisjoint). DATA_LOSS when its metadata is not
// that of `data`'s pattern tables: another definition, a checksum that fails, projections
// that do not read or whose sizes do not add up to the entries.
absl::StatusOr<std::shared_ptr<const DefinedPatterns>> DefinedPatternsOf(
    const DefinedPuzzleData& data, std::shared_ptr<const LoadedTable> table);

// A stored set against fresh searches of its projections: DATA_LOSS names the first
// projection and entry that differ.
absl::Status VerifyDefinedPatterns(const DefinedPuzzleData& data, const LoadedTable& table,
                                   int threads);

// The checksum a definition's pattern table records (parameters_fingerprint): the CRC-32
// of the definition's text, then of each projection's spec and entries.
uint64_t DefinedPatternsFingerprint(std::string_view text, const TableMetadata& m);

// The answer of the live search for `start` (the solver's Guide::Search).
absl::StatusOr<Solution> SearchDefined(const DefinedPuzzleData& data,
                                       const DefinedPatterns& patterns, const DefinedState& start,
                                       const SearchLimits& limits);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINED_DEFINED_PATTERNS_H_
