// puzzledb: the command line. Solves puzzles given in their original input format.
#include <iostream>
#include <iterator>
#include <string>

#include "CLI/CLI.hpp"
#include "client/solve_command.h"
#include "core/registry.h"

int main(int argc, char** argv) {
  using namespace puzzledb;
  CLI::App app{"puzzledb: exact answers for the knight, knobs and rotation puzzles"};
  app.require_subcommand(1);

  SolveCommandOptions solve;
  int max_moves = -1;
  CLI::App* solve_cmd = app.add_subcommand(
      "solve", "Read the puzzle's original input on stdin and print the original output");
  solve_cmd->add_option("--puzzle,-p", solve.puzzle, "Which puzzle: " + PuzzleNames())
      ->required()
      ->check(CLI::IsMember({"knight", "knobs", "rotation"}));
  solve_cmd
      ->add_option("--max-moves", max_moves,
                   "Answer -1 (NOT_WITHIN_LIMIT) beyond this many moves; 0: no limit "
                   "(default: knight 15 as in the original problem, others no limit)")
      ->check(CLI::Range(0, 1000));
  solve_cmd->add_flag("--json", solve.json, "Print one JSON object per case");
  solve_cmd->add_option("--timeout", solve.timeout_seconds, "Give up a case after this many seconds (0: never)")
      ->check(CLI::NonNegativeNumber);
  solve_cmd->add_option("--node-budget", solve.node_budget,
                        "Give up a case after expanding this many search nodes (0: no budget)");
  solve_cmd->add_option("--db", solve.db,
                        "Answer from the tables of this database (read-only), searching only "
                        "what they do not cover");
  solve_cmd->add_option("--policy", solve.policy, "table-then-search, table-only or search-only")
      ->check(CLI::IsMember({"table-then-search", "table-only", "search-only"}))
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }

  if (solve_cmd->parsed()) {
    if (max_moves >= 0) solve.max_moves = max_moves;
    const std::string input{std::istreambuf_iterator<char>(std::cin), {}};
    return RunSolveCommand(solve, input, std::cout, std::cerr);
  }
  return kExitBadInput;
}
