#include "puzzledb/client.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <future>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "core/util/strings.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "puzzledb/v1/solver.grpc.pb.h"
#include "service/address.h"
#include "service/files.h"

namespace puzzledb {
namespace {

// The ids of the default database's tables, as the builder of this version lists them
// (`puzzledb-build default-tables`, written into the build by client/CMakeLists.txt): every
// replica holds them.
constexpr const char* kDefaultTableIds[] = {
#include "client/default_table_ids.inc"
};

// grpc.health.v1.Health/Check, with its two one-field messages written and read here
// (grpc/health/v1/health.proto: HealthCheckRequest { string service = 1; },
// HealthCheckResponse { ServingStatus status = 1; }) rather than by generated classes: a
// program that embeds this library may compile health.proto itself, with its own protoc,
// and this library then exports no second definition of its classes.
grpc::Status HealthCheck(grpc::GenericStub& stub, grpc::ClientContext* context,
                         const std::string& service, uint32_t* serving_status) {
  std::string request;
  {
    google::protobuf::io::StringOutputStream stream(&request);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.WriteTag(google::protobuf::internal::WireFormatLite::MakeTag(
        1, google::protobuf::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
    out.WriteVarint32(static_cast<uint32_t>(service.size()));
    out.WriteString(service);
  }
  grpc::Slice slice(request);
  grpc::ByteBuffer sent(&slice, 1);
  grpc::ByteBuffer received;
  std::promise<grpc::Status> done;
  stub.UnaryCall(context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &sent, &received,
                 [&done](grpc::Status status) { done.set_value(std::move(status)); });
  grpc::Status status = done.get_future().get();
  if (!status.ok()) return status;
  std::vector<grpc::Slice> slices;
  if (!received.Dump(&slices).ok()) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "unreadable health answer");
  }
  std::string bytes;
  for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  *serving_status = 0;  // UNKNOWN, as protobuf reads a missing field
  while (const uint32_t tag = in.ReadTag()) {
    const bool read =
        tag == google::protobuf::internal::WireFormatLite::MakeTag(
                   1, google::protobuf::internal::WireFormatLite::WIRETYPE_VARINT)
            ? in.ReadVarint32(serving_status)
            : google::protobuf::internal::WireFormatLite::SkipField(&in, tag);
    if (!read) return grpc::Status(grpc::StatusCode::INTERNAL, "malformed health answer");
  }
  if (!in.ConsumedEntireMessage()) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "malformed health answer");
  }
  return status;
}

// The name of a HealthCheckResponse.ServingStatus.
std::string ServingStatusName(uint32_t status) {
  static constexpr const char* kNames[] = {"UNKNOWN", "SERVING", "NOT_SERVING",
                                           "SERVICE_UNKNOWN"};
  return status < 4 ? kNames[status] : Cat("status ", status);
}

absl::Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  // gRPC and absl share the canonical code numbers.
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

// The same, saying what to do where gRPC's words leave it open: a server that speaks TLS
// closes a plaintext client's connection ("Socket closed"), and a TLS handshake fails
// against a plaintext server or an untrusted certificate.
absl::Status FromGrpc(const grpc::Status& status, bool tls) {
  absl::Status out = FromGrpc(status);
  if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return out;
  const std::string& m = status.error_message();
  const auto has = [&m](const char* text) { return m.find(text) != std::string::npos; };
  if (!tls && (has("Socket closed") || has("Connection reset") || has("connection closed"))) {
    return absl::UnavailableError(
        m + " (a server that speaks TLS closes a plaintext connection: trust its certificate's "
            "CA with ClientOptions::tls_ca_file, the command line's --tls-ca)");
  }
  if (tls && (has("andshake") || has("SSL") || has("ssl") || has("certificate"))) {
    return absl::UnavailableError(
        m + " (TLS failed: does the server speak TLS, and is its certificate signed by the CA "
            "in tls_ca_file, the command line's --tls-ca, for the name it was given?)");
  }
  return out;
}

// "a:1,b:2" names several replicas; gRPC takes a list of IP addresses as "ipv4:a:1,b:2".
absl::StatusOr<std::string> ChannelTarget(const std::string& target) {
  if (target.find(',') == std::string::npos) return target;
  if (target.find("://") != std::string::npos || target.rfind("ipv4:", 0) == 0 ||
      target.rfind("ipv6:", 0) == 0) {
    return target;
  }
  const bool ipv6 = target.front() == '[';
  for (char c : target) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == ':' || c == ',' ||
          c == '[' || c == ']' || std::isxdigit(static_cast<unsigned char>(c)))) {
      return absl::InvalidArgumentError(
          "several addresses must be IP addresses (\"10.0.0.1:50051,10.0.0.2:50051\"); for "
          "host names use one DNS name that resolves to every replica");
    }
  }
  return (ipv6 ? "ipv6:" : "ipv4:") + target;
}

