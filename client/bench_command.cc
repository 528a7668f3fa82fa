#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <mutex>
#include <random>
#include <thread>

#include "absl/status/status.h"
#include "client/backend.h"
#include "client/commands.h"
#include "service/address.h"
#include "core/puzzle.h"
#include "service/clock.h"
#include "core/util/strings.h"
#include "grpcpp/grpcpp.h"
#include "puzzledb/client.h"
#include "service/wire.h"
#include "puzzledb/v1/solver.grpc.pb.h"

namespace puzzledb {
namespace {

using Clock = std::chrono::steady_clock;

// Nanoseconds as microseconds with three decimals.
std::string MicrosText(uint64_t nanos) {
  const std::string fraction = std::to_string(1000 + nanos % 1000);  // "1007" for 7
  return Cat(nanos / 1000, ".", fraction.substr(1));
}

// Random valid requests of one puzzle (one this program knows, or one given as a definition
// that the server or database lists); for a puzzle with parameters, those of a table the
// server has (so that the answers come from it), unless the table is to be avoided.
absl::StatusOr<std::vector<v1::SolveRequest>> MakeRequests(
    const BenchCommandOptions& options,
    const std::function<absl::StatusOr<v1::ListTablesResponse>()>& list_tables,
    const std::function<absl::StatusOr<v1::ListPuzzlesResponse>()>& list_puzzles,
    std::ostream& err) {
  const Puzzle* puzzle = FindPuzzleOf(options.puzzle, list_puzzles, [&err](std::string_view line) {
    err << "puzzledb bench: " << line << "\n";
  });
  if (puzzle == nullptr) {
    return absl::InvalidArgumentError(Cat("unknown puzzle '", options.puzzle, "'"));
  }
  std::optional<Position> parameters;
  if (puzzle->has_parameters()) {
    absl::StatusOr<v1::ListTablesResponse> tables = list_tables();
    if (!tables.ok()) return tables.status();
    for (const auto& t : tables->tables()) {
      if (t.puzzle() != puzzle->name() || parameters.has_value()) continue;
      auto decoded = puzzle->GoalOfStoredParameters(t.parameters_bytes());
      if (decoded.ok()) parameters = *decoded;
    }
    if (!parameters.has_value()) {
      return absl::FailedPreconditionError(
          Cat(options.server.empty() ? "the database" : "the server", " has no ",
              puzzle->name(), " table to benchmark against"));
    }
  } else {
    parameters = puzzle->Goal(nullptr);
  }
  std::mt19937_64 rng(2024);
  std::vector<v1::SolveRequest> requests(4096);
  for (auto& r : requests) {
    PositionToWire(puzzle->Random(*parameters, rng), /*typed=*/true, r.mutable_puzzle());
    r.set_policy(options.uncovered ? v1::SEARCH_ONLY : v1::TABLE_THEN_SEARCH);
    if (options.move_codes) r.set_move_encoding(v1::MOVE_CODES);
  }
  return requests;
}

// Latencies in nanoseconds: an in-process answer takes a few microseconds.
struct Tally {
  std::mutex mutex;
  std::vector<uint64_t> nanos;
  std::map<int, uint64_t> errors;       // by gRPC code
  std::map<int, std::string> messages;  // the first message seen for each code
  void Add(const std::vector<uint64_t>& more, const std::map<int, uint64_t>& failed,
           const std::map<int, std::string>& said) {
    std::lock_guard<std::mutex> lock(mutex);
    nanos.insert(nanos.end(), more.begin(), more.end());
    for (const auto& [code, n] : failed) errors[code] += n;
    for (const auto& [code, text] : said) messages.emplace(code, text);
  }
};

// `stubs.size()` callers, each with one call outstanding at a time, driven from one thread
// through a completion queue (so that the load generator's own threads cost little).
void RunUnary(std::vector<std::unique_ptr<v1::Solver::Stub>>& stubs,
              const std::vector<v1::SolveRequest>& requests, Clock::time_point end, Tally* tally) {
  struct Call {
    std::unique_ptr<grpc::ClientContext> context;
    v1::SolveResponse response;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<v1::SolveResponse>> reader;
    Clock::time_point sent;
    size_t next = 0;
  };
  grpc::CompletionQueue queue;
  std::vector<Call> calls(stubs.size());
  auto start = [&](size_t slot) {
    Call& call = calls[slot];
    call.context = std::make_unique<grpc::ClientContext>();
    call.context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    call.sent = Clock::now();
    const auto& request = requests[(slot * 977 + call.next++) % requests.size()];
    call.reader = stubs[slot]->AsyncSolve(call.context.get(), request, &queue);
    call.reader->Finish(&call.response, &call.status, reinterpret_cast<void*>(slot));
  };
  for (size_t slot = 0; slot < calls.size(); ++slot) start(slot);
  std::vector<uint64_t> nanos;
  std::map<int, uint64_t> errors;
  std::map<int, std::string> messages;
  size_t outstanding = calls.size();
  void* tag;
  bool ok;
  while (outstanding > 0 && queue.Next(&tag, &ok)) {
    const size_t slot = reinterpret_cast<size_t>(tag);
    Call& call = calls[slot];
    if (ok && call.status.ok()) {
      nanos.push_back(NanosSince(call.sent));
    } else {
      const int code = ok ? call.status.error_code() : grpc::StatusCode::UNKNOWN;
      ++errors[code];
      messages.emplace(code, ok ? call.status.error_message() : "the completion queue failed");
    }
    // A server that went away ends the run (the caller says so) instead of counting
    // failures at the speed of a refused connection.
    const bool gone = ok && call.status.error_code() == grpc::StatusCode::UNAVAILABLE;
    if (gone) end = Clock::now();
    if (Clock::now() < end) {
      start(slot);
    } else {
      --outstanding;
    }
  }
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }
  tally->Add(nanos, errors, messages);
}

// One stream kept `window` requests ahead of its answers; latency is from a request's write
// to its answer's read.
void RunStream(v1::Solver::Stub& stub, const std::vector<v1::SolveRequest>& requests, int worker,
               Clock::time_point end, Tally* tally) {
  constexpr uint64_t kWindow = 512;
  grpc::ClientContext context;
  // Never longer than the run and a grace for the answers in flight.
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::duration_cast<std::chrono::system_clock::duration>(
                           end - Clock::now() + std::chrono::seconds(30)));
  auto stream = stub.SolveStream(&context);
  std::vector<Clock::time_point> sent_at(kWindow);
  std::atomic<uint64_t> sent{0}, received{0};
  std::atomic<bool> reading{true};  // false once the stream has ended for the reader
  std::mutex slot_mutex;
  std::thread writer([&] {
    grpc::WriteOptions buffered;
    buffered.set_buffer_hint();
    for (uint64_t id = 0; Clock::now() < end; ++id) {
      // Wait for room in the window, unless the stream has ended (then no answer comes).
      while (id - received.load() >= kWindow && reading.load()) std::this_thread::yield();
      if (!reading.load()) break;
      v1::SolveRequest request = requests[(id + static_cast<uint64_t>(worker) * 977) % requests.size()];
      request.set_id(id);
      {
        std::lock_guard<std::mutex> lock(slot_mutex);
        sent_at[id % kWindow] = Clock::now();
      }
      // Flush every 32 requests (and when the window fills); buffer in between.
      const bool flush = id % 32 == 31 || id + 1 - received.load() >= kWindow;
      if (!stream->Write(request, flush ? grpc::WriteOptions() : buffered)) break;
      sent = id + 1;
    }
    stream->WritesDone();
  });
  std::vector<uint64_t> nanos;
  std::map<int, uint64_t> errors;
  std::map<int, std::string> messages;
  v1::SolveResponse response;
  while (stream->Read(&response)) {
    Clock::time_point at;
    {
      std::lock_guard<std::mutex> lock(slot_mutex);
      at = sent_at[response.id() % kWindow];
    }
    if (response.has_error()) {
      ++errors[response.error().code()];
      messages.emplace(response.error().code(), response.error().message());
    } else {
      nanos.push_back(NanosSince(at));
    }
    ++received;
  }
  reading = false;
  writer.join();
  const grpc::Status status = stream->Finish();
  if (!status.ok()) {
    ++errors[status.error_code()];
    messages.emplace(status.error_code(), "the stream ended: " + status.error_message());
  }
  tally->Add(nanos, errors, messages);
}

