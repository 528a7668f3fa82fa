#include "client/backend.h"

#include <chrono>

#include "core/solver.h"
#include "core/strings.h"
#include "core/table_store.h"
#include "puzzledb/client.h"
#include "server/request_handler.h"

namespace puzzledb {
namespace {

class LocalBackend final : public Backend {
 public:
  LocalBackend(std::shared_ptr<TableStore> store, const BackendOptions& options,
               std::function<void(std::string_view)> log)
      : options_(options),
        solver_(std::move(store), std::move(log)),
        handler_(&solver_, nullptr, HandlerOptions{options.node_budget}) {}

  absl::StatusOr<v1::SolveResponse> Solve(const v1::SolveRequest& request) override {
    const auto started = std::chrono::steady_clock::now();
    v1::SolveResponse response;
    absl::Status status;
    if (handler_.SolveFromTables(request, &response, &status) ==
        RequestHandler::Route::kNeedsSearch) {
      status = handler_.SolveWithSearch(request, Limits(started), &response);
    }
    if (!status.ok()) return status;
    response.set_micros(MicrosSince(started));
    response.set_id(request.id());
    return response;
  }

  absl::StatusOr<v1::AnalyzeResponse> Analyze(const v1::AnalyzeRequest& request) override {
    const auto started = std::chrono::steady_clock::now();
    v1::AnalyzeResponse response;
    absl::Status status;
    if (handler_.AnalyzeFromTables(request, &response, &status) ==
        RequestHandler::Route::kNeedsSearch) {
      status = handler_.AnalyzeWithSearch(request, Limits(started), &response);
    }
    if (!status.ok()) return status;
    response.set_micros(MicrosSince(started));
    return response;
  }

  absl::StatusOr<v1::ListTablesResponse> ListTables() override { return handler_.ListTables(); }

 private:
  static uint64_t MicrosSince(std::chrono::steady_clock::time_point start) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::steady_clock::now() - start)
                                     .count());
  }
  SearchLimits Limits(std::chrono::steady_clock::time_point started) const {
    SearchLimits limits;
    if (options_.timeout_seconds > 0) {
      limits.deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(options_.timeout_seconds));
    }
    return limits;
  }

  const BackendOptions options_;
  Solver solver_;
  RequestHandler handler_;
};

class RemoteBackend final : public Backend {
 public:
  // Checks the options (readable TLS files, a usable address list) before the first case.
  static absl::StatusOr<std::unique_ptr<Backend>> Make(const BackendOptions& options) {
    auto client = Client::Connect(ClientOptionsOf(options));
    if (!client.ok()) return client.status();
    return std::unique_ptr<Backend>(new RemoteBackend(std::move(*client)));
  }

  absl::StatusOr<v1::SolveResponse> Solve(const v1::SolveRequest& request) override {
    return Explain(client_->Solve(request));
  }
  absl::StatusOr<v1::AnalyzeResponse> Analyze(const v1::AnalyzeRequest& request) override {
    return Explain(client_->Analyze(request));
  }
  absl::StatusOr<v1::ListTablesResponse> ListTables() override {
    return Explain(client_->ListTables());
  }
 private:
  explicit RemoteBackend(std::unique_ptr<Client> client) : client_(std::move(client)) {}

  static ClientOptions ClientOptionsOf(const BackendOptions& options) {
    ClientOptions client;
    client.target = options.server;
    client.timeout = Timeout(options);
    client.tls_ca_file = options.tls_ca_file;
    client.tls_cert_file = options.tls_cert_file;
    client.tls_key_file = options.tls_key_file;
    client.tls_server_name = options.tls_server_name;
    return client;
  }
  static std::chrono::milliseconds Timeout(const BackendOptions& options) {
    return options.timeout_seconds > 0
               ? std::chrono::milliseconds(static_cast<int64_t>(options.timeout_seconds * 1000))
               : std::chrono::milliseconds(3600 * 1000);
  }
  // Says which server did not answer.
  template <class T>
  absl::StatusOr<T> Explain(absl::StatusOr<T> result) const {
    if (result.ok() || !absl::IsUnavailable(result.status())) return result;
    return absl::UnavailableError(Cat("no answer from a puzzledb server at ",
                                      client_->options().target, ": ", Message(result.status())));
  }

  std::unique_ptr<Client> client_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> MakeBackend(const BackendOptions& options,
                                                     std::function<void(std::string_view)> log) {
  if (!options.server.empty()) {
    if (!options.db.empty()) {
      return absl::InvalidArgumentError("--server and --db exclude each other: the server has "
                                        "its own database");
    }
    return RemoteBackend::Make(options);
  }
  std::shared_ptr<TableStore> store;
  if (!options.db.empty()) {
    auto opened = TableStore::Open(options.db, TableStore::Mode::kReadOnly);
    if (!opened.ok()) return opened.status();
    store = std::move(*opened);
  }
  return std::unique_ptr<Backend>(new LocalBackend(std::move(store), options, std::move(log)));
}

}  // namespace puzzledb
