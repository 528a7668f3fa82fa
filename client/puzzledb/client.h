// puzzledb::Client: the C++ client of puzzledb-server (puzzledb.v1.Solver).
//
//   puzzledb::Client client({.target = "127.0.0.1:50051"});
//   puzzledb::v1::SolveRequest request;
//   request.mutable_puzzle()->mutable_knight()->set_board("1111111111000*10000100000");
//   absl::StatusOr<puzzledb::v1::SolveResponse> answer = client.Solve(request);
//
// Errors are absl::Status values carrying the server's gRPC code and message
// (INVALID_ARGUMENT for a malformed puzzle, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED,
// UNAVAILABLE when no server answers, ...); nothing throws.
//
// Thread-safe: one Client (one connection) is meant to be shared by all threads.
#ifndef PUZZLEDB_CLIENT_PUZZLEDB_CLIENT_H_
#define PUZZLEDB_CLIENT_PUZZLEDB_CLIENT_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "puzzledb/v1/solver.pb.h"

namespace grpc {
class Channel;
}

namespace puzzledb {

struct ClientOptions {
  // The server: "host:port" (a gRPC target, e.g. "127.0.0.1:50051" or "dns:///db.example:50051").
  std::string target = "127.0.0.1:50051";
  // Deadline of a call that gives none.
  std::chrono::milliseconds timeout{10000};
};

class Client {
 public:
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const ClientOptions& options() const { return options_; }

  absl::StatusOr<v1::SolveResponse> Solve(const v1::SolveRequest& request) const;
  absl::StatusOr<v1::SolveResponse> Solve(const v1::SolveRequest& request,
                                          std::chrono::milliseconds timeout) const;
  absl::StatusOr<v1::AnalyzeResponse> Analyze(const v1::AnalyzeRequest& request) const;
  absl::StatusOr<v1::AnalyzeResponse> Analyze(const v1::AnalyzeRequest& request,
                                              std::chrono::milliseconds timeout) const;
  absl::StatusOr<v1::ListTablesResponse> ListTables() const;

  // Sends all requests over one SolveStream call and returns one answer per request, in the
  // order of the requests (whatever order the server answered in). A request the server
  // could not answer has `error` set in its answer. `timeout` covers the whole call.
  absl::StatusOr<std::vector<v1::SolveResponse>> SolveAll(
      const std::vector<v1::SolveRequest>& requests, std::chrono::milliseconds timeout) const;

  // OK once the server's health service says puzzledb.v1.Solver is SERVING; UNAVAILABLE
  // (with the last reason) if that does not happen within `timeout`.
  absl::Status WaitUntilServing(std::chrono::milliseconds timeout) const;

 private:
  struct Stubs;
  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<Stubs> stubs_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CLIENT_PUZZLEDB_CLIENT_H_
