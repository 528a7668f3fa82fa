// The mapping between core's types and the wire API (puzzledb.v1 messages): positions in
// both directions with validation errors that name the field, and solutions out and back.
// Shared by the server, the client library and the command line.
//
// A wire puzzle comes in the generic form (name and compact state), which every puzzle has,
// or in a typed message of the first API version; this file holds the one mapping of the
// typed messages (docs/API.md, "Two forms of a puzzle").
#ifndef PUZZLEDB_SERVICE_WIRE_H_
#define PUZZLEDB_SERVICE_WIRE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/puzzle.h"
#include "puzzledb/v1/solver.pb.h"

namespace puzzledb {

// The name of the puzzle a message holds ("knight", ...), whichever its form; "" if none.
std::string_view WirePuzzleName(const v1::Puzzle& puzzle);
// True if the message gives the puzzle as a typed message (answers then give states so).
bool IsTypedWire(const v1::Puzzle& puzzle);

// The position a message describes, or INVALID_ARGUMENT naming the field and the rule
// broken ("puzzle.state: ...", "puzzle.knight.board: ...").
absl::StatusOr<Position> PositionFromWire(const v1::Puzzle& puzzle);
// The parameters of the puzzle a message names, its state ignored where the puzzle has
// none (a Sample request's puzzle): a position under them (the goal's, when no state is
// given). INVALID_ARGUMENT naming the field when they are malformed.
absl::StatusOr<Position> ParametersFromWire(const v1::Puzzle& puzzle);
// A position into a message: typed (where the puzzle has a typed message) or generic.
void PositionToWire(const Position& position, bool typed, v1::Puzzle* out);

// The id of the table that answers the puzzle a message holds (its state is ignored), for
// routing (docs/API.md, "Table affinity"): the puzzle's name when its parameters are
// malformed (the server will say why), "" when no puzzle is set.
std::string TableIdFromWire(const v1::Puzzle& puzzle);

// The parameters stored with a table, as a position in a message (TableInfo's
// parameters_puzzle, typed where the puzzle has a typed message; for the knobs also the
// wiring as 48 numbers). Nothing for puzzles without parameters.
void TableParamsToWire(std::string_view puzzle, std::string_view params, v1::TableInfo* out);

// What a client needs to know of a puzzle (PuzzleInfo) but the server's tables of it.
void DescribePuzzle(const Puzzle& puzzle, v1::PuzzleInfo* out);

v1::Outcome OutcomeToWire(Outcome outcome);
v1::Source SourceToWire(Source source);

// Moves out, as the request asked (SolveRequest.move_encoding): by name into `names`
// (each named from the state it is made in), or as move codes into `codes` (not null then).
// Returns the position they reach.
Position MovesToWire(const Position& start, const std::vector<uint8_t>& moves,
                     v1::MoveEncoding encoding,
                     google::protobuf::RepeatedPtrField<std::string>* names, std::string* codes);

// Fills a response from a solution of `position`: outcome, distance, moves (by name, or as
// move codes), source, costs and (for puzzles with several goal states) the state the
// moves reach, in the request's form (`typed`).
void SolutionToWire(const Position& position, const Solution& solution, v1::SolveResponse* out,
                    v1::MoveEncoding encoding = v1::MOVE_NAMES, bool typed = true);

// The solution a response describes, checked against the puzzle: every move must be legal
// where it is made and, when SOLVED, the moves must reach the goal in `distance` moves.
// DATA_LOSS otherwise: an answer that does not hold is never passed on.
absl::StatusOr<Solution> SolutionFromWire(const Position& position,
                                          const v1::SolveResponse& response);

// One JSON object on one line, in protobuf's JSON mapping with the .proto field names and
// every field printed (zeros included).
std::string ToJsonLine(const google::protobuf::Message& message);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_WIRE_H_
