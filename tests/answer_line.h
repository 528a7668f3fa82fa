// What the tests that set a definition of data/puzzles/ beside its built-in model share: the
// file's text, and an answer as a line to compare (the distance, then the moves by name).
#ifndef PUZZLEDB_TESTS_ANSWER_LINE_H_
#define PUZZLEDB_TESTS_ANSWER_LINE_H_

#include <string>
#include <vector>

#include "core/puzzle.h"
#include "core/solver.h"
#include "core/util/strings.h"
#include "tests/test_util.h"

namespace puzzledb::testing {

// data/puzzles/`file`.
inline std::string DataPuzzle(const std::string& file) {
  return ReadFile(std::string(PUZZLEDB_GOLDEN_DIR) + "/../../data/puzzles/" + file);
}

// The solver's answer to `p` under `policy`: "DISTANCE MOVE ...", "no answer" when it finds
// none, or "error: ..." when it fails.
inline std::string AnswerLine(Solver& solver, const Puzzle& puzzle, const Position& p, Policy policy) {
  SolveOptions options;
  options.policy = policy;
  auto solution = solver.Solve(p, options);
  if (!solution.ok()) return Cat("error: ", Message(solution.status()));
  if (solution->outcome != Outcome::kSolved) return "no answer";
  std::string line = std::to_string(solution->distance);
  std::vector<std::string> names;
  puzzle.Replay(p, solution->moves, &names);
  for (const std::string& move : names) line += " " + move;
  return line;
}

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_ANSWER_LINE_H_
