// The registration point of the puzzles: every binary reaches the models through this
// list. Adding a puzzle means writing its model and adding it here (plus its message in the
// wire API).
#ifndef PUZZLEDB_CORE_PUZZLES_REGISTRY_H_
#define PUZZLEDB_CORE_PUZZLES_REGISTRY_H_

#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/puzzle.h"
#include "core/puzzles/eight.h"
#include "core/puzzles/fifteen.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "core/puzzles/rotation_sampling.h"

namespace puzzledb {

using AllPuzzles =
    std::tuple<KnightPuzzle, KnobsPuzzle, RotationPuzzle, EightPuzzle, FifteenPuzzle>;

// X(Model) for every model of AllPuzzles, for the explicit instantiations of code compiled
// once per puzzle (core/solver.cc); the check below keeps the two lists one.
#define PUZZLEDB_FOR_EACH_PUZZLE(X) \
  X(KnightPuzzle) X(KnobsPuzzle) X(RotationPuzzle) X(EightPuzzle) X(FifteenPuzzle)
#define PUZZLEDB_PUZZLE_COUNT_ONE_(P) +1
static_assert(0 PUZZLEDB_FOR_EACH_PUZZLE(PUZZLEDB_PUZZLE_COUNT_ONE_) ==
                  std::tuple_size_v<AllPuzzles>,
              "PUZZLEDB_FOR_EACH_PUZZLE and AllPuzzles list the same models");
#undef PUZZLEDB_PUZZLE_COUNT_ONE_

// Calls f(std::type_identity<P>{}) for the model named `name`; returns false if there is
// none.
template <class F>
bool VisitPuzzle(std::string_view name, F&& f) {
  return std::apply(
      [&](auto... models) {
        return ((decltype(models)::kName == name
                     ? (f(std::type_identity<decltype(models)>{}), true)
                     : false) ||
                ...);
      },
      AllPuzzles{});
}

inline constexpr size_t kPuzzleCount = std::tuple_size_v<AllPuzzles>;

// Calls f(std::type_identity<P>{}) for the model registered at `index` (< kPuzzleCount).
template <class F>
void VisitPuzzleAt(size_t index, F&& f) {
  size_t i = 0;
  std::apply([&](auto... models) {
    ((i++ == index ? f(std::type_identity<decltype(models)>{}) : void()), ...);
  }, AllPuzzles{});
}

// Calls f(std::type_identity<P>{}) for every model, in registration order.
template <class F>
void ForEachPuzzle(F&& f) {
  std::apply([&](auto... models) { (f(std::type_identity<decltype(models)>{}), ...); },
             AllPuzzles{});
}

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_REGISTRY_H_