// The embedded path: the command line's in-process backend (the request handler over the
// tables of --db, the same code a server runs per request, without gRPC), called by
// `threads` threads at once, each with one call at a time.
void RunInProcess(Backend& backend, const std::vector<v1::SolveRequest>& requests, int threads,
                  Clock::time_point end, Tally* tally) {
  std::vector<std::thread> callers;
  for (int worker = 0; worker < threads; ++worker) {
    callers.emplace_back([&, worker] {
      std::vector<uint64_t> nanos;
      std::map<int, uint64_t> errors;
      std::map<int, std::string> messages;
      size_t next = static_cast<size_t>(worker) * 977;
      // The clock is read once per answer: the end of one call starts the next.
      for (auto at = Clock::now(); at < end;) {
        const v1::SolveRequest& request = requests[next++ % requests.size()];
        absl::StatusOr<v1::SolveResponse> answer = backend.Solve(request);
        const auto done = Clock::now();
        if (answer.ok()) {
          nanos.push_back(NanosBetween(at, done));
        } else {
          const int code = static_cast<int>(answer.status().code());
          ++errors[code];
          messages.emplace(code, std::string(answer.status().message()));
        }
        at = done;
      }
      tally->Add(nanos, errors, messages);
    });
  }
  for (auto& t : callers) t.join();
}

