// The live search of a definition (issue 51): IDA* bounded by the largest of its projection
// tables' bounds (or their sum, where that is admissible) (core/defined/projection_table.h; none: plain iterative deepening), moves
// tried in canonical order, so that the first answer found is the lexicographically
// smallest of the optimal ones. A move that leaves the state as it was, or goes back to the
// state before, is never taken: no optimal answer does either; nor are two powers of one
// move in a row, or two moves that commute out of canonical order (the smallest optimal
// answer has neither). Where every move flips a parity (DefinedIndex::DistanceParity), each
// bound is raised to the distance's; the tables are read at a state's images under the
// definition's symmetries too (the largest bound kept); within a perimeter's radius, the
// perimeter answers; a sequence of blocks that a shorter or smaller one stands for
// (DefinedPruning) is never played.
#ifndef PUZZLEDB_CORE_DEFINED_DEFINED_IDA_H_
#define PUZZLEDB_CORE_DEFINED_DEFINED_IDA_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "core/defined/defined_perimeter.h"
#include "core/defined/defined_pruning.h"
#include "core/defined/defined_symmetry.h"
#include "core/defined/projection_table.h"
#include "core/definition/definition.h"
#include "core/model/model.h"
#include "core/util/thread_lender.h"

namespace puzzledb {

struct DefinedIdaOptions {
  uint64_t max_nodes = 0;  // states generated; 0: no budget (RESOURCE_EXHAUSTED past it)
  int max_depth = 255;     // no answer longer than this is looked for
  // The bound is the sum of the tables' bounds, not the largest. REQUIRES: their
  // projections are disjoint in the moves that change them (MoveDisjoint).
  bool sum = false;
  // Asked every 4096 states (LimitsReached): the deadline and the caller's cancellation.
  // Its max_moves and max_nodes are not read (the fields above are). May be null.
  const SearchLimits* limits = nullptr;
  // Where a state's bound is within its radius, its exact distance (and the answer's end,
  // walked down it), or a bound of radius + 1. May be null.
  const DefinedPerimeter* perimeter = nullptr;
  // The tables are read at each image of a state too, the largest bound kept (each image
  // is as far from the goals). May be null.
  const std::vector<DefinedSymmetry>* symmetries = nullptr;
  // Duplicate block sequences never played (DefinedPruning). May be null.
  const DefinedPruning* pruning = nullptr;
  // Spare threads (the server's idle search threads): an iteration after one of at least
  // `split_after` states is split across them. Its subtrees at a depth are listed in
  // canonical order and handed out in that order; the answer is that of the first listed
  // subtree with one, once every subtree before it is searched: the same answer as alone.
  // May be null (or empty): no helpers.
  const ThreadLender* threads = nullptr;
  uint64_t split_after = 200'000;
};

struct DefinedIdaResult {
  // False: no goal within max_depth, or (where a table says so) none at all.
  bool solved = false;
  // Not solved because a table proves that no goal can be reached (its bound is
  // ProjectionTable::kUnreachable), at any depth.
  bool unreachable = false;
  std::vector<int> moves;  // the answer, in canonical move numbers
  uint64_t nodes = 0;      // states generated
  uint64_t lookups = 0;    // states looked up in the perimeter
  int iterations = 0;
  int split_iterations = 0;  // iterations split across spare threads
  int helpers = 0;           // threads lent to them, in all
};

absl::StatusOr<DefinedIdaResult> DefinedIdaStar(const Definition& definition,
                                                std::span<const ProjectionTable* const> tables,
                                                const DefinedState& start,
                                                const DefinedIdaOptions& options);

// What every search of a definition with the same tables and symmetries shares (its moves
// compiled, which moves never follow which, the tables read through each image, the
// invariants), made once: a search of a few moves then costs its nodes alone. It copies the
// definition; the tables and the symmetries must outlive it.
class DefinedIdaPlan;
std::shared_ptr<const DefinedIdaPlan> PlanDefinedIda(const Definition& definition,
                                                     std::span<const ProjectionTable* const> tables,
                                                     const std::vector<DefinedSymmetry>* symmetries);
// The same search through a plan; options.symmetries is not read (the plan's are).
absl::StatusOr<DefinedIdaResult> DefinedIdaStar(const DefinedIdaPlan& plan, const DefinedState& start,
                                                const DefinedIdaOptions& options);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINED_DEFINED_IDA_H_
