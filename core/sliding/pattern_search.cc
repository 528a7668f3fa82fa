#include "core/sliding/pattern_search.h"

namespace puzzledb {

TileBoardTables::TileBoardTables() {
  static constexpr int kSteps[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};  // U D L R
  for (int cell = 0; cell < kTileCells; ++cell) {
    const int r = cell / 4, c = cell % 4;
    for (int m = 0; m < 4; ++m) {
      const int nr = r + kSteps[m][0], nc = c + kSteps[m][1];
      destination[cell][m] =
          (nr >= 0 && nr < 4 && nc >= 0 && nc < 4) ? static_cast<int8_t>(nr * 4 + nc) : -1;
    }
    transposed[cell] = static_cast<uint8_t>(c * 4 + r);
  }
  for (int cell = 0; cell < kTileCells; ++cell) {
    for (int last = -1; last < 4; ++last) {
      MoveList& list = moves_after[cell][last + 1];
      list = MoveList{};
      for (int m = 0; m < 4; ++m) {
        // U D L R: the inverse of m is m ^ 1.
        if (destination[cell][m] >= 0 && (last < 0 || m != (last ^ 1))) list.move[list.count++] = m;
      }
    }
  }
  for (int tile = 0; tile < kTileCells; ++tile) {
    const int home = tile == 0 ? 15 : tile - 1;
    for (int cell = 0; cell < kTileCells; ++cell) {
      manhattan[tile][cell] =
          tile == 0 ? 0
                    : static_cast<uint8_t>(std::abs(home / 4 - cell / 4) + std::abs(home % 4 - cell % 4));
    }
    const int mirrored_home = transposed[home];
    reflected_tile[tile] = static_cast<uint8_t>(mirrored_home == 15 ? 0 : mirrored_home + 1);
  }
}

const TileBoardTables& BoardTables() {
  static const TileBoardTables tables;
  return tables;
}

}  // namespace puzzledb
