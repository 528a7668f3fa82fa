// The mapping between core's types and the wire API (puzzledb.v1 messages): puzzles in
// both directions with validation errors that name the field, and solutions out.
// Shared by the server, the client library and the command line.
#ifndef PUZZLEDB_PROTO_WIRE_H_
#define PUZZLEDB_PROTO_WIRE_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/knight.h"
#include "core/knobs.h"
#include "core/puzzle.h"
#include "core/rotation.h"
#include "puzzledb/v1/solver.pb.h"

namespace puzzledb {

void InstanceToWire(const KnightPuzzle::Instance& instance, v1::Puzzle* out);
void InstanceToWire(const KnobsPuzzle::Instance& instance, v1::Puzzle* out);
void InstanceToWire(const RotationPuzzle::Instance& instance, v1::Puzzle* out);

// The puzzle's instance, or INVALID_ARGUMENT naming the field and the rule broken.
template <PuzzleModel P>
absl::StatusOr<typename P::Instance> InstanceFromWire(const v1::Puzzle& puzzle);
template <>
absl::StatusOr<KnightPuzzle::Instance> InstanceFromWire<KnightPuzzle>(const v1::Puzzle& puzzle);
template <>
absl::StatusOr<KnobsPuzzle::Instance> InstanceFromWire<KnobsPuzzle>(const v1::Puzzle& puzzle);
template <>
absl::StatusOr<RotationPuzzle::Instance> InstanceFromWire<RotationPuzzle>(
    const v1::Puzzle& puzzle);

// The registered name of the puzzle a message holds ("knight", ...), or "" if none is set.
std::string_view WirePuzzleName(const v1::Puzzle& puzzle);

v1::Outcome OutcomeToWire(Outcome outcome);
v1::Source SourceToWire(Source source);

// Fills a response from a solution of `instance`: outcome, distance, move names (each named
// from the state it is made in), source, costs and the state the moves reach.
template <PuzzleModel P>
void SolutionToWire(const P& model, const typename P::Instance& instance, const Solution& solution,
                    v1::SolveResponse* out) {
  out->set_outcome(OutcomeToWire(solution.outcome));
  out->set_distance(static_cast<uint32_t>(solution.distance));
  out->set_source(SourceToWire(solution.source));
  out->set_lookups(solution.lookups);
  out->set_nodes(solution.nodes);
  out->clear_moves();
  if (solution.outcome != Outcome::kSolved) return;
  typename P::Instance reached = instance;
  for (uint8_t m : solution.moves) {
    out->add_moves(model.MoveName(reached.state, m));
    typename P::State next;
    model.Apply(reached.state, m, &next);
    reached.state = next;
  }
  InstanceToWire(reached, out->mutable_final_state());
}

// One JSON object on one line, in protobuf's JSON mapping with the .proto field names and
// every field printed (zeros included).
std::string ToJsonLine(const google::protobuf::Message& message);

}  // namespace puzzledb

#endif  // PUZZLEDB_PROTO_WIRE_H_
