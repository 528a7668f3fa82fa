// The puzzles as text, reached by name: the compact form read into a wire message, a
// problem's original input read into its cases, and moves replayed by name. The HTTP API
// (GET queries carry the compact form) and the web page (which pastes original inputs and
// shows every board of a solution) use these, so that no puzzle's rules exist twice.
#ifndef PUZZLEDB_SERVICE_PUZZLE_TEXT_H_
#define PUZZLEDB_SERVICE_PUZZLE_TEXT_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "core/puzzle.h"
#include "puzzledb/v1/solver.pb.h"

namespace puzzledb {

// The puzzle named `name` in the state `compact` (docs/API.md, "Compact forms"), or
// INVALID_ARGUMENT naming the parameter ("puzzle: ...", "state: ...").
absl::StatusOr<Position> PositionFromCompact(std::string_view name, std::string_view compact);
// The same as a wire message (typed where the puzzle has a typed message).
absl::StatusOr<v1::Puzzle> PuzzleFromCompact(std::string_view name, std::string_view compact);
// The puzzle named `name` after the moves `moves` from its goal (Puzzle::ParseScramble), or
// INVALID_ARGUMENT naming the parameter ("puzzle: ...", "scramble: ...").
absl::StatusOr<Position> PositionFromScramble(std::string_view name, std::string_view moves);

// A puzzle message of the kind `name` with nothing in it (for requests that need only
// which puzzle), or INVALID_ARGUMENT for an unknown name.
absl::StatusOr<v1::Puzzle> PuzzleOfKind(std::string_view name);

// The compact form of a wire puzzle, or INVALID_ARGUMENT as the solver would answer it.
absl::StatusOr<std::string> CompactFromPuzzle(const v1::Puzzle& puzzle);

// Every case of an original input: its compact form, or why it was refused. An unknown
// puzzle, or an input over `max_cases` cases, is INVALID_ARGUMENT.
absl::StatusOr<v1::ParseInputResponse> ParseInput(const v1::ParseInputRequest& request,
                                                  size_t max_cases);
inline absl::StatusOr<v1::ParseInputResponse> ParseInput(const v1::ParseInputRequest& request) {
  return ParseInput(request, 1000);
}

// The states a sequence of named moves passes through, from request.state; a move that is
// not legal where it is made is INVALID_ARGUMENT naming it ("moves[3]: ...").
absl::StatusOr<v1::PlayResponse> Play(const v1::PlayRequest& request, size_t max_moves);
inline absl::StatusOr<v1::PlayResponse> Play(const v1::PlayRequest& request) {
  return Play(request, 1000);
}

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_PUZZLE_TEXT_H_
