#include "core/puzzles/drawing.h"

#include <algorithm>

namespace puzzledb {

std::string DrawGrid(const GridLayout& layout, std::string_view now, std::string_view before) {
  const int rows =
      (*std::max_element(layout.places.begin(), layout.places.end())) / layout.columns + 1;
  std::vector<std::string> grid(static_cast<size_t>(rows * layout.columns), "   ");
  for (size_t i = 0; i < layout.places.size() && i < now.size(); ++i) {
    const bool moved = !before.empty() && i < before.size() && before[i] != now[i];
    grid[static_cast<size_t>(layout.places[i])] =
        moved ? std::string{'[', now[i], ']'} : std::string{' ', now[i], ' '};
  }
  const std::string margin = layout.row_numbers ? "   " : "  ";
  std::string out;
  if (!layout.column_labels.empty()) {
    out += margin;
    for (char label : layout.column_labels) out += std::string{' ', label, ' '};
    while (out.back() == ' ') out.pop_back();
    out += "\n";
  }
  for (int r = 0; r < rows; ++r) {
    // Appended piece by piece: g++ 12 warns (-Wrestrict, falsely) of the same built with +.
    std::string line;
    if (layout.row_numbers) {
      line.push_back(' ');
      line += std::to_string(r + 1);
      line.push_back(' ');
    } else {
      line += margin;
    }
    for (int c = 0; c < layout.columns; ++c) line += grid[static_cast<size_t>(r * layout.columns + c)];
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace puzzledb
