// Verify (puzzledb/client.h): an answer replayed by the puzzle's own rules.
#ifndef PUZZLEDB_CLIENT_VERIFY_H_
#define PUZZLEDB_CLIENT_VERIFY_H_

#include <algorithm>
#include <string>
#include <vector>

#include "core/util/strings.h"
#include "puzzledb/v1/solver.pb.h"
#include "service/wire.h"

namespace puzzledb {
namespace verify_internal {

// The moves of one listed solution as indices, checked to reach the goal in `distance`.
inline absl::StatusOr<std::vector<uint8_t>> ListedMoves(const Position& position,
                                                        const v1::Solution& listed,
                                                        uint32_t distance, int index) {
  v1::SolveResponse one;
  one.set_outcome(v1::SOLVED);
  one.set_distance(distance);
  *one.mutable_moves() = listed.moves();
  if (listed.has_move_codes()) one.set_move_codes(listed.move_codes());
  auto solution = SolutionFromWire(position, one);
  if (!solution.ok()) {
    return absl::DataLossError(Cat("solutions[", index, "]: ", Message(solution.status())));
  }
  return solution->moves;
}

// A decimal count: digits only, no leading zero.
inline bool IsDecimal(const std::string& text) {
  if (text.empty() || text.size() > 40 || (text.size() > 1 && text[0] == '0')) return false;
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// a < b as decimal numbers (IsDecimal both).
inline bool DecimalLess(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

}  // namespace verify_internal

// Verify (puzzledb/client.h) of an answer for `position`, parsed already: the solution the
// answer describes once every check holds (the command line prints from it).
inline absl::StatusOr<Solution> VerifiedSolution(const Position& position,
                                                 const v1::SolveResponse& response) {
  using namespace verify_internal;
  auto solution = SolutionFromWire(position, response);
  if (!solution.ok()) return solution.status();
  if (response.solutions_size() > 0 && response.outcome() != v1::SOLVED) {
    return absl::DataLossError("the answer lists solutions but is not SOLVED");
  }
  std::vector<uint8_t> previous;
  for (int i = 0; i < response.solutions_size(); ++i) {
    auto moves = ListedMoves(position, response.solutions(i), response.distance(), i);
    if (!moves.ok()) return moves.status();
    if (i == 0 && *moves != solution->moves) {
      return absl::DataLossError("solutions[0] is not the answer's moves");
    }
    if (i > 0 && !(previous < *moves)) {
      return absl::DataLossError(
          Cat("solutions[", i, "] does not come after solutions[", i - 1,
              "] in lexicographic order (or repeats it)"));
    }
    previous = std::move(*moves);
  }
  const std::string& count = response.optimal_count();
  if (!count.empty()) {
    if (!IsDecimal(count)) {
      return absl::DataLossError(Cat("optimal_count \"", count, "\" is not a decimal number"));
    }
    if ((count == "0") != (response.outcome() == v1::UNSOLVABLE)) {
      return absl::DataLossError(Cat("optimal_count is ", count, " for an answer that is ",
                                     v1::Outcome_Name(response.outcome())));
    }
    if (DecimalLess(count, std::to_string(response.solutions_size()))) {
      return absl::DataLossError(Cat("optimal_count is ", count, " but ",
                                     response.solutions_size(), " solutions are listed"));
    }
  }
  return solution;
}


}  // namespace puzzledb

#endif  // PUZZLEDB_CLIENT_VERIFY_H_
