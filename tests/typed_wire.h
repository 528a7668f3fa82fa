// Tests and benchmarks of one model speak its instances; these map them to and from the
// wire through the runtime puzzle (service/wire.h), as a request or an answer carries them.
#ifndef PUZZLEDB_TESTS_TYPED_WIRE_H_
#define PUZZLEDB_TESTS_TYPED_WIRE_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/puzzle.h"
#include "core/puzzles/eight.h"
#include "core/puzzles/fifteen.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "puzzledb/v1/solver.pb.h"
#include "service/wire.h"

namespace puzzledb {

// The position of a model's instance.
template <PuzzleModel P>
Position PositionOf(const typename P::Instance& instance) {
  return Position(*FindPuzzle(P::kName), instance);
}

// A model's instance into a request's puzzle, in the typed form where there is one.
inline void InstanceToWire(const KnightPuzzle::Instance& i, v1::Puzzle* out) {
  PositionToWire(PositionOf<KnightPuzzle>(i), /*typed=*/true, out);
}
inline void InstanceToWire(const KnobsPuzzle::Instance& i, v1::Puzzle* out) {
  PositionToWire(PositionOf<KnobsPuzzle>(i), /*typed=*/true, out);
}
inline void InstanceToWire(const RotationPuzzle::Instance& i, v1::Puzzle* out) {
  PositionToWire(PositionOf<RotationPuzzle>(i), /*typed=*/true, out);
}
inline void InstanceToWire(const EightPuzzle::Instance& i, v1::Puzzle* out) {
  PositionToWire(PositionOf<EightPuzzle>(i), /*typed=*/true, out);
}
inline void InstanceToWire(const FifteenPuzzle::Instance& i, v1::Puzzle* out) {
  PositionToWire(PositionOf<FifteenPuzzle>(i), /*typed=*/true, out);
}

// A wire puzzle read back as the instance of model P: INVALID_ARGUMENT as the server says
// it, or when it is another puzzle.
template <PuzzleModel P>
absl::StatusOr<typename P::Instance> InstanceFromWire(const v1::Puzzle& puzzle) {
  auto position = PositionFromWire(puzzle);
  if (!position.ok()) return position.status();
  if (position->puzzle()->name() != P::kName) {
    return absl::InvalidArgumentError(std::string("puzzle: expected a ") + std::string(P::kName) +
                                      " puzzle, got " + std::string(position->puzzle()->name()));
  }
  return position->As<typename P::Instance>();
}

// A model's solution out and back, as the handler writes and a client reads it.
template <PuzzleModel P>
void SolutionToWire(const P&, const typename P::Instance& instance, const Solution& solution,
                    v1::SolveResponse* out, v1::MoveEncoding encoding = v1::MOVE_NAMES) {
  SolutionToWire(PositionOf<P>(instance), solution, out, encoding, /*typed=*/true);
}
template <PuzzleModel P>
absl::StatusOr<Solution> SolutionFromWire(const P&, const typename P::Instance& instance,
                                          const v1::SolveResponse& response) {
  return SolutionFromWire(PositionOf<P>(instance), response);
}

}  // namespace puzzledb

#endif  // PUZZLEDB_TESTS_TYPED_WIRE_H_
