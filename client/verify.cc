// puzzledb::Verify: an answer replayed by the puzzle's own rules.
#include "client/verify.h"

#include "puzzledb/verify.h"

namespace puzzledb {

absl::Status Verify(const v1::Puzzle& puzzle, const v1::SolveResponse& response) {
  auto position = PositionFromWire(puzzle);
  if (!position.ok()) return position.status();
  return VerifiedSolution(*position, response).status();
}

}  // namespace puzzledb
