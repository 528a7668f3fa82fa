// puzzledb::Verify: an answer replayed by the puzzle's own model.
#include <algorithm>

#include "core/puzzles/registry.h"
#include "core/util/strings.h"
#include "puzzledb/client.h"
#include "service/wire.h"

namespace puzzledb {
namespace {

// The moves of one listed solution as indices, checked to reach the goal in `distance`.
template <PuzzleModel P>
absl::StatusOr<std::vector<uint8_t>> ListedMoves(const P& model, const typename P::Instance& instance,
                                                 const v1::Solution& listed, uint32_t distance,
                                                 int index) {
  v1::SolveResponse one;
  one.set_outcome(v1::SOLVED);
  one.set_distance(distance);
  *one.mutable_moves() = listed.moves();
  auto solution = SolutionFromWire(model, instance, one);
  if (!solution.ok()) {
    return absl::DataLossError(Cat("solutions[", index, "]: ", Message(solution.status())));
  }
  return solution->moves;
}

// A decimal count: digits only, no leading zero.
bool IsDecimal(const std::string& text) {
  if (text.empty() || text.size() > 40 || (text.size() > 1 && text[0] == '0')) return false;
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// a < b as decimal numbers (IsDecimal both).
bool DecimalLess(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

template <PuzzleModel P>
absl::Status VerifyAs(const v1::Puzzle& puzzle, const v1::SolveResponse& response) {
  auto instance = InstanceFromWire<P>(puzzle);
  if (!instance.ok()) return instance.status();
  const P model(instance->params);
  auto solution = SolutionFromWire(model, *instance, response);
  if (!solution.ok()) return solution.status();
  if (response.solutions_size() > 0 && response.outcome() != v1::SOLVED) {
    return absl::DataLossError("the answer lists solutions but is not SOLVED");
  }
  std::vector<uint8_t> previous;
  for (int i = 0; i < response.solutions_size(); ++i) {
    auto moves = ListedMoves(model, *instance, response.solutions(i), response.distance(), i);
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
  return absl::OkStatus();
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
