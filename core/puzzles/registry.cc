#include <string>
#include <string_view>
#include <vector>

#include "core/puzzle.h"

namespace puzzledb {

// The one list of puzzles: one line each, in the order they are shown to users. Each
// model's .cc registers its puzzle (PUZZLEDB_REGISTER_PUZZLE, core/puzzles/model_puzzle.h).
#define PUZZLEDB_PUZZLES(X) \
  X(KnightPuzzle)           \
  X(KnobsPuzzle)            \
  X(RotationPuzzle)         \
  X(EightPuzzle)            \
  X(FifteenPuzzle)          \
  X(Cube2Puzzle)

#define PUZZLEDB_DECLARE_(P) const Puzzle& Registered##P();
PUZZLEDB_PUZZLES(PUZZLEDB_DECLARE_)
#undef PUZZLEDB_DECLARE_

std::span<const Puzzle* const> Puzzles() {
#define PUZZLEDB_ENTRY_(P) &Registered##P(),
  static const Puzzle* const kList[] = {PUZZLEDB_PUZZLES(PUZZLEDB_ENTRY_)};
#undef PUZZLEDB_ENTRY_
  return kList;
}

const Puzzle* FindPuzzle(std::string_view name) {
  for (const Puzzle* puzzle : Puzzles()) {
    if (puzzle->name() == name) return puzzle;
  }
  return nullptr;
}

std::string PuzzleNames(std::string_view separator) {
  std::string names;
  for (const Puzzle* puzzle : Puzzles()) {
    if (!names.empty()) names += separator;
    names += puzzle->name();
  }
  return names;
}

std::vector<std::string> PuzzleNameList() {
  std::vector<std::string> names;
  for (const Puzzle* puzzle : Puzzles()) names.emplace_back(puzzle->name());
  return names;
}

}  // namespace puzzledb
