// puzzledb: the command line. Solves and analyses puzzles given in their original input
// format, in-process (live search, or the tables of --db) or through a server (--server).
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "CLI/CLI.hpp"
#include "client/commands.h"
#include "client/terminal_safe.h"
#include "core/puzzle.h"

namespace {

// --puzzle, --max-moves, --policy, --json for solve and analyze.
void AddCaseOptions(CLI::App* command, puzzledb::SolveCommandOptions* options, int* max_moves,
                    const std::string& cap_help) {
  command->add_option("--puzzle,-p", options->puzzle,
                      "Which puzzle: " + puzzledb::PuzzleNames() +
                          ", or one given as a definition that the database holds")
      ->required();
  command->add_flag("--scramble", options->scramble,
                    "Each input line is a sequence of moves played from the goal (an empty line: "
                    "the goal), named as the puzzle names them, instead of a case of the original "
                    "input");
  command->add_option("--max-moves", *max_moves, cap_help)->check(CLI::Range(0, 1000));
  command->add_option("--policy", options->policy, "table-then-search, table-only or search-only")
      ->check(CLI::IsMember({"table-then-search", "table-only", "search-only"}))
      ->capture_default_str();
  command->add_flag("--json", options->json, "Print one JSON object per case");
}

// Each puzzle's cap in the original problem's output: "<name> 15, <name> none, ...".
std::string CapsOfTheOriginals() {
  std::string caps;
  for (const puzzledb::Puzzle* puzzle : puzzledb::Puzzles()) {
    if (!caps.empty()) caps += ", ";
    caps += std::string(puzzle->name()) + " " +
            (puzzle->default_max_moves() > 0 ? std::to_string(puzzle->default_max_moves())
                                             : std::string("none"));
  }
  return caps;
}

// The puzzles whose samples may be drawn at any distance (pattern tables: no table lists
// their states by distance).
std::string AnyDistancePuzzles() {
  std::string names;
  for (const puzzledb::Puzzle* puzzle : puzzledb::Puzzles()) {
    if (!puzzle->pattern_tables()) continue;
    if (!names.empty()) names += ", ";
    names += puzzle->name();
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace puzzledb;
  // What is printed, a server's strings among it, reaches the terminal without its control
  // characters (client/terminal_safe.h).
  TerminalSafeStream safe_out(std::cout), safe_err(std::cerr);
  CLI::App app{"puzzledb: exact answers for the puzzles " + PuzzleNames(", ")};
  app.require_subcommand(1);
  app.fallthrough();  // global options may also follow the subcommand

  BackendOptions backend;
  app.add_option("--server", backend.server,
                 "Ask the puzzledb-server at this address (e.g. 127.0.0.1:50051)");
  app.add_option("--db", backend.db,
                 "In-process: answer from the tables of this database (read-only), searching "
                 "only what they do not cover");
  app.add_option("--timeout", backend.timeout_seconds,
                 "Give up a case after this many seconds (0: never in-process, an hour against "
                 "a server)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double value = std::strtod(text.c_str(), &end);
            if (end == text.c_str() || *end != '\0' || !(value >= 0) || value > 86400 * 365) {
              return "a number of seconds from 0 to 31536000 (a year), got '" + text + "'";
            }
            return "";
          },
          "SECONDS"));
  app.add_option("--node-budget", backend.node_budget,
                 "In-process: give up a search after this many nodes (0: no budget)");
  app.add_option("--tls-ca", backend.tls_ca_file,
                 "Talk TLS to the server, trusting the CA in this PEM file");
  app.add_option("--tls-cert", backend.tls_cert_file,
                 "This client's certificate (PEM), for servers that require one");
  app.add_option("--tls-key", backend.tls_key_file, "The key of --tls-cert (PEM)");
  app.add_option("--tls-server-name", backend.tls_server_name,
                 "The name the server's certificate must carry, if not the --server host");
  app.add_option("--replicated-tables", backend.replicated_tables,
                 "With several replicas in --server (a,b,c): tables beyond the defaults that "
                 "every replica holds, whose calls are spread rather than sent to one "
                 "(docs/API.md, \"Table affinity\")")
      ->delimiter(',');