// Batches of `size` of the requests (taken in a ring), made before the clock starts.
std::vector<std::vector<v1::SolveRequest>> MakeBatches(const std::vector<v1::SolveRequest>& requests,
                                                     int size) {
  std::vector<std::vector<v1::SolveRequest>> batches(std::max<size_t>(1, 8 * requests.size() / static_cast<size_t>(size)));
  size_t next = 0;
  for (auto& batch : batches) {
    for (int i = 0; i < size; ++i) batch.push_back(requests[next++ % requests.size()]);
  }
  return batches;
}

// `callers` threads, each with one batch at a time (of `batches`, in a ring) answered by
// `answer`; a latency is a batch's, and every request answered counts as a solve.
void RunBatches(int callers, size_t batches,
                const std::function<std::vector<absl::StatusOr<v1::SolveResponse>>(
                    int worker, size_t batch)>& answer,
                Clock::time_point end, Tally* tally, std::atomic<uint64_t>* solves) {
  std::atomic<bool> gone{false};  // the server went away: the run ends
  std::vector<std::thread> threads;
  for (int worker = 0; worker < callers; ++worker) {
    threads.emplace_back([&, worker] {
      std::vector<uint64_t> nanos;
      std::map<int, uint64_t> errors;
      std::map<int, std::string> messages;
      uint64_t answered = 0;
      size_t next = static_cast<size_t>(worker) * 7;
      for (auto at = Clock::now(); at < end && !gone.load();) {
        const auto answers = answer(worker, next++ % batches);
        const auto done = Clock::now();
        bool failed = false;
        for (const auto& one : answers) {
          if (one.ok()) {
            ++answered;
            continue;
          }
          const int code = static_cast<int>(one.status().code());
          ++errors[code];
          messages.emplace(code, std::string(one.status().message()));
          failed = true;
          if (code == grpc::StatusCode::UNAVAILABLE) gone = true;
        }
        if (!failed) nanos.push_back(NanosBetween(at, done));
        at = done;
      }
      *solves += answered;
      tally->Add(nanos, errors, messages);
    });
  }
  for (auto& t : threads) t.join();
}

// A batch's answers as one status or answer each (an error in band as its status).
std::vector<absl::StatusOr<v1::SolveResponse>> Unbatched(absl::StatusOr<v1::SolveBatchResponse> batch,
                                                         size_t size) {
  std::vector<absl::StatusOr<v1::SolveResponse>> out;
  if (!batch.ok()) {
    out.assign(size, batch.status());
    return out;
  }
  out.reserve(size);
  for (v1::SolveResponse& one : *batch->mutable_responses()) {
    if (one.has_error()) {
      out.push_back(absl::Status(static_cast<absl::StatusCode>(one.error().code()), one.error().message()));
    } else {
      out.push_back(std::move(one));
    }
  }
  return out;
}

