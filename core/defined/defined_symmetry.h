// A definition's symmetries (issue 51): relabellings of its positions and pieces that take
// every move block to a block (its guards with it) and the goals to goals, so that a state
// and its image are equally far from the goals. The live search reads its tables at each
// image too and keeps the largest bound, as the fifteen's model reads its tables at the
// board reflected about the diagonal. Found by a search over the positions' images (sets
// whose pieces turn are left alone: a definition with orientations gets none today).
#ifndef PUZZLEDB_CORE_DEFINED_DEFINED_SYMMETRY_H_
#define PUZZLEDB_CORE_DEFINED_DEFINED_SYMMETRY_H_

#include <cstdint>
#include <vector>

#include "core/definition/defined_index.h"
#include "core/definition/definition.h"

namespace puzzledb {

// DefinedSymmetry: core/definition/defined_index.h (an index's classes use them too).

// Enough to list every symmetry of a group the index's classes take (core/definition/
// index_classes.cc: 48 elements, the identity one of them).
inline constexpr int kMaxSymmetries = 47;

// Every symmetry but the identity, up to `most`; none for a definition whose sets turn, or
// those found when the search has checked `steps` bytes of blocks (a budget on its work,
// whatever the definition: the fifteen's transpose takes 39,168).
std::vector<DefinedSymmetry> FindSymmetries(const Definition& definition, const CompiledMoves& moves,
                                            int most = 3, uint64_t steps = uint64_t{1} << 26);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINED_DEFINED_SYMMETRY_H_