  SolveCommandOptions solve;
  int solve_cap = -1;
  CLI::App* solve_cmd = app.add_subcommand(
      "solve", "Read the puzzle's original input on stdin and print the original output");
  AddCaseOptions(solve_cmd, &solve, &solve_cap,
                 "Answer -1 (NOT_WITHIN_LIMIT) beyond this many moves; 0: no limit (default: the "
                 "original problem's cap: " + CapsOfTheOriginals() + ")");
  solve_cmd
      ->add_flag("--show", solve.show,
                 "After each answer, draw the board before and after every move, the cells "
                 "that moved in brackets")
      ->excludes(solve_cmd->get_option("--json"));
  solve_cmd->add_flag("--count", solve.count,
                      "Also print the number of optimal solutions (on the line after the answer); "
                      "needs a table that covers the case");
  solve_cmd
      ->add_option("--all-optimal", solve.all_optimal,
                   "Also list up to N optimal solutions, one a line, in lexicographic order "
                   "(needs a table that covers the case)")
      ->check(CLI::Range(2, 10000));

  SolveCommandOptions analyze;
  int analyze_cap = -1;
  CLI::App* analyze_cmd = app.add_subcommand(
      "analyze", "For every case: its distance and the distance after every legal move, best first");
  AddCaseOptions(analyze_cmd, &analyze, &analyze_cap, "Treat longer answers as beyond reach (default: no limit)");
  analyze_cmd->add_flag("--count", analyze.count,
                        "Also count the optimal solutions, of the case and after every optimal "
                        "move (needs a table)");

  SampleCommandOptions sample;
  uint64_t sample_seed = 0;
  CLI::App* sample_cmd = app.add_subcommand(
      "sample", "Print states drawn uniformly among those at an exact distance, as the puzzle's "
                "original input (ready for puzzledb solve)");
  sample_cmd->add_option("--puzzle,-p", sample.puzzle,
                         "Which puzzle: " + PuzzleNames() +
                             ", or one given as a definition that the database holds")
      ->required();
  sample_cmd->add_option("--distance,-d", sample.distance,
                         "The exact distance from the goal, max for the largest there is, or any "
                         "(" + AnyDistancePuzzles() + ": among every solvable state)")
      ->required();
  sample_cmd->add_option("--count,-n", sample.count,
                         "How many distinct states (all of them if fewer exist); 0: only say how "
                         "many there are")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  CLI::Option* seed_option = sample_cmd->add_option(
      "--seed", sample_seed, "The same seed and table give the same states (default: a random seed, printed)");
  std::string sample_params_help;
  for (const Puzzle* puzzle : Puzzles()) {
    if (!puzzle->has_parameters()) continue;
    sample_params_help += std::string(sample_params_help.empty() ? "" : "; ") +
                          std::string(puzzle->name()) + ": " +
                          std::string(puzzle->parameters_help());
    if (!puzzle->parameters_flag().empty()) {
      sample_cmd->add_option("--" + std::string(puzzle->parameters_flag()), sample.params_file,
                             "The " + std::string(puzzle->name()) + " puzzle's name for --params");
    }
  }
  sample_cmd->add_option("--params", sample.params_file,
                         "For puzzles with parameters, a file of them; the first case's are "
                         "used (" + sample_params_help + ")");
  sample_cmd->add_flag("--json", sample.json, "Print one JSON object (the Sample answer)");