// Connects every client before the clock starts, so that the run measures answers, not
// connection set-up. gRPC 1.51 (Debian 12's) now and then fails a connect to a live server
// with a stray errno (docs/OPERATIONS.md, "Known gRPC faults"); the client's calls retry
// UNAVAILABLE, and a channel that is waited for simply connects again. A dead address still
// fails within seconds, with gRPC's reason.
absl::Status ConnectAll(const Client& probe, const std::vector<std::unique_ptr<Client>>& clients) {
  if (absl::Status serving = probe.ListTables().status(); !serving.ok()) return serving;
  for (size_t i = 0; i < clients.size(); ++i) {
    if (!clients[i]->channel()->WaitForConnected(std::chrono::system_clock::now() +
                                                 std::chrono::seconds(10))) {
      return absl::UnavailableError(Cat("connection ", i + 1, " of ", clients.size(),
                                        " was not made within 10 s"));
    }
  }
  return absl::OkStatus();
}

// Connects one client per caller and fills `tally` from a server (unary or stream mode).
int LoadServer(const BenchCommandOptions& options, Tally* tally, double* elapsed,
               std::atomic<uint64_t>* solves, std::ostream& err) {
  if (absl::Status target = CheckTarget(options.server); !target.ok()) {
    err << "puzzledb bench: --server " << Message(target) << "\n";
    return kExitBadInput;
  }
  // One client per caller, each with its own connection, as separate clients would have;
  // made by the client library, so with its credentials (TLS) and its target checks.
  ClientOptions client_options;
  client_options.target = options.server;
  client_options.tls_ca_file = options.tls_ca_file;
  client_options.tls_cert_file = options.tls_cert_file;
  client_options.tls_key_file = options.tls_key_file;
  client_options.tls_server_name = options.tls_server_name;
  // The probe (the server's tables, the first connection) retries what fails on the way;
  // the load does not: a retry policy makes the client keep a copy of every call (in one
  // interleaved measurement, 8 unary callers made about 8 % fewer calls with it), and the
  // bench counts failures instead.
  auto probe = Client::Connect(client_options);
  if (!probe.ok()) {
    err << "puzzledb bench: " << Message(probe.status()) << "\n";
    return kExitBadInput;
  }
  client_options.own_connection = true;
  client_options.max_attempts = 1;
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::unique_ptr<v1::Solver::Stub>> stubs;
  for (int i = 0; i < options.concurrency; ++i) {
    auto client = Client::Connect(client_options);
    if (!client.ok()) {
      err << "puzzledb bench: " << Message(client.status()) << "\n";
      return kExitBadInput;
    }
    clients.push_back(std::move(*client));
    stubs.push_back(v1::Solver::NewStub(clients.back()->channel()));
  }
  if (absl::Status connected = ConnectAll(**probe, clients); !connected.ok()) {
    err << "puzzledb bench: no puzzledb server answers at " << options.server << ": "
        << Message(connected) << "\n";
    return kExitFailure;
  }
  absl::StatusOr<std::vector<v1::SolveRequest>> requests =
      MakeRequests(options, [&] { return (*probe)->ListTables(); },
                   [&] { return (*probe)->ListPuzzles(); }, err);
  if (!requests.ok()) {
    err << "puzzledb bench: " << Message(requests.status()) << "\n";
    return absl::IsInvalidArgument(requests.status()) ? kExitBadInput : kExitFailure;
  }
  const auto started = Clock::now();
  const auto end = started + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(options.seconds));
  if (options.mode == "unary") {
    RunUnary(stubs, *requests, end, tally);
  } else if (options.mode == "batch") {
    // The batches made into messages before the clock starts; caller i on connection i.
    const auto batches = MakeBatches(*requests, options.batch_size);
    std::vector<v1::SolveBatchRequest> messages(batches.size());
    for (size_t b = 0; b < batches.size(); ++b) {
      for (const auto& r : batches[b]) *messages[b].add_requests() = r;
    }
    RunBatches(options.concurrency, batches.size(),
               [&](int worker, size_t b) {
                 return Unbatched(clients[static_cast<size_t>(worker)]->SolveBatch(
                                      messages[b], std::chrono::seconds(30)),
                                  batches[b].size());
               },
               end, tally, solves);
  } else {
    std::vector<std::thread> streams;
    for (int i = 0; i < options.concurrency; ++i) {
      streams.emplace_back([&, i] { RunStream(*stubs[i], *requests, i, end, tally); });
    }
    for (auto& t : streams) t.join();
  }
  if (options.mode != "batch") *solves = tally->nanos.size();
  *elapsed = std::chrono::duration<double>(Clock::now() - started).count();
  return kExitOk;
}

