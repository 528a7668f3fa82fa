#include "puzzledb/client.h"

#include <fstream>
#include <sstream>
#include <thread>

#include "service/address.h"
#include "service/files.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "puzzledb/v1/solver.grpc.pb.h"
#include "service/wire.h"

namespace puzzledb {
namespace {

absl::Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  // gRPC and absl share the canonical code numbers.
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

void SetDeadline(grpc::ClientContext* context, std::chrono::milliseconds timeout) {
  context->set_deadline(std::chrono::system_clock::now() + timeout);
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
// UNAVAILABLE, or CANCELLED by the server: a server that begins to stop cancels the calls that
// reached it in that instant, before puzzledb sees them (gRPC 1.51's server refuses new calls
// while its connections still accept them; docs/OPERATIONS.md, "Replicas behind nginx").
// Every puzzledb call is idempotent. A call the caller cancelled, or whose deadline passed,
// is never retried (gRPC's rule).
std::string ServiceConfig(int max_attempts) {
  std::string config = R"({"loadBalancingConfig":[{"round_robin":{}}])";
  if (max_attempts > 1) {
    config += R"(,"methodConfig":[{"name":[{"service":"puzzledb.v1.Solver"}],"retryPolicy":{"maxAttempts":)" +
              std::to_string(std::min(max_attempts, 5)) +
              R"(,"initialBackoff":"0.05s","maxBackoff":"1s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE","CANCELLED"]}}])";
  }
  return config + "}";
}

}  // namespace

struct Client::Stubs {
  std::unique_ptr<v1::Solver::Stub> solver;
  std::unique_ptr<grpc::health::v1::Health::Stub> health;
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
  stubs_->health = grpc::health::v1::Health::NewStub(channel_);
}

Client::~Client() = default;

std::string TableIdOf(const v1::Puzzle& puzzle) { return TableIdFromWire(puzzle); }

namespace {

// The call's table, for balancers that route by it (TableIdOf).
void AddTable(grpc::ClientContext* context, const v1::Puzzle& puzzle) {
  const std::string id = TableIdOf(puzzle);
  if (!id.empty()) context->AddMetadata("puzzledb-table", id);
}

}  // namespace

absl::StatusOr<v1::SolveResponse> Client::Solve(const v1::SolveRequest& request) const {
  return Solve(request, options_.timeout);
}

absl::StatusOr<v1::SolveResponse> Client::Solve(const v1::SolveRequest& request,
                                                std::chrono::milliseconds timeout) const {
  if (!Check().ok()) return Check();
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  v1::SolveResponse response;
  AddTable(&context, request.puzzle());
  const grpc::Status status = stubs_->solver->Solve(&context, request, &response);
  if (!status.ok()) return FromGrpc(status);
  return response;
}

absl::StatusOr<v1::AnalyzeResponse> Client::Analyze(const v1::AnalyzeRequest& request) const {
  return Analyze(request, options_.timeout);
}

absl::StatusOr<v1::AnalyzeResponse> Client::Analyze(const v1::AnalyzeRequest& request,
                                                    std::chrono::milliseconds timeout) const {
  if (!Check().ok()) return Check();
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  v1::AnalyzeResponse response;
  AddTable(&context, request.puzzle());
  const grpc::Status status = stubs_->solver->Analyze(&context, request, &response);
  if (!status.ok()) return FromGrpc(status);
  return response;
}

absl::StatusOr<v1::ListTablesResponse> Client::ListTables() const {
  if (!Check().ok()) return Check();
  grpc::ClientContext context;
  SetDeadline(&context, options_.timeout);
  v1::ListTablesResponse response;
  const grpc::Status status =
      stubs_->solver->ListTables(&context, v1::ListTablesRequest(), &response);
  if (!status.ok()) return FromGrpc(status);
  return response;
}

absl::StatusOr<v1::SampleResponse> Client::Sample(const v1::SampleRequest& request) const {
  return Sample(request, options_.timeout);
}

absl::StatusOr<v1::SampleResponse> Client::Sample(const v1::SampleRequest& request,
                                                  std::chrono::milliseconds timeout) const {
  if (!Check().ok()) return Check();
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  v1::SampleResponse response;
  AddTable(&context, request.puzzle());
  const grpc::Status status = stubs_->solver->Sample(&context, request, &response);
  if (!status.ok()) return FromGrpc(status);
  return response;
}

absl::StatusOr<v1::SolveBatchResponse> Client::SolveBatch(const v1::SolveBatchRequest& batch) const {
  return SolveBatch(batch, options_.timeout);
}

absl::StatusOr<v1::SolveBatchResponse> Client::SolveBatch(const v1::SolveBatchRequest& batch,
                                                          std::chrono::milliseconds timeout) const {
  if (!Check().ok()) return Check();
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  if (batch.requests_size() > 0) AddTable(&context, batch.requests(0).puzzle());
  v1::SolveBatchResponse response;
  const grpc::Status status = stubs_->solver->SolveBatch(&context, batch, &response);
  if (!status.ok()) return FromGrpc(status);
  if (response.responses_size() != batch.requests_size()) {
    return absl::DataLossError(Cat("the server answered ", response.responses_size(),
                                   " of a batch's ", batch.requests_size(), " requests"));
  }
  return response;
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
  // requests[i] of a vector or of a repeated field alike.
  auto at = [&requests](size_t i) -> const v1::SolveRequest& { return *(requests.begin() + static_cast<std::ptrdiff_t>(i)); };
  const size_t count = static_cast<size_t>(requests.size());
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  if (!requests.empty()) AddTable(&context, at(0).puzzle());
  // The requests go in batches (docs/API.md, "Batches"), each a message of the stream:
  // up to kSolveAllBatchBytes of requests a batch, which any server's --max-message-bytes
  // of 64 KiB or more takes.
  std::vector<size_t> starts;  // batch k holds requests [starts[k], starts[k + 1])
  size_t bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t size = at(i).ByteSizeLong() + 4;
    if (starts.empty() || bytes + size > kSolveAllBatchBytes ||
        i - starts.back() >= kSolveAllBatchRequests) {
      starts.push_back(i);
      bytes = 0;
    }
    bytes += size;
  }
  starts.push_back(count);
  const size_t batches = starts.size() - 1;
  auto stream = stubs_->solver->SolveStream(&context);
  // Write everything from a second thread while this one reads, so that neither side's
  // flow-control window can stall the other. Batch k has id k.
  std::thread writer([&] {
    grpc::WriteOptions buffered;
    buffered.set_buffer_hint();
    v1::SolveRequest message;
    for (size_t k = 0; k < batches; ++k) {
      message.Clear();
      message.set_id(k);
      auto* batch = message.mutable_batch();
      batch->mutable_requests()->Reserve(static_cast<int>(starts[k + 1] - starts[k]));
      for (size_t i = starts[k]; i < starts[k + 1]; ++i) *batch->add_requests() = at(i);
      const bool last = k + 1 == batches;
      if (!stream->Write(message, last ? grpc::WriteOptions() : buffered)) break;
    }
    stream->WritesDone();
  });
  std::vector<v1::SolveResponse> answers(count);
  std::vector<bool> seen(batches, false);
  size_t received = 0;
  v1::SolveResponse response;
  while (stream->Read(&response)) {
    const uint64_t k = response.id();
    if (k >= batches || seen[k]) continue;
    const size_t n = starts[k + 1] - starts[k];
    if (response.has_error()) {
      // The whole batch was refused: every request in it gets the reason.
      for (size_t i = starts[k]; i < starts[k + 1]; ++i) {
        answers[i].mutable_error()->CopyFrom(response.error());
        answers[i].set_id(at(i).id());
      }
    } else if (static_cast<size_t>(response.batch().responses_size()) == n) {
      auto* answered = response.mutable_batch()->mutable_responses();
      for (size_t j = 0; j < n; ++j) answers[starts[k] + j] = std::move(*answered->Mutable(static_cast<int>(j)));
    } else {
      continue;  // counted as missing below
    }
    seen[k] = true;
    ++received;
  }
  writer.join();
  const grpc::Status status = stream->Finish();
  if (!status.ok()) return FromGrpc(status);
  if (received != batches) {
    return absl::DataLossError("the server's stream ended before every request was answered");
  }
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
    grpc::health::v1::HealthCheckRequest request;
    request.set_service("puzzledb.v1.Solver");
    grpc::health::v1::HealthCheckResponse response;
    const grpc::Status status = stubs_->health->Check(&context, request, &response);
    if (status.ok() && response.status() == grpc::health::v1::HealthCheckResponse::SERVING) {
      return absl::OkStatus();
    }
    if (status.ok()) {
      last = absl::UnavailableError(
          "the server says " +
          grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status()));
      have_reason = true;
    } else if (status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED || !have_reason) {
      last = FromGrpc(status);
      have_reason = status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::UnavailableError(
      std::string("no puzzledb server serving at ") + options_.target + ": " +
      std::string(last.message()));
}

}  // namespace puzzledb
