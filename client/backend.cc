#include "client/backend.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/defined/defined_puzzle.h"
#include "core/util/strings.h"
#include "puzzledb/client.h"
#include "puzzledb/engine.h"
#include "service/address.h"
#include "service/exit_codes.h"

namespace puzzledb {
namespace {

// A usage error naming the flag.
absl::Status Usage(const std::string& message) { return absl::InvalidArgumentError(message); }

// In-process: the engine's answers (puzzledb/engine.h).
class LocalBackend final : public Backend {
 public:
  explicit LocalBackend(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}

  absl::StatusOr<v1::SolveResponse> Solve(const v1::SolveRequest& request) override {
    return engine_->Solve(request);
  }
  absl::StatusOr<v1::AnalyzeResponse> Analyze(const v1::AnalyzeRequest& request) override {
    return engine_->Analyze(request);
  }
  absl::StatusOr<v1::ListTablesResponse> ListTables() override { return engine_->ListTables(); }
  absl::StatusOr<v1::ListPuzzlesResponse> ListPuzzles() override {
    return engine_->ListPuzzles();
  }
  absl::StatusOr<v1::SampleResponse> Sample(const v1::SampleRequest& request) override {
    return engine_->Sample(request);
  }
  // As a server answers a batch (RequestHandler::SolveBatch: walks taking turns, a large
  // batch in chunks on every core); then the searches, one after another on this thread
  // (each using every core where it can split).
  std::vector<absl::StatusOr<v1::SolveResponse>> SolveMany(
      const v1::SolveBatchRequest& batch) override {
    return engine_->SolveMany(batch);
  }
  // Cases are handed over in batches, so that their walks take turns and the next batch is
  // answered while one is printed.
  size_t BatchSize() const override { return 4096; }

 private:
  std::unique_ptr<Engine> engine_;
};

class RemoteBackend final : public Backend {
 public:
  // Checks the options (readable TLS files, a usable address list) before the first case.
  static absl::StatusOr<std::unique_ptr<Backend>> Make(const BackendOptions& options) {
    auto client = Client::Connect(ClientOptionsOf(options));
    if (!client.ok()) return client.status();
    return std::unique_ptr<Backend>(new RemoteBackend(std::move(*client), Timeout(options)));
  }

  absl::StatusOr<v1::SolveResponse> Solve(const v1::SolveRequest& request) override {
    return Explain(client_->Solve(request));
  }
  absl::StatusOr<v1::AnalyzeResponse> Analyze(const v1::AnalyzeRequest& request) override {
    return Explain(client_->Analyze(request));
  }
  absl::StatusOr<v1::ListPuzzlesResponse> ListPuzzles() override {
    return Explain(client_->ListPuzzles());
  }
  absl::StatusOr<v1::ListTablesResponse> ListTables() override {
    return Explain(client_->ListTables());
  }
  absl::StatusOr<v1::SampleResponse> Sample(const v1::SampleRequest& request) override {
    return Explain(client_->Sample(request));
  }
  std::vector<absl::StatusOr<v1::SolveResponse>> SolveMany(
      const v1::SolveBatchRequest& requests) override {
    const size_t n = static_cast<size_t>(requests.requests_size());
    if (n <= 4) return Backend::SolveMany(requests);
    // The deadline of the whole: the per-case timeout for every case, or an hour.
    const auto timeout = timeout_ * static_cast<int64_t>(n);
    auto answers = client_->SolveAll(requests, std::max(timeout, std::chrono::milliseconds(3600 * 1000)));
    std::vector<absl::StatusOr<v1::SolveResponse>> out;
    out.reserve(n);
    if (!answers.ok()) {
      const absl::Status failed = Explain(absl::StatusOr<int>(answers.status())).status();
      out.assign(n, failed);
      return out;
    }
    for (v1::SolveResponse& answer : *answers) {
      if (answer.has_error()) {
        out.push_back(absl::Status(static_cast<absl::StatusCode>(answer.error().code()),
                                   answer.error().message()));
      } else {
        out.push_back(std::move(answer));
      }
    }
    return out;
  }
  size_t BatchSize() const override { return 16384; }

 private:
  RemoteBackend(std::unique_ptr<Client> client, std::chrono::milliseconds timeout)
      : client_(std::move(client)), timeout_(timeout) {}