// Fills `tally` from the in-process backend over the tables of --db.
int LoadInProcess(const BenchCommandOptions& options, Tally* tally, double* elapsed,
                  std::atomic<uint64_t>* solves, std::ostream& err) {
  BackendOptions backend_options;
  backend_options.db = options.db;
  backend_options.threads = 1;  // each thread of the load is one core's work
  int exit_code = kExitOk;
  std::unique_ptr<Backend> backend = MakeCommandBackend(backend_options, err, &exit_code);
  if (backend == nullptr) return exit_code;
  absl::StatusOr<std::vector<v1::SolveRequest>> requests =
      MakeRequests(options, [&] { return backend->ListTables(); },
                   [&] { return backend->ListPuzzles(); }, err);
  if (!requests.ok()) {
    err << "puzzledb bench: " << Message(requests.status()) << "\n";
    return absl::IsInvalidArgument(requests.status()) ? kExitBadInput : kExitFailure;
  }
  // One untimed answer loads the table (and its pages), as an embedder's first call would.
  if (absl::StatusOr<v1::SolveResponse> first = backend->Solve(requests->front()); !first.ok()) {
    err << "puzzledb bench: the first solve failed: " << Message(first.status()) << "\n";
    return kExitFailure;
  }
  const auto started = Clock::now();
  const auto end = started + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(options.seconds));
  if (options.mode == "batch") {
    // Made into messages before the clock starts, as an embedder holds its batch.
    const auto batches = MakeBatches(*requests, options.batch_size);
    std::vector<v1::SolveBatchRequest> messages(batches.size());
    for (size_t b = 0; b < batches.size(); ++b) {
      for (const auto& r : batches[b]) *messages[b].add_requests() = r;
    }
    RunBatches(options.concurrency, batches.size(),
               [&](int, size_t b) { return backend->SolveMany(messages[b]); }, end, tally, solves);
  } else {
    RunInProcess(*backend, *requests, options.concurrency, end, tally);
    *solves = tally->nanos.size();
  }
  *elapsed = std::chrono::duration<double>(Clock::now() - started).count();
  return kExitOk;
}

}  // namespace

