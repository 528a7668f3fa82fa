// The mapping between core's types and the wire API (puzzledb.v1 messages): puzzles in
// both directions with validation errors that name the field, and solutions out.
// Shared by the server, the client library and the command line.
#ifndef PUZZLEDB_SERVICE_WIRE_H_
#define PUZZLEDB_SERVICE_WIRE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/puzzles/eight.h"
#include "core/puzzles/fifteen.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzles/puzzle.h"
#include "core/puzzles/rotation.h"
#include "core/util/strings.h"
#include "puzzledb/v1/solver.pb.h"

namespace puzzledb {

void InstanceToWire(const KnightPuzzle::Instance& instance, v1::Puzzle* out);
void InstanceToWire(const KnobsPuzzle::Instance& instance, v1::Puzzle* out);
void InstanceToWire(const RotationPuzzle::Instance& instance, v1::Puzzle* out);
void InstanceToWire(const EightPuzzle::Instance& instance, v1::Puzzle* out);
void InstanceToWire(const FifteenPuzzle::Instance& instance, v1::Puzzle* out);

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
template <>
absl::StatusOr<EightPuzzle::Instance> InstanceFromWire<EightPuzzle>(const v1::Puzzle& puzzle);
template <>
absl::StatusOr<FifteenPuzzle::Instance> InstanceFromWire<FifteenPuzzle>(const v1::Puzzle& puzzle);

// The parameters of the puzzle a message names, its state ignored (a Sample request's
// puzzle): INVALID_ARGUMENT naming the field when they are malformed.
template <PuzzleModel P>
absl::StatusOr<typename P::Params> ParamsFromWire(const v1::Puzzle& puzzle);
template <>
absl::StatusOr<KnobsPuzzle::Params> ParamsFromWire<KnobsPuzzle>(const v1::Puzzle& puzzle);

// The registered name of the puzzle a message holds ("knight", ...), or "" if none is set.
std::string_view WirePuzzleName(const v1::Puzzle& puzzle);

// The id of the table that answers the puzzle a message holds (P::TableId of its
// parameters; its state is ignored), for routing (docs/API.md, "Table affinity"): the
// puzzle's name when its parameters are malformed (the server will say why), "" when no
// puzzle is set.
std::string TableIdFromWire(const v1::Puzzle& puzzle);

// The parameters stored with a table in the puzzle's own message (TableInfo's
// parameters_puzzle; for the knobs also the wiring as 48 numbers). Nothing for puzzles
// without parameters.
void TableParamsToWire(std::string_view puzzle, std::string_view params, v1::TableInfo* out);

v1::Outcome OutcomeToWire(Outcome outcome);
v1::Source SourceToWire(Source source);

// Moves out, as the request asked (SolveRequest.move_encoding): by name into `names`
// (each named from the state it is made in), or as move codes into `codes` (not null then).
// Returns the state they reach.
template <PuzzleModel P, class Names>
typename P::State MovesToWire(const P& model, typename P::State s, const std::vector<uint8_t>& moves,
                              v1::MoveEncoding encoding, Names* names, std::string* codes) {
  if (encoding == v1::MOVE_CODES) {
    codes->assign(moves.begin(), moves.end());
    if constexpr (P::kSingleGoal) return s;  // the one goal; nobody asks which
  }
  for (uint8_t m : moves) {
    if (encoding != v1::MOVE_CODES) names->Add(model.MoveName(s, m));
    typename P::State next;
    model.Apply(s, m, &next);
    s = next;
  }
  return s;
}

// Fills a response from a solution of `instance`: outcome, distance, moves (by name, or as
// move codes), source, costs and (for puzzles with several goal states) the state the
// moves reach.
template <PuzzleModel P>
void SolutionToWire(const P& model, const typename P::Instance& instance, const Solution& solution,
                    v1::SolveResponse* out, v1::MoveEncoding encoding = v1::MOVE_NAMES) {
  out->set_outcome(OutcomeToWire(solution.outcome));
  out->set_distance(static_cast<uint32_t>(solution.distance));
  out->set_source(SourceToWire(solution.source));
  out->set_lookups(solution.lookups);
  out->set_nodes(solution.nodes);
  out->clear_moves();
  out->clear_move_codes();
  if (solution.outcome != Outcome::kSolved) return;
  typename P::Instance reached = instance;
  reached.state = MovesToWire(model, instance.state, solution.moves, encoding, out->mutable_moves(),
                              encoding == v1::MOVE_CODES ? out->mutable_move_codes() : nullptr);
  // Which goal was reached says something only where there are several.
  if constexpr (!P::kSingleGoal) InstanceToWire(reached, out->mutable_final_state());
}

// The solution a response describes, checked against the puzzle: every move must be legal
// where it is made and, when SOLVED, the moves must reach the goal in `distance` moves.
// DATA_LOSS otherwise: an answer that does not hold is never passed on.
template <PuzzleModel P>
absl::StatusOr<Solution> SolutionFromWire(const P& model, const typename P::Instance& instance,
                                          const v1::SolveResponse& response) {
  Solution solution;
  switch (response.outcome()) {
    case v1::SOLVED:
      solution.outcome = Outcome::kSolved;
      break;
    case v1::NOT_WITHIN_LIMIT:
      solution.outcome = Outcome::kNotWithinLimit;
      break;
    case v1::UNSOLVABLE:
      solution.outcome = Outcome::kUnsolvable;
      break;
    default:
      return absl::DataLossError("the answer has no outcome");
  }
  solution.distance = static_cast<int>(response.distance());
  solution.source = response.source() == v1::TABLE ? Source::kTable : Source::kSearch;
  solution.lookups = response.lookups();
  solution.nodes = response.nodes();
  typename P::State state = instance.state;
  if (response.has_move_codes()) {
    if (response.moves_size() > 0) {
      return absl::DataLossError("the answer has both moves and move codes");
    }
    for (const char c : response.move_codes()) {
      const int m = static_cast<uint8_t>(c);
      typename P::State next;
      if (m >= P::kNumMoves || !model.Apply(state, m, &next)) {
        return absl::DataLossError(
            Cat("the answer's move code ", m, " is not a legal move where it is made"));
      }
      state = next;
      solution.moves.push_back(static_cast<uint8_t>(m));
    }
  }
  for (const std::string& name : response.moves()) {
    int found = -1;
    typename P::State next;
    for (int m = 0; m < P::kNumMoves && found < 0; ++m) {
      if (model.Apply(state, m, &next) && model.MoveName(state, m) == name) found = m;
    }
    if (found < 0) {
      return absl::DataLossError(std::string("the answer's move '") + name +
                                 "' is not a legal move where it is made");
    }
    model.Apply(state, found, &state);
    solution.moves.push_back(static_cast<uint8_t>(found));
  }
  if (solution.outcome == Outcome::kSolved &&
      (!model.IsGoal(state) || solution.moves.size() != response.distance())) {
    return absl::DataLossError("the answer's moves do not reach the goal in its distance");
  }
  return solution;
}

template <PuzzleModel P>
absl::StatusOr<typename P::Params> ParamsFromWire(const v1::Puzzle& puzzle) {
  static_assert(!HasParams<P>, "a puzzle with parameters reads them itself");
  if (WirePuzzleName(puzzle) != P::kName) {
    return absl::InvalidArgumentError(Cat("puzzle: expected a ", P::kName, " puzzle"));
  }
  return typename P::Params{};
}

// One JSON object on one line, in protobuf's JSON mapping with the .proto field names and
// every field printed (zeros included).
std::string ToJsonLine(const google::protobuf::Message& message);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_WIRE_H_
