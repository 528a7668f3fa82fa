// puzzledb::Verify: an answer replayed by the puzzle's own model.
#include "client/verify.h"

#include "core/puzzles/registry.h"
#include "puzzledb/client.h"

namespace puzzledb {
namespace {

template <PuzzleModel P>
absl::Status VerifyAs(const v1::Puzzle& puzzle, const v1::SolveResponse& response) {
  auto instance = InstanceFromWire<P>(puzzle);
  if (!instance.ok()) return instance.status();
  return VerifiedSolution(P(instance->params), *instance, response).status();
}

}  // namespace

absl::Status Verify(const v1::Puzzle& puzzle, const v1::SolveResponse& response) {
  const std::string_view name = WirePuzzleName(puzzle);
  absl::Status status = absl::InvalidArgumentError(
      Cat("puzzle: no puzzle given; set one of ", PuzzleNames(", ")));
  VisitPuzzle(name, [&](auto type) { status = VerifyAs<typename decltype(type)::type>(puzzle, response); });
  return status;
}

}  // namespace puzzledb