// Round-robin over every address, and retries with backoff of calls that fail with
// UNAVAILABLE, RESOURCE_EXHAUSTED that the server says will pass (its search pool or memory
// budget was full: it sends grpc-retry-pushback-ms, the wait gRPC then takes, and -1 for a
// refusal that will not pass; docs/API.md, "Retries"), or CANCELLED by the server: a server that begins to stop cancels the calls that
// reached it in that instant, before puzzledb sees them (gRPC 1.51's server refuses new calls
// while its connections still accept them; docs/OPERATIONS.md, "Replicas behind nginx").
// Every puzzledb call is idempotent. A call the caller cancelled, or whose deadline passed,
// is never retried (gRPC's rule).
std::string ServiceConfig(int max_attempts) {
  std::string config = R"({"loadBalancingConfig":[{"round_robin":{}}])";
  if (max_attempts > 1) {
    config += R"(,"methodConfig":[{"name":[{"service":"puzzledb.v1.Solver"}],"retryPolicy":{"maxAttempts":)" +
              std::to_string(std::min(max_attempts, 5)) +
              R"(,"initialBackoff":"0.05s","maxBackoff":"1s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE","CANCELLED","RESOURCE_EXHAUSTED"]}}])";
  }
  return config + "}";
}

// The replicas' addresses of a target that lists several IP addresses ("a:1,b:2", or with
// "ipv4:"/"ipv6:"); empty for one address or a name (whose replicas gRPC finds itself).
std::vector<std::string> ReplicaAddresses(const std::string& target) {
  if (target.find(',') == std::string::npos || target.find("://") != std::string::npos) {
    return {};
  }
  std::string_view list = target;
  for (std::string_view scheme : {"ipv4:", "ipv6:"}) {
    if (list.substr(0, scheme.size()) == scheme) list.remove_prefix(scheme.size());
  }
  std::vector<std::string> addresses;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    if (std::string_view one = list.substr(0, comma); !one.empty()) addresses.emplace_back(one);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return addresses;
}

// FNV-1a of an address and a table id: rendezvous hashing's weight of that replica for that
// table (docs/API.md, "Table affinity").
uint64_t Weight(std::string_view address, std::string_view table) {
  uint64_t h = 14695981039346656037ull;
  for (std::string_view part : {address, std::string_view("\n"), table}) {
    for (unsigned char c : part) {
      h ^= c;
      h *= 1099511628211ull;
    }
  }
  return h;
}

}  // namespace

struct Client::Stubs {
  // The target's channel: every call when the target is one address or a name (gRPC
  // balances a name's addresses round-robin); with a list of replicas, the health check
  // and channel() only, the calls going over `replicas`.
  std::unique_ptr<v1::Solver::Stub> solver;
  std::unique_ptr<grpc::GenericStub> health;
  // With several replicas in the target: each one's own channel, for the tables routed to
  // one replica.
  struct Replica {
    std::string address;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::Solver::Stub> solver;
  };
  std::vector<Replica> replicas;
  std::set<std::string, std::less<>> everywhere;  // tables every replica holds
  // The next spread call's first replica; each client starts at a random one, so that
  // many short-lived clients (command-line runs) do not all favour the first.
  mutable std::atomic<size_t> turn{std::random_device{}()};

  // Whether `table`'s calls are spread (true) or go to one replica.
  bool Spread(std::string_view table) const {
    return replicas.empty() || table.empty() || everywhere.count(table) > 0;
  }

  // The replicas in the order a call tries them: for a spread call each replica first in
  // turn (round-robin, whether or not its connection is up yet: gRPC's own round-robin
  // would send a new client's first calls all to the replica that connected first); for a
  // table built on demand the highest weight first (rendezvous hashing). Those whose
  // connection is failing now come after the others.
  std::vector<const Replica*> OrderFor(std::string_view table) const {
    std::vector<const Replica*> order;
    for (const Replica& r : replicas) order.push_back(&r);
    if (Spread(table)) {
      std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(turn++ % order.size()),
                  order.end());
    } else {
      std::sort(order.begin(), order.end(), [table](const Replica* a, const Replica* b) {
        return Weight(a->address, table) > Weight(b->address, table);
      });
    }
    std::stable_partition(order.begin(), order.end(), [](const Replica* r) {
      return r->channel->GetState(false) != GRPC_CHANNEL_TRANSIENT_FAILURE;
    });
    return order;
  }
};

