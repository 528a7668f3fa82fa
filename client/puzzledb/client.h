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
  // The server: "host:port" (any gRPC target, e.g. "dns:///db.example:50051", whose
  // addresses are all used), or several replicas "10.0.0.1:50051,10.0.0.2:50051" (IP
  // addresses). Calls are balanced round-robin over the addresses that answer.
  std::string target = "127.0.0.1:50051";
  // Deadline of a call that gives none.
  std::chrono::milliseconds timeout{10000};
  // Attempts of a call that fails with UNAVAILABLE, RESOURCE_EXHAUSTED the server says may
  // pass later (after the wait it says), or that a stopping server cancelled (every
  // puzzledb call is idempotent), with jittered exponential backoff from 50 ms (gRPC's retry
  // policy, at most 5 attempts), within the call's deadline. 1: no retry.
  int max_attempts = 4;
  // TLS: the PEM file of the CA that signed the server's certificate; empty: plaintext.
  std::string tls_ca_file;
  // TLS: this client's certificate and key (PEM), for servers that require one.
  std::string tls_cert_file;
  std::string tls_key_file;
  // TLS: the name the server's certificate must carry, if not the target's host.
  std::string tls_server_name;
  // A connection of this client's own, not shared with other clients of the same target
  // (gRPC shares them by default); for load generators that stand for many clients.
  bool own_connection = false;
  // Table ids, beyond the default database's (DefaultTableIds: every puzzle without
  // parameters and the shipped parameter sets), whose tables every replica holds. With
  // several replicas in `target`, the calls of these tables (and of calls naming none) are
  // spread round-robin over the replicas; the calls of any other table (parameters built
  // on demand) go to one replica, the same while it answers (docs/API.md, "Table affinity").
  std::vector<std::string> replicated_tables;
};

// Checking an answer by the puzzle's rules (puzzledb::Verify) needs the rules, which live in
// the engine: puzzledb/verify.h, in the component `core` (puzzledb::core).

// The id of the table that answers `puzzle`, by the rule docs/API.md ("Table affinity")
// gives every client, from the message alone: a typed message's field name in Puzzle's
// oneof `kind`, or for the typed message with parameters "<name>-<16 hex digits>" (their
// hash; the name alone for parameters the server will refuse), the generic form's name,
// "" for no puzzle. (A generic puzzle with parameters is named by its name: its table's id
// follows from rules only the server knows.)
std::string TableIdOf(const v1::Puzzle& puzzle);

class Client {
 public:
  // Checks the options before connecting: a target of host:port form(s) with ports in
  // 1..65535 (or a gRPC target with a scheme), TLS certificate and key given together, the
  // TLS files readable. INVALID_ARGUMENT or FAILED_PRECONDITION saying what is wrong.
  static absl::StatusOr<std::unique_ptr<Client>> Connect(ClientOptions options);
  // Connects without the checks; a problem with the options makes every call fail with it.
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
  // The puzzles the server answers, each described (names, compact forms, layouts, tables).
  absl::StatusOr<v1::ListPuzzlesResponse> ListPuzzles() const;
  absl::StatusOr<v1::SampleResponse> Sample(const v1::SampleRequest& request) const;
  absl::StatusOr<v1::SampleResponse> Sample(const v1::SampleRequest& request,
                                            std::chrono::milliseconds timeout) const;

  // One SolveBatch call (docs/API.md, "Batches": at most 10,000 requests, within the
  // server's --max-message-bytes): one answer per request, in the requests' order, each with
  // its request's `id`; a request the server could not answer has `error` set in its answer.
  absl::StatusOr<v1::SolveBatchResponse> SolveBatch(const v1::SolveBatchRequest& batch) const;
  absl::StatusOr<v1::SolveBatchResponse> SolveBatch(const v1::SolveBatchRequest& batch,
                                                    std::chrono::milliseconds timeout) const;

  // Sends all requests as SolveBatch calls, kSolveAllCallsInFlight at a time (more cost the
  // client more than they gain: docs/PERFORMANCE.md, "Replicas"), and returns one answer per
  // request, in the order of the requests, each with its request's `id`. A request the
  // server could not answer has `error` set in its answer; a call that fails fails the whole
  // (the first failure). `timeout` covers the whole.
  // A batch holds up to kSolveAllBatchRequests requests and kSolveAllBatchBytes bytes, and
  // at most an eighth of them, so that even a few hundred requests make calls enough for a
  // balancer to spread (docs/API.md, "Table affinity"); consecutive requests of one table
  // built on demand go in batches of their own, routed as that table's calls.
  static constexpr size_t kSolveAllBatchRequests = 4096;
  static constexpr size_t kSolveAllBatchBytes = 60 << 10;
  static constexpr size_t kSolveAllSpread = 8;
  static constexpr int kSolveAllCallsInFlight = 2;
  absl::StatusOr<std::vector<v1::SolveResponse>> SolveAll(
      const std::vector<v1::SolveRequest>& requests, std::chrono::milliseconds timeout) const;
  // The same for requests held in a batch message (any number of them).
  absl::StatusOr<std::vector<v1::SolveResponse>> SolveAll(const v1::SolveBatchRequest& requests,
                                                          std::chrono::milliseconds timeout) const;

  // The channel the calls go over (with this client's credentials, balancing and
  // retries), for callers that drive gRPC's own API, such as `puzzledb bench`'s
  // completion-queue load.
  std::shared_ptr<grpc::Channel> channel() const { return channel_; }

  // OK once the server's health service says puzzledb.v1.Solver is SERVING; UNAVAILABLE
  // (with the last reason) if that does not happen within `timeout`.
  absl::Status WaitUntilServing(std::chrono::milliseconds timeout) const;

 private:
  struct Stubs;
  absl::Status Check() const { return init_error_; }
  template <class Requests>
  absl::StatusOr<std::vector<v1::SolveResponse>> SolveAllOf(const Requests& requests,
                                                            std::chrono::milliseconds timeout) const;
  // One unary call of `method` (a lambda calling the stub) for the table `table` ("" for
  // none): to every replica's channel, or for a table built on demand to its replica, then
  // the next ones while they answer UNAVAILABLE.
  template <class Response, class Request, class Method>
  absl::StatusOr<Response> Call(const Method& method, const Request& request,
                                const std::string& table,
                                std::chrono::system_clock::time_point deadline) const;

  ClientOptions options_;
  absl::Status init_error_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<Stubs> stubs_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CLIENT_PUZZLEDB_CLIENT_H_
