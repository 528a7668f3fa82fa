// puzzledb::Engine (puzzledb/engine.h): the server's call path without its transport or
// pool (server/call.h): the table step, else the search on the calling thread.
#include "puzzledb/engine.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/defined/defined_puzzle.h"
#include "core/solver.h"
#include "core/table/table_store.h"
#include "core/util/thread_lender.h"
#include "service/request_handler.h"
#include "service/wire.h"

namespace puzzledb {

class Engine::Impl {
 public:
  Impl(std::shared_ptr<TableStore> store, EngineOptions options)
      : options_(std::move(options)),
        spare_threads_(SpareThreads(
            (options_.threads > 0
                 ? options_.threads
                 : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) -
            1)),
        solver_(std::move(store), Log()),
        handler_(&solver_, nullptr, HandlerOptions{options_.node_budget}) {}

  // `micros` covers the answer, not the first load of its table. The request is read once:
  // its table is loaded from what was read, which is then answered.
  template <class Response, class Request>
  absl::StatusOr<Response> Answer(const Request& request) {
    auto query = handler_.Read(request);
    if (!query.ok()) return query.status();
    if constexpr (requires { query->policy; }) {
      if (query->policy != Policy::kSearchOnly) handler_.Prepare(query->position);
    }
    const auto started = std::chrono::steady_clock::now();
    Response response;
    RequestHandler::Routed<Response> routed = handler_.Answer(*query, &response);
    absl::Status status =
        routed.NeedsSearch() ? routed.search(Limits(started), &response) : routed.status;
    if (!status.ok()) return status;
    uint64_t id = 0;
    if constexpr (requires { request.id(); }) id = request.id();
    StampAnswer(id, std::chrono::steady_clock::now() - started, &response);
    return response;
  }

  std::vector<absl::StatusOr<v1::SolveResponse>> SolveMany(const v1::SolveBatchRequest& batch) {
    // Each request read once: its table is loaded before the clock starts (as for one
    // solve; once per run of one table), and the batch answers what was read.
    std::vector<absl::StatusOr<SolveQuery>> read;
    read.reserve(static_cast<size_t>(std::min<int>(batch.requests_size(), kMaxBatchRequests + 1)));
    std::string prepared;
    for (int i = 0; i < batch.requests_size() && i <= static_cast<int>(kMaxBatchRequests); ++i) {
      read.push_back(handler_.Read(batch.requests(i)));
      if (!read.back().ok() || read.back()->policy == Policy::kSearchOnly) continue;
      const Position& position = read.back()->position;
      std::string table = position.puzzle()->TableId(position);
      if (table == prepared) continue;
      handler_.Prepare(position);
      prepared = std::move(table);
    }
    if (read.size() != static_cast<size_t>(batch.requests_size())) read.clear();  // refused whole
    const auto started = std::chrono::steady_clock::now();
    const size_t n = static_cast<size_t>(batch.requests_size());
    v1::SolveBatchResponse answers;
    std::vector<RequestHandler::BatchSearch> searches;
    const absl::Status status = handler_.SolveBatch(batch, &answers, &searches, spare_threads_,
                                                    read.empty() ? nullptr : &read);
    if (!status.ok()) return std::vector<absl::StatusOr<v1::SolveResponse>>(n, status);
    const uint64_t micros = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                              started)
            .count());
    std::vector<absl::StatusOr<v1::SolveResponse>> out;
    out.reserve(n);
    size_t s = 0;
    for (int i = 0; i < answers.responses_size(); ++i) {
      v1::SolveResponse* answer = answers.mutable_responses(i);
      if (s < searches.size() && searches[s].index == static_cast<size_t>(i)) {
        const auto searched = std::chrono::steady_clock::now();
        absl::Status found = searches[s].step(Limits(searched), answer);
        if (!found.ok()) SetErrorInBand(found, answer->id(), answer);
        answer->set_micros(static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::steady_clock::now() - searched)
                .count()));
        ++s;
      } else {
        answer->set_micros(micros);
      }
      if (answer->has_error()) {
        out.push_back(absl::Status(static_cast<absl::StatusCode>(answer->error().code()),
                                   answer->error().message()));
      } else {
        out.push_back(std::move(*answer));
      }
    }
    return out;
  }

  v1::ListTablesResponse ListTables() const { return handler_.ListTables(); }
  v1::ListPuzzlesResponse ListPuzzles() const { return handler_.ListPuzzles(); }
  // Tables refused before any query (stored definitions that cannot be served).
  void NoteRefused(const std::map<std::string, std::string>& refused) {
    for (const auto& [table_id, why] : refused) solver_.NoteRefused(table_id, why);
  }

 private:
  std::function<void(std::string_view)> Log() const {
    if (options_.log) return options_.log;
    return [](std::string_view) {};
  }

  SearchLimits Limits(std::chrono::steady_clock::time_point started) const {
    SearchLimits limits;
    if (options_.timeout_seconds > 0) {
      limits.deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(options_.timeout_seconds));
    }
    // A search that can split its work uses the threads it may (docs/API.md, "Searches").
    limits.threads = spare_threads_;
    return limits;
  }

  const EngineOptions options_;
  const ThreadLender spare_threads_;
  Solver solver_;
  RequestHandler handler_;
};

absl::StatusOr<std::unique_ptr<Engine>> Engine::Open(EngineOptions options) {
  std::shared_ptr<TableStore> store;
  std::map<std::string, std::string> not_served;
  if (!options.db.empty()) {
    auto opened = TableStore::Open(options.db, TableStore::Mode::kReadOnly);
    if (!opened.ok()) return opened.status();
    store = std::move(*opened);
    // Puzzles given as definitions, as the database stores them.
    RegisterStoredDefinitions(*store, options.log ? options.log : [](std::string_view) {},
                              &not_served);
  }
  auto impl = std::make_unique<Impl>(std::move(store), std::move(options));
  impl->NoteRefused(not_served);
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

absl::StatusOr<v1::SolveResponse> Engine::Solve(const v1::SolveRequest& request) const {
  return impl_->Answer<v1::SolveResponse>(request);
}
absl::StatusOr<v1::AnalyzeResponse> Engine::Analyze(const v1::AnalyzeRequest& request) const {
  return impl_->Answer<v1::AnalyzeResponse>(request);
}
absl::StatusOr<v1::SampleResponse> Engine::Sample(const v1::SampleRequest& request) const {
  return impl_->Answer<v1::SampleResponse>(request);
}
v1::ListTablesResponse Engine::ListTables() const { return impl_->ListTables(); }
v1::ListPuzzlesResponse Engine::ListPuzzles() const { return impl_->ListPuzzles(); }
std::vector<absl::StatusOr<v1::SolveResponse>> Engine::SolveMany(
    const v1::SolveBatchRequest& batch) const {
  return impl_->SolveMany(batch);
}

}  // namespace puzzledb