absl::StatusOr<std::unique_ptr<Client>> Client::Connect(ClientOptions options) {
  auto client = std::make_unique<Client>(std::move(options));
  if (!client->init_error_.ok()) return client->init_error_;
  return client;
}

Client::Client(ClientOptions options) : options_(std::move(options)), stubs_(new Stubs) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(16 << 20);
  arguments.SetServiceConfigJSON(ServiceConfig(options_.max_attempts));
  // A failed connect is tried again after 0.1 s rather than gRPC's default 1 s, within the
  // retries of the calls that waited for it: gRPC 1.51 now and then fails a connect to a
  // live server (docs/OPERATIONS.md, "Known gRPC faults").
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  if (options_.own_connection) arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (!options_.tls_ca_file.empty() || !options_.tls_cert_file.empty()) {
    grpc::SslCredentialsOptions ssl;
    if (!options_.tls_ca_file.empty()) {
      auto ca = ReadSmallFile(options_.tls_ca_file, "TLS CA certificate");
      if (ca.ok()) ssl.pem_root_certs = *ca;
      else init_error_ = ca.status();
    }
    if (!options_.tls_cert_file.empty() || !options_.tls_key_file.empty()) {
      auto cert = ReadSmallFile(options_.tls_cert_file, "TLS client certificate");
      auto key = ReadSmallFile(options_.tls_key_file, "TLS client key");
      if (!cert.ok()) init_error_ = cert.status();
      if (!key.ok()) init_error_ = key.status();
      if (cert.ok() && key.ok()) {
        ssl.pem_cert_chain = *cert;
        ssl.pem_private_key = *key;
      }
    }
    credentials = grpc::SslCredentials(ssl);
    if (!options_.tls_server_name.empty()) {
      arguments.SetSslTargetNameOverride(options_.tls_server_name);
    }
  }
  auto target = ChannelTarget(options_.target);
  if (!target.ok() && init_error_.ok()) init_error_ = target.status();
  // The checks that say most come last, so that they are the ones reported.
  if (options_.tls_cert_file.empty() != options_.tls_key_file.empty()) {
    init_error_ = absl::InvalidArgumentError(
        options_.tls_cert_file.empty() ? "a TLS client key needs its certificate (tls_cert_file)"
                                       : "a TLS client certificate needs its key (tls_key_file)");
  }
  if (absl::Status checked = CheckTarget(options_.target); !checked.ok()) init_error_ = checked;
  channel_ = grpc::CreateCustomChannel(target.ok() ? *target : options_.target, credentials,
                                       arguments);
  stubs_->solver = v1::Solver::NewStub(channel_);
  stubs_->health = std::make_unique<grpc::GenericStub>(channel_);
  if (target.ok()) {
    for (const std::string& address : ReplicaAddresses(options_.target)) {
      Stubs::Replica replica;
      replica.address = address;
      replica.channel = grpc::CreateCustomChannel(address, credentials, arguments);
      replica.solver = v1::Solver::NewStub(replica.channel);
      stubs_->replicas.push_back(std::move(replica));
    }
  }
  for (const char* id : kDefaultTableIds) stubs_->everywhere.insert(id);
  for (const std::string& id : options_.replicated_tables) stubs_->everywhere.insert(id);
}

Client::~Client() = default;

template <class Response, class Request, class Method>
absl::StatusOr<Response> Client::Call(const Method& method, const Request& request,
                                      const std::string& table,
                                      std::chrono::system_clock::time_point deadline) const {
  if (!Check().ok()) return Check();
  // One target: its channel (gRPC balances over a name's addresses itself). Several
  // replicas: the first in the call's order (Stubs::OrderFor), then, while they answer
  // UNAVAILABLE (down, or just stopped: gRPC's own retries of the call are spent), the next.
  std::vector<v1::Solver::Stub*> stubs;
  if (stubs_->replicas.empty()) {
    stubs.push_back(stubs_->solver.get());
  } else {
    for (const Stubs::Replica* replica : stubs_->OrderFor(table)) {
      stubs.push_back(replica->solver.get());
    }
  }
  grpc::Status status;
  for (v1::Solver::Stub* stub : stubs) {
    grpc::ClientContext context;
    context.set_deadline(deadline);
    if (!table.empty()) context.AddMetadata("puzzledb-table", table);
    Response response;
    status = method(*stub, &context, request, &response);
    if (status.ok()) return response;
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE) break;
  }
  return FromGrpc(status, !options_.tls_ca_file.empty());
}

namespace {

std::chrono::system_clock::time_point DeadlineIn(std::chrono::milliseconds timeout) {
  return std::chrono::system_clock::now() + timeout;
}

}  // namespace

