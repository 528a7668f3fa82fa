// puzzledb::Engine: puzzledb's answers in-process, from a database this program opens
// read-only, without a server. The same messages and the same answers as puzzledb-server
// gives a Client (puzzledb/client.h); the command line answers with it when it has no
// --server.
//
//   auto engine = puzzledb::Engine::Open({.db = "/var/lib/puzzledb/db"});
//   if (!engine.ok()) ...  // engine.status() says why (a missing database, a lock, ...)
//   puzzledb::v1::SolveRequest request;
//   request.mutable_puzzle()->mutable_knight()->set_board("1111111111000*10000100000");
//   absl::StatusOr<puzzledb::v1::SolveResponse> answer = (*engine)->Solve(request);
//
// It is the component `core` of puzzledb's CMake package (target puzzledb::core), for the
// programs that want it: it links the engine, RocksDB and its compression libraries, where
// the client (puzzledb::client) links gRPC, protobuf and absl only (docs/API.md, "C++").
//
// Thread-safe: one Engine is meant to be shared by every thread of a process. Errors are
// absl::Status values with the codes a server would send; nothing throws.
#ifndef PUZZLEDB_CLIENT_PUZZLEDB_ENGINE_H_
#define PUZZLEDB_CLIENT_PUZZLEDB_ENGINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "puzzledb/v1/solver.pb.h"

namespace puzzledb {

struct EngineOptions {
  // A database made by puzzledb-build, opened read-only (a server may hold it at the same
  // time); empty: no tables, every answer comes from live search.
  std::string db;
  // The time one call's search may take, in seconds; 0: no limit. A search past it answers
  // NOT_WITHIN_LIMIT, as a server's does.
  double timeout_seconds = 0;
  // The states one search may visit; 0: no limit.
  uint64_t node_budget = 0;
  // The threads one search or batch may use; 0: one per core.
  int threads = 0;
  // Warnings, a line each (a table refused as damaged, a definition that does not load);
  // null: none are shown.
  std::function<void(std::string_view)> log;
};

class Engine {
 public:
  // Opens the database (when one is named) and registers the puzzles it stores as
  // definitions. NOT_FOUND, FAILED_PRECONDITION, ... saying what is wrong.
  static absl::StatusOr<std::unique_ptr<Engine>> Open(EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // As the server's calls of the same names (docs/API.md).
  absl::StatusOr<v1::SolveResponse> Solve(const v1::SolveRequest& request) const;
  absl::StatusOr<v1::AnalyzeResponse> Analyze(const v1::AnalyzeRequest& request) const;
  absl::StatusOr<v1::SampleResponse> Sample(const v1::SampleRequest& request) const;
  v1::ListTablesResponse ListTables() const;
  v1::ListPuzzlesResponse ListPuzzles() const;
  // One answer or status per request, in the requests' order: the walks of the batch's
  // tables take turns, as in a server's SolveBatch, then the searches run one after another,
  // each on the threads it may use.
  std::vector<absl::StatusOr<v1::SolveResponse>> SolveMany(
      const v1::SolveBatchRequest& batch) const;

 private:
  class Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CLIENT_PUZZLEDB_ENGINE_H_