int RunBenchCommand(const BenchCommandOptions& options, std::ostream& out, std::ostream& err) {
  const std::string mode =
      !options.mode.empty() ? options.mode : (options.server.empty() ? "inprocess" : "unary");
  if (mode != "unary" && mode != "stream" && mode != "inprocess" && mode != "batch") {
    err << "puzzledb bench: --mode is unary, stream, inprocess or batch\n";
    return kExitBadInput;
  }
  // A batch runs in-process over --db, else against --server.
  const bool in_process = mode == "inprocess" || (mode == "batch" && options.server.empty());
  if (in_process && !options.server.empty()) {
    err << "puzzledb bench: --mode inprocess measures the tables of --db in this process; "
           "drop --server (or use --mode unary or stream to load the server)\n";
    return kExitBadInput;
  }
  if (options.server.empty() && options.db.empty() && (options.mode.empty() || !in_process)) {
    err << "puzzledb bench: give the server to load with --server ADDR, or a database with "
           "--db DIR to measure the in-process path\n";
    return kExitBadInput;
  }
  if (in_process && options.db.empty() && !options.uncovered) {
    err << "puzzledb bench: --mode inprocess answers from the tables of --db DIR; give it "
           "(or --uncovered to measure live search)\n";
    return kExitBadInput;
  }
  if (!in_process && !options.db.empty()) {
    err << "puzzledb bench: --server and --db exclude each other: the server has its own "
           "database\n";
    return kExitBadInput;
  }
  if (in_process && !(options.tls_ca_file + options.tls_cert_file + options.tls_key_file +
                      options.tls_server_name)
                         .empty()) {
    err << "puzzledb bench: the --tls-* options apply only with --server\n";
    return kExitBadInput;
  }
  BenchCommandOptions resolved = options;
  resolved.mode = mode;
  if (resolved.concurrency == 0) resolved.concurrency = in_process || mode == "batch" ? 1 : 8;
  Tally tally;
  double elapsed = 0;
  std::atomic<uint64_t> solves{0};
  if (const int loaded = in_process ? LoadInProcess(resolved, &tally, &elapsed, &solves, err)
                                    : LoadServer(resolved, &tally, &elapsed, &solves, err);
      loaded != kExitOk) {
    return loaded;
  }
  auto& nanos = tally.nanos;
  std::sort(nanos.begin(), nanos.end());
  // A percentile in microseconds, to the nanosecond: "2.413".
  auto percentile = [&](double p) -> std::string {
    const uint64_t at =
        nanos.empty() ? 0
                      : nanos[std::min(nanos.size() - 1,
                                       static_cast<size_t>(p * static_cast<double>(nanos.size())))];
    return MicrosText(at);
  };
  const std::string max = MicrosText(nanos.empty() ? 0 : nanos.back());
  uint64_t errors = 0;
  std::string by_code;
  for (const auto& [code, n] : tally.errors) {
    errors += n;
    by_code += Cat(by_code.empty() ? "" : ",", "\"", code, "\":", n);
  }
  const double throughput = static_cast<double>(solves.load()) / elapsed;
  // In batch mode a latency is a whole batch's.
  const std::string batch = mode == "batch" ? Cat(",\"batch_size\":", resolved.batch_size) : "";
  if (options.json) {
    out << Cat("{\"puzzle\":\"", options.puzzle, "\",\"mode\":\"", mode,
               "\",\"concurrency\":", resolved.concurrency, batch, ",\"seconds\":", elapsed,
               ",\"solves\":", solves.load(), ",\"errors\":", errors, ",\"errors_by_code\":{",
               by_code, "},\"throughput\":", throughput, ",\"p50_us\":", percentile(0.5),
               ",\"p90_us\":", percentile(0.9), ",\"p99_us\":", percentile(0.99),
               ",\"max_us\":", max, "}\n");
  } else {
    const char* callers = mode == "stream" ? " streams" : in_process ? " threads" : " callers";
    out << options.puzzle << ", " << mode << ", " << resolved.concurrency << callers
        << (mode == "batch" ? Cat(", batches of ", resolved.batch_size) : "") << ", "
        << elapsed << " s: " << solves.load() << " solves, " << static_cast<uint64_t>(throughput)
        << " solves/s; " << (mode == "batch" ? "batch " : "") << "latency p50 " << percentile(0.5) << " us, p90 " << percentile(0.9)
        << " us, p99 " << percentile(0.99) << " us, max " << max << " us; " << errors
        << " errors" << (by_code.empty() ? "" : " {" + by_code + "}") << "\n";
  }
  for (const auto& [code, text] : tally.messages) {
    err << "puzzledb bench: " << tally.errors[code] << " x "
        << absl::StatusCodeToString(static_cast<absl::StatusCode>(code)) << ", the first said: " << text << "\n";
  }
  if (tally.errors.count(grpc::StatusCode::UNAVAILABLE) > 0) {
    err << "puzzledb bench: the server at " << options.server
        << " stopped answering (UNAVAILABLE); the run ended there\n";
    return kExitFailure;
  }
  return nanos.empty() ? kExitFailure : kExitOk;
}

}  // namespace puzzledb
