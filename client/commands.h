// The puzzledb command line's subcommands: solve, analyze, tables. Each reads the puzzle's
// original input (solve, analyze), asks a backend (in-process or a server) and prints the
// original output or JSON. Each returns the process exit status.
#ifndef PUZZLEDB_CLIENT_COMMANDS_H_
#define PUZZLEDB_CLIENT_COMMANDS_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "client/backend.h"
#include "service/exit_codes.h"

namespace puzzledb {


struct SolveCommandOptions {
  std::string puzzle;                        // a registered puzzle name
  std::optional<int> max_moves;              // unset: the original problem's cap, if any
  bool json = false;                         // one JSON object per case
  bool show = false;                         // solve: draw every board of the solution
  bool count = false;                        // print the number of optimal solutions
  bool scramble = false;                     // cases are move sequences from the goal
  uint32_t all_optimal = 0;                  // solve: list up to this many optimal solutions
  std::string policy = "table-then-search";  // or "table-only", "search-only"
  BackendOptions backend;
};

// Answers every case of `input`. Text mode stops at the first bad case, after the answers
// before it, with its error on `err`; JSON mode prints an object with "error" for it and
// goes on.
int RunSolveCommand(const SolveCommandOptions& options, std::string_view input, std::ostream& out,
                    std::ostream& err);

// For every case: the distance, then every legal move with the distance after it, best
// first. No move limit unless --max-moves says so.
int RunAnalyzeCommand(const SolveCommandOptions& options, std::string_view input,
                      std::ostream& out, std::ostream& err);

int RunTablesCommand(const BackendOptions& options, bool json, std::ostream& out,
                     std::ostream& err);

// The puzzles answered (of this build in-process, or of the server): name, title, what the
// compact form holds, an example, and the tables of each.
// puzzledb census: the positions at each distance of a puzzle's tables, "d count" a line.
int RunCensusCommand(const BackendOptions& options, const std::string& puzzle, std::ostream& out,
                     std::ostream& err);
int RunPuzzlesCommand(const BackendOptions& options, bool json, std::ostream& out,
                      std::ostream& err);

struct SampleCommandOptions {
  std::string puzzle;
  std::string distance;              // a number, or "max"
  uint32_t count = 1;
  std::optional<uint64_t> seed;      // unset: a random seed, said on stderr
  std::string params_file;           // puzzles with parameters: an original input (first case)
  bool json = false;
  BackendOptions backend;
};

// States drawn uniformly at an exact distance, printed as the puzzle's original input
// (ready for `puzzledb solve`) or as JSON; how many there are and the seed on stderr.
int RunSampleCommand(const SampleCommandOptions& options, std::ostream& out, std::ostream& err);

struct BenchCommandOptions {
  std::string server;  // load this server (unary or stream mode), or
  std::string db;      // answer from this database in-process (inprocess mode)
  // TLS towards the server, as for the other commands (ClientOptions).
  std::string tls_ca_file;
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_server_name;
  std::string puzzle;  // the first registered puzzle unless given
  double seconds = 5;
  int concurrency = 0;         // 0: 8 callers or streams against a server, 1 thread in-process
  std::string mode;            // "unary", "stream", "inprocess" or "batch"; empty:
                               // inprocess with --db, unary with --server
  int batch_size = 1000;       // batch mode: requests a batch
  bool move_codes = false;     // ask for move codes instead of names (SolveRequest.move_encoding)
  bool uncovered = false;      // SEARCH_ONLY: measure live search instead of the tables
  bool json = false;
};

// A load generator: random valid states for `seconds`, from `concurrency` callers (unary),
// streams, or threads calling the in-process path over --db (the way an embedder answers);
// prints throughput and latency percentiles.
int RunBenchCommand(const BenchCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace puzzledb

#endif  // PUZZLEDB_CLIENT_COMMANDS_H_