absl::StatusOr<v1::SolveResponse> Client::Solve(const v1::SolveRequest& request) const {
  return Solve(request, options_.timeout);
}

absl::StatusOr<v1::SolveResponse> Client::Solve(const v1::SolveRequest& request,
                                                std::chrono::milliseconds timeout) const {
  return Call<v1::SolveResponse>(
      [](v1::Solver::Stub& stub, grpc::ClientContext* context, const v1::SolveRequest& r,
         v1::SolveResponse* out) { return stub.Solve(context, r, out); },
      request, TableIdOf(request.puzzle()), DeadlineIn(timeout));
}

absl::StatusOr<v1::AnalyzeResponse> Client::Analyze(const v1::AnalyzeRequest& request) const {
  return Analyze(request, options_.timeout);
}

absl::StatusOr<v1::AnalyzeResponse> Client::Analyze(const v1::AnalyzeRequest& request,
                                                    std::chrono::milliseconds timeout) const {
  return Call<v1::AnalyzeResponse>(
      [](v1::Solver::Stub& stub, grpc::ClientContext* context, const v1::AnalyzeRequest& r,
         v1::AnalyzeResponse* out) { return stub.Analyze(context, r, out); },
      request, TableIdOf(request.puzzle()), DeadlineIn(timeout));
}

absl::StatusOr<v1::ListTablesResponse> Client::ListTables() const {
  return Call<v1::ListTablesResponse>(
      [](v1::Solver::Stub& stub, grpc::ClientContext* context, const v1::ListTablesRequest& r,
         v1::ListTablesResponse* out) { return stub.ListTables(context, r, out); },
      v1::ListTablesRequest(), "", DeadlineIn(options_.timeout));
}

absl::StatusOr<v1::ListPuzzlesResponse> Client::ListPuzzles() const {
  return Call<v1::ListPuzzlesResponse>(
      [](v1::Solver::Stub& stub, grpc::ClientContext* context, const v1::ListPuzzlesRequest& r,
         v1::ListPuzzlesResponse* out) { return stub.ListPuzzles(context, r, out); },
      v1::ListPuzzlesRequest(), "", DeadlineIn(options_.timeout));
}

absl::StatusOr<v1::SampleResponse> Client::Sample(const v1::SampleRequest& request) const {
  return Sample(request, options_.timeout);
}

absl::StatusOr<v1::SampleResponse> Client::Sample(const v1::SampleRequest& request,
                                                  std::chrono::milliseconds timeout) const {
  return Call<v1::SampleResponse>(
      [](v1::Solver::Stub& stub, grpc::ClientContext* context, const v1::SampleRequest& r,
         v1::SampleResponse* out) { return stub.Sample(context, r, out); },
      request, TableIdOf(request.puzzle()), DeadlineIn(timeout));
}

namespace {

grpc::Status CallSolveBatch(v1::Solver::Stub& stub, grpc::ClientContext* context,
                            const v1::SolveBatchRequest& batch, v1::SolveBatchResponse* out) {
  return stub.SolveBatch(context, batch, out);
}

// A batch's answer, which must hold an answer per request.
absl::StatusOr<v1::SolveBatchResponse> CheckedBatch(absl::StatusOr<v1::SolveBatchResponse> response,
                                                    int requests) {
  if (response.ok() && response->responses_size() != requests) {
    return absl::DataLossError(Cat("the server answered ", response->responses_size(),
                                   " of a batch's ", requests, " requests"));
  }
  return response;
}

}  // namespace

absl::StatusOr<v1::SolveBatchResponse> Client::SolveBatch(const v1::SolveBatchRequest& batch) const {
  return SolveBatch(batch, options_.timeout);
}

absl::StatusOr<v1::SolveBatchResponse> Client::SolveBatch(const v1::SolveBatchRequest& batch,
                                                          std::chrono::milliseconds timeout) const {
  const std::string table = batch.requests_size() > 0 ? TableIdOf(batch.requests(0).puzzle()) : "";
  return CheckedBatch(Call<v1::SolveBatchResponse>(CallSolveBatch, batch, table, DeadlineIn(timeout)),
                      batch.requests_size());
}

absl::StatusOr<std::vector<v1::SolveResponse>> Client::SolveAll(
    const std::vector<v1::SolveRequest>& requests, std::chrono::milliseconds timeout) const {
  return SolveAllOf(requests, timeout);
}

absl::StatusOr<std::vector<v1::SolveResponse>> Client::SolveAll(
    const v1::SolveBatchRequest& requests, std::chrono::milliseconds timeout) const {
  return SolveAllOf(requests.requests(), timeout);
}