  bool tables_json = false;
  CLI::App* tables_cmd = app.add_subcommand("tables", "List the tables (of --db, or of the server)");
  tables_cmd->add_flag("--json", tables_json, "Print JSON");
  std::string census_puzzle;
  CLI::App* census_cmd = app.add_subcommand(
      "census", "Print the positions at each distance of a puzzle, from its tables (of --db, or "
                "of the server), \"d count\" a line; where a table's entries are not positions "
                "(mirror pairs, placements of a part), counted a distance at a time by the "
                "sampler. Pattern tables give none");
  census_cmd->add_option("--puzzle,-p", census_puzzle, "Which puzzle")->required();
  bool puzzles_json = false;
  CLI::App* puzzles_cmd = app.add_subcommand(
      "puzzles", "List the puzzles answered (of this build, or of the server): names, compact "
                 "forms with an example, moves, tables");
  puzzles_cmd->add_flag("--json", puzzles_json, "Print JSON (the ListPuzzles answer)");

  BenchCommandOptions bench;
  bench.puzzle = PuzzleNameList().front();
  CLI::App* bench_cmd = app.add_subcommand(
      "bench",
      "Load a server (--server) or the in-process path over a database (--db) with random "
      "solves; print throughput and latency");
  bench_cmd->add_option("--puzzle,-p", bench.puzzle,
                        "Which puzzle: " + PuzzleNames() +
                            ", or one given as a definition that the database holds")
      ->capture_default_str();
  bench_cmd->add_option("--seconds", bench.seconds, "How long")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  bench_cmd->add_option("--concurrency", bench.concurrency,
                        "Callers (unary, batch), streams, or threads (inprocess, batch over "
                        "--db); default 8 unary callers or streams, else 1")
      ->check(CLI::Range(1, 1024));
  bench_cmd->add_option("--mode", bench.mode,
                        "unary or stream (against --server), inprocess (over --db), or batch "
                        "(SolveBatch calls against --server, or the in-process batch path over "
                        "--db); default: unary with --server, inprocess with --db")
      ->check(CLI::IsMember({"unary", "stream", "inprocess", "batch"}));
  bench_cmd->add_option("--batch-size", bench.batch_size, "Requests a batch (--mode batch)")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  bench_cmd->add_flag("--move-codes", bench.move_codes,
                      "Ask for the moves as move codes instead of names (move_encoding "
                      "MOVE_CODES)");
  bench_cmd->add_flag("--uncovered", bench.uncovered,
                      "Ask for live search (SEARCH_ONLY) instead of table answers");
  bench_cmd->add_flag("--json", bench.json, "Print one JSON object");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }

  if (tables_cmd->parsed()) return RunTablesCommand(backend, tables_json, std::cout, std::cerr);
  if (puzzles_cmd->parsed()) return RunPuzzlesCommand(backend, puzzles_json, std::cout, std::cerr);
  if (census_cmd->parsed()) return RunCensusCommand(backend, census_puzzle, std::cout, std::cerr);
  if (sample_cmd->parsed()) {
    if (seed_option->count() > 0) sample.seed = sample_seed;
    sample.backend = backend;
    return RunSampleCommand(sample, std::cout, std::cerr);
  }
  if (bench_cmd->parsed()) {
    bench.server = backend.server;
    bench.db = backend.db;
    bench.tls_ca_file = backend.tls_ca_file;
    bench.tls_cert_file = backend.tls_cert_file;
    bench.tls_key_file = backend.tls_key_file;
    bench.tls_server_name = backend.tls_server_name;
    return RunBenchCommand(bench, std::cout, std::cerr);
  }
  // Standard input in large reads (a stream iterator over std::cin reads a byte a call).
  std::string input;
  {
    std::vector<char> chunk(1 << 16);
    for (size_t got; (got = std::fread(chunk.data(), 1, chunk.size(), stdin)) > 0;) {
      input.append(chunk.data(), got);
    }
  }
  if (solve_cmd->parsed()) {
    if (solve_cap >= 0) solve.max_moves = solve_cap;
    solve.backend = backend;
    return RunSolveCommand(solve, input, std::cout, std::cerr);
  }
  if (analyze_cap >= 0) analyze.max_moves = analyze_cap;
  analyze.backend = backend;
  return RunAnalyzeCommand(analyze, input, std::cout, std::cerr);
}
