// `puzzledb solve`: reads a puzzle's original input, answers every case, and prints the
// original output (or one JSON object per case).
#ifndef PUZZLEDB_CLIENT_SOLVE_COMMAND_H_
#define PUZZLEDB_CLIENT_SOLVE_COMMAND_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace puzzledb {

struct SolveCommandOptions {
  std::string puzzle;                // a registered puzzle name
  std::optional<int> max_moves;      // unset: the original's cap (knight 15), else none
  bool json = false;                 // one JSON object per case instead of the original output
  double timeout_seconds = 0;        // per case; 0: none
  uint64_t node_budget = 0;          // per case; 0: none
  std::string db;                    // a database to read tables from; empty: live search only
  std::string policy = "table-then-search";  // or "table-only", "search-only"
};

// Exit statuses of the command line.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // a case could not be answered (deadline, budget, ...)
inline constexpr int kExitBadInput = 2;  // the input or the command line is wrong

// Answers every case of `input`. Text mode stops at the first bad case, after the answers
// before it, with its error on `err`; JSON mode prints an object with "error" for it and
// goes on. Returns the exit status.
int RunSolveCommand(const SolveCommandOptions& options, std::string_view input, std::ostream& out,
                    std::ostream& err);

}  // namespace puzzledb

#endif  // PUZZLEDB_CLIENT_SOLVE_COMMAND_H_