  static ClientOptions ClientOptionsOf(const BackendOptions& options) {
    ClientOptions client;
    client.target = options.server;
    client.timeout = Timeout(options);
    client.tls_ca_file = options.tls_ca_file;
    client.tls_cert_file = options.tls_cert_file;
    client.tls_key_file = options.tls_key_file;
    client.tls_server_name = options.tls_server_name;
    client.replicated_tables = options.replicated_tables;
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
  const std::chrono::milliseconds timeout_;
};

}  // namespace

std::vector<absl::StatusOr<v1::SolveResponse>> Backend::SolveMany(
    const v1::SolveBatchRequest& requests) {
  std::vector<absl::StatusOr<v1::SolveResponse>> out;
  out.reserve(static_cast<size_t>(requests.requests_size()));
  for (const auto& request : requests.requests()) out.push_back(Solve(request));
  return out;
}

absl::StatusOr<std::unique_ptr<Backend>> MakeBackend(const BackendOptions& options,
                                                     std::function<void(std::string_view)> log) {
  if (!options.server.empty()) {
    if (!options.db.empty()) {
      return Usage("--server and --db exclude each other: the server has its own database");
    }
    if (options.node_budget > 0) {
      return Usage("--node-budget limits in-process searches; a server has its own "
                   "(puzzledb-server --search-node-budget)");
    }
    if (absl::Status target = CheckTarget(options.server); !target.ok()) {
      return Usage(Cat("--server ", Message(target)));
    }
    if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
      return Usage(options.tls_cert_file.empty() ? "--tls-key needs --tls-cert"
                                                 : "--tls-cert needs --tls-key");
    }
    return RemoteBackend::Make(options);
  }
  for (const auto& [flag, value] :
       {std::pair<const char*, const std::string*>{"--tls-ca", &options.tls_ca_file},
        {"--tls-cert", &options.tls_cert_file},
        {"--tls-key", &options.tls_key_file},
        {"--tls-server-name", &options.tls_server_name}}) {
    if (!value->empty()) return Usage(Cat(flag, " applies only with --server"));
  }
  if (!options.replicated_tables.empty()) {
    return Usage("--replicated-tables applies only with --server");
  }
  auto engine = Engine::Open({.db = options.db,
                              .timeout_seconds = options.timeout_seconds,
                              .node_budget = options.node_budget,
                              .threads = options.threads,
                              .log = std::move(log)});
  if (!engine.ok()) return engine.status();
  return std::unique_ptr<Backend>(new LocalBackend(std::move(*engine)));
}

const Puzzle* FindPuzzleOf(std::string_view name,
                           const std::function<absl::StatusOr<v1::ListPuzzlesResponse>()>& list,
                           const std::function<void(std::string_view)>& log) {
  if (const Puzzle* known = FindPuzzle(name); known != nullptr) return known;
  auto listed = list();
  if (!listed.ok()) return nullptr;
  std::vector<std::pair<std::string, std::string>> definitions;
  for (const auto& p : listed->puzzles()) {
    if (p.definition().empty()) continue;
    if (p.definition_reading() != kDefinitionReading) {
      // Read today's way, an older server's file may be another puzzle.
      if (log) {
        log(Cat("the server's puzzle ", p.name(), " cannot be read here: the server reads its "
                "definition's move orientations by destination, as puzzledb did before it read "
                "them by piece (docs/PUZZLES.md, section 7); upgrade the server"));
      }
      continue;
    }
    definitions.emplace_back(p.name(), p.definition());
  }
  RegisterListedDefinitions(definitions, log);
  return FindPuzzle(name);
}

const Puzzle* FindPuzzleOf(Backend& backend, std::string_view name,
                           const std::function<void(std::string_view)>& log) {
  return FindPuzzleOf(name, [&backend] { return backend.ListPuzzles(); }, log);
}

std::unique_ptr<Backend> MakeCommandBackend(const BackendOptions& options, std::ostream& err,
                                            int* exit_code) {
  auto backend = MakeBackend(options, [&err](std::string_view line) {
    err << "puzzledb: " << line << "\n";
  });
  if (backend.ok()) return std::move(*backend);
  err << "puzzledb: " << Message(backend.status()) << "\n";
  *exit_code = absl::IsInvalidArgument(backend.status()) ? kExitBadInput : kExitFailure;
  return nullptr;
}

}  // namespace puzzledb
