// puzzledb::Verify: an answer checked against the puzzle's own rules, in this process.
// Part of the component `core` of puzzledb's CMake package (target puzzledb::core), since
// replaying moves needs the puzzles' rules, which live in the engine: a program that links
// only the client (puzzledb::client) trusts the server's answers, or checks them with this.
#ifndef PUZZLEDB_CLIENT_PUZZLEDB_VERIFY_H_
#define PUZZLEDB_CLIENT_PUZZLEDB_VERIFY_H_

#include "absl/status/status.h"
#include "puzzledb/v1/solver.pb.h"

namespace puzzledb {

// Checks an answer against the puzzle's rules, as the command line does before it prints
// one (docs/API.md, "Checking answers"): every move is legal where it is made; a SOLVED
// answer's moves reach the goal in exactly `distance` moves; every listed optimal solution
// (`solutions`) does too, they are distinct and in lexicographic order of the moves'
// canonical order, the first is `moves`; `optimal_count` is a decimal number no smaller
// than the solutions listed ("0" only for UNSOLVABLE). OK, or INVALID_ARGUMENT for a
// malformed puzzle, or DATA_LOSS saying what in the answer does not hold.
absl::Status Verify(const v1::Puzzle& puzzle, const v1::SolveResponse& response);

}  // namespace puzzledb

#endif  // PUZZLEDB_CLIENT_PUZZLEDB_VERIFY_H_