template <class Requests>
absl::StatusOr<std::vector<v1::SolveResponse>> Client::SolveAllOf(
    const Requests& requests, std::chrono::milliseconds timeout) const {
  if (!Check().ok()) return Check();
  const auto deadline = DeadlineIn(timeout);
  // requests[i] of a vector or of a repeated field alike.
  auto at = [&requests](size_t i) -> const v1::SolveRequest& { return *(requests.begin() + static_cast<std::ptrdiff_t>(i)); };
  const size_t count = static_cast<size_t>(requests.size());
  // The batches: batch k holds requests [starts[k], starts[k + 1]), either all of tables
  // every replica holds (spread[k]) or all of the one table built on demand tables[k]; its
  // calls name tables[k], its first request's. Each is within kSolveAllBatchBytes, which
  // any server's --max-message-bytes of 64 KiB or more takes.
  const size_t most = std::clamp<size_t>((count + kSolveAllSpread - 1) / kSolveAllSpread, 1,
                                         kSolveAllBatchRequests);
  std::vector<size_t> starts;
  std::vector<std::string> tables;  // the table each batch's calls name
  std::vector<bool> spread;
  size_t bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t size = at(i).ByteSizeLong() + 4;
    std::string table = TableIdOf(at(i).puzzle());
    const bool everywhere = stubs_->Spread(table);
    const bool same_route = !starts.empty() && (everywhere ? spread.back() : tables.back() == table);
    if (!same_route || bytes + size > kSolveAllBatchBytes || i - starts.back() >= most) {
      starts.push_back(i);
      tables.push_back(std::move(table));
      spread.push_back(everywhere);
      bytes = 0;
    }
    bytes += size;
  }
  starts.push_back(count);
  const size_t batches = starts.size() - 1;
  // A few calls at a time, each batch by the next free thread, its answers in their place.
  std::vector<v1::SolveResponse> answers(count);
  std::atomic<size_t> next{0};
  std::mutex mutex;
  absl::Status failed;  // the first failure, under `mutex`
  auto work = [&] {
    v1::SolveBatchRequest batch;
    for (size_t k = next++; k < batches; k = next++) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failed.ok()) return;
      }
      batch.Clear();
      batch.mutable_requests()->Reserve(static_cast<int>(starts[k + 1] - starts[k]));
      for (size_t i = starts[k]; i < starts[k + 1]; ++i) *batch.add_requests() = at(i);
      auto answered = CheckedBatch(
          Call<v1::SolveBatchResponse>(CallSolveBatch, batch, tables[k], deadline),
          batch.requests_size());
      if (!answered.ok()) {
        std::lock_guard<std::mutex> lock(mutex);
        if (failed.ok()) failed = answered.status();
        return;
      }
      auto* responses = answered->mutable_responses();
      for (size_t j = 0; j < starts[k + 1] - starts[k]; ++j) {
        answers[starts[k] + j] = std::move(*responses->Mutable(static_cast<int>(j)));
      }
    }
  };
  const int threads = static_cast<int>(std::min<size_t>(kSolveAllCallsInFlight, batches));
  std::vector<std::thread> pool;
  for (int w = 1; w < threads; ++w) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  if (!failed.ok()) return failed;
  return answers;
}

absl::Status Client::WaitUntilServing(std::chrono::milliseconds timeout) const {
  if (!Check().ok()) return Check();
  const auto deadline = std::chrono::system_clock::now() + timeout;
  absl::Status last = absl::UnavailableError("no answer yet");
  bool have_reason = false;
  while (std::chrono::system_clock::now() < deadline) {
    grpc::ClientContext context;
    context.set_deadline(std::min(deadline, std::chrono::system_clock::now() +
                                                std::chrono::milliseconds(500)));
    // Not wait-for-ready: a refused connection fails the check at once with gRPC's reason
    // ("failed to connect to all addresses; last error: ... Connection refused"), which is
    // kept for the message; a later check that merely timed out does not replace it.
    uint32_t serving = 0;
    const grpc::Status status =
        HealthCheck(*stubs_->health, &context, "puzzledb.v1.Solver", &serving);
    if (status.ok() && serving == 1) return absl::OkStatus();  // SERVING
    if (status.ok()) {
      last = absl::UnavailableError("the server says " + ServingStatusName(serving));
      have_reason = true;
    } else if (status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED || !have_reason) {
      last = FromGrpc(status, !options_.tls_ca_file.empty());
      have_reason = status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::UnavailableError(
      std::string("no puzzledb server serving at ") + options_.target + ": " +
      std::string(last.message()));
}

}  // namespace puzzledb
