// Where the command line's answers come from: in-process (the tables of a local database,
// or live search) or a puzzledb-server. Both speak the wire API's messages.
#ifndef PUZZLEDB_CLIENT_BACKEND_H_
#define PUZZLEDB_CLIENT_BACKEND_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/puzzle.h"
#include "puzzledb/v1/solver.pb.h"

namespace puzzledb {

struct BackendOptions {
  std::string server;          // a puzzledb-server address; empty: in-process
  std::string db;              // in-process: a database to read tables from; empty: none
  double timeout_seconds = 0;  // per call; 0: none in-process, an hour against a server
  uint64_t node_budget = 0;    // in-process searches; 0: none (a server has its own)
  int threads = 0;             // in-process: the threads one batch or search may use; 0: a core each
  // TLS towards the server (see ClientOptions): CA, client certificate and key, name.
  std::string tls_ca_file;
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_server_name;
  // Tables beyond the defaults that every replica of a --server list holds
  // (ClientOptions::replicated_tables).
  std::vector<std::string> replicated_tables;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual absl::StatusOr<v1::SolveResponse> Solve(const v1::SolveRequest& request) = 0;
  virtual absl::StatusOr<v1::AnalyzeResponse> Analyze(const v1::AnalyzeRequest& request) = 0;
  virtual absl::StatusOr<v1::ListTablesResponse> ListTables() = 0;
  virtual absl::StatusOr<v1::ListPuzzlesResponse> ListPuzzles() = 0;
  virtual absl::StatusOr<v1::SampleResponse> Sample(const v1::SampleRequest& request) = 0;
  // Answers every request, one status or answer each, in the requests' order. A server
  // gets them as batches over one SolveStream; in-process they are one batch.
  virtual std::vector<absl::StatusOr<v1::SolveResponse>> SolveMany(
      const v1::SolveBatchRequest& requests);
  // How many cases a caller should hand to SolveMany at once.
  virtual size_t BatchSize() const { return 1; }
};

// Opens the database (read-only) or connects to the server. `log` gets warnings (a refused
// table, ...).
absl::StatusOr<std::unique_ptr<Backend>> MakeBackend(const BackendOptions& options,
                                                     std::function<void(std::string_view)> log);

// The puzzle named `name`: one this program knows, or one `list` lists with its definition
// (a server's puzzle given as a definition file), made here from it so that its states are
// read and written as the server does. Null if there is none.
const Puzzle* FindPuzzleOf(std::string_view name,
                           const std::function<absl::StatusOr<v1::ListPuzzlesResponse>()>& list,
                           const std::function<void(std::string_view)>& log);
// The same, with the puzzles the backend lists.
const Puzzle* FindPuzzleOf(Backend& backend, std::string_view name,
                           const std::function<void(std::string_view)>& log);

// MakeBackend for a command: its warnings go to `err` as "puzzledb: ..."; when it fails,
// null, with why on `err` and *exit_code set (kExitBadInput for a usage error, else
// kExitFailure).
std::unique_ptr<Backend> MakeCommandBackend(const BackendOptions& options, std::ostream& err,
                                            int* exit_code);


}  // namespace puzzledb

#endif  // PUZZLEDB_CLIENT_BACKEND_H_
