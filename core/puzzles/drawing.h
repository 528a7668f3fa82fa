// Boards as text for people (puzzledb solve --show; the drawings of docs/PUZZLES.md): cells
// on a grid, each in three characters, those that changed since the previous board in
// brackets ("[1]"), so that a move shows where it happened.
#ifndef PUZZLEDB_CORE_PUZZLES_DRAWING_H_
#define PUZZLEDB_CORE_PUZZLES_DRAWING_H_

#include <string>
#include <string_view>
#include <vector>

namespace puzzledb {

struct GridLayout {
  int columns = 0;
  std::vector<int> places;        // places[i]: row * columns + column of cell i
  std::string_view column_labels;  // one character per column, or empty
  bool row_numbers = false;       // rows numbered from 1 on the left
};

// `now` and `before` hold one character per cell; `before` empty marks nothing.
std::string DrawGrid(const GridLayout& layout, std::string_view now, std::string_view before);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_DRAWING_H_
