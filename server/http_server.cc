#include "server/http_server.h"

#include <sys/socket.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>

#include "core/util/address.h"
#include "core/util/clock.h"
#include "core/util/json.h"
#include "core/util/strings.h"
#include "google/protobuf/util/json_util.h"
#include "httplib.h"
#include "server/web_assets.h"
#include "service/puzzle_text.h"

namespace puzzledb {

int HttpStatusOf(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kCancelled:
      return 499;  // the client closed the request (nginx's code)
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kFailedPrecondition:
      return 412;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    default:
      return 500;  // UNKNOWN, INTERNAL, DATA_LOSS
  }
}

namespace {

// A JSON string literal. Bytes outside printable ASCII are escaped one by one, so the
// result is valid JSON whatever bytes a message quotes.
std::string JsonQuote(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c >= 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out.append(escaped);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
  return out;
}

void SendError(httplib::Response& res, int http_status, absl::StatusCode code,
               std::string_view message) {
  res.status = http_status;
  res.headers.erase("Cache-Control");
  res.set_header("Cache-Control", "no-store");
  std::string body = "{\"code\":";
  body.append(JsonQuote(absl::StatusCodeToString(code)));
  body.append(",\"message\":");
  body.append(JsonQuote(message));
  body.append("}\n");
  res.set_content(body, "application/json");
}

void SendError(httplib::Response& res, const absl::Status& status) {
  SendError(res, HttpStatusOf(status.code()), status.code(), Message(status));
}

void SendJson(httplib::Response& res, const google::protobuf::Message& message) {
  res.status = 200;
  std::string body = ToJson(message, JsonLayout::kOneLine);
  body.push_back('\n');
  res.set_content(body, "application/json");
}

// The endpoints, the methods each allows, for POST the message its body holds, and the API
// method its calls are counted as (docs/OPERATIONS.md, "Metrics"; the page, /healthz and
// /metrics are not counted).
struct Endpoint {
  std::string_view path;
  bool get;
  bool post;
  std::string_view body = {};
  std::optional<CallMethod> method = std::nullopt;
};
constexpr Endpoint kEndpoints[] = {
    {"/", true, false},
    {"/index.html", true, false},
    {"/app.js", true, false},
    {"/style.css", true, false},
    {"/healthz", true, false},
    {"/metrics", true, false},
    {"/v1/tables", true, false, {}, CallMethod::kListTables},
    {"/v1/solve", true, true, "SolveRequest", CallMethod::kSolve},
    {"/v1/analyze", true, true, "AnalyzeRequest", CallMethod::kAnalyze},
    {"/v1/sample", true, true, "SampleRequest", CallMethod::kSample},
    {"/v1/parse", false, true, "ParseInputRequest", CallMethod::kParseInput},
    {"/v1/play", false, true, "PlayRequest", CallMethod::kPlay},
};

const Endpoint* FindEndpoint(std::string_view path) {
  for (const Endpoint& e : kEndpoints) {
    if (e.path == path) return &e;
  }
  return nullptr;
}

void MethodNotAllowed(httplib::Response& res, const Endpoint& endpoint, std::string_view method) {
  const std::string allow = endpoint.get && endpoint.post ? "GET, HEAD, POST"
                            : endpoint.get                ? "GET, HEAD"
                                                          : "POST";
  res.set_header("Allow", allow);
  SendError(res, 405, absl::StatusCode::kUnimplemented,
            Cat(method, " ", endpoint.path, " is not allowed; use ", allow));
}

// A whole number in [0, limit] from a query parameter, or INVALID_ARGUMENT naming it.
absl::StatusOr<uint64_t> QueryNumber(std::string_view name, std::string_view text,
                                     uint64_t limit) {
  uint64_t value = 0;
  bool ok = !text.empty() && text.size() <= 20;
  for (char c : text) {
    if (c < '0' || c > '9' || value > (limit - static_cast<uint64_t>(c - '0')) / 10) {
      ok = false;
      break;
    }
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!ok) {
    return absl::InvalidArgumentError(Cat("query: ", name, "=", QuoteInput(text),
                                          " is not a whole number from 0 to ", limit));
  }
  return value;
}

absl::StatusOr<v1::Policy> QueryPolicy(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  v1::Policy policy;
  if (v1::Policy_Parse(upper, &policy)) return policy;
  if (upper.size() == 1 && upper[0] >= '0' && upper[0] <= '2') {
    return static_cast<v1::Policy>(upper[0] - '0');
  }
  return absl::InvalidArgumentError(
      Cat("query: policy=", QuoteInput(text),
          " is not a policy; use table_then_search, table_only or search_only"));
}

// A yes-or-no query parameter: 1, true, yes / 0, false, no.
absl::StatusOr<bool> QueryFlag(std::string_view name, std::string_view text) {
  if (text == "1" || text == "true" || text == "yes") return true;
  if (text == "0" || text == "false" || text == "no") return false;
  return absl::InvalidArgumentError(
      Cat("query: ", name, "=", QuoteInput(text), " is not a yes or no; use 1 or 0"));
}

absl::Status NoRepeats(const httplib::Request& req) {
  for (const auto& [name, value] : req.params) {
    if (req.params.count(name) > 1) {
      return absl::InvalidArgumentError(Cat("query: ", QuoteInput(name), " is given ",
                                            req.params.count(name), " times; give it once"));
    }
  }
  return absl::OkStatus();
}

// The fields of a Solve or Analyze request from a GET query (docs/API.md, "GET").
template <class Request>
absl::Status RequestFromQuery(const httplib::Request& req, Request* out) {
  constexpr bool kIsSolve = requires { out->set_timeout_ms(0); };
  const std::string_view known =
      kIsSolve ? "puzzle, state, max_moves, policy, timeout_ms, id, max_solutions, count"
               : "puzzle, state, max_moves, policy, id, count";
  if (auto repeated = NoRepeats(req); !repeated.ok()) return repeated;
  for (const auto& [name, value] : req.params) {
    if (name == "puzzle" || name == "state") continue;
    if (name == "max_moves") {
      auto n = QueryNumber(name, value, 1u << 20);
      if (!n.ok()) return n.status();
      out->set_max_moves(static_cast<uint32_t>(*n));
    } else if (name == "policy") {
      auto policy = QueryPolicy(value);
      if (!policy.ok()) return policy.status();
      out->set_policy(*policy);
    } else if (name == "id") {
      auto n = QueryNumber(name, value, UINT64_MAX);
      if (!n.ok()) return n.status();
      out->set_id(*n);
    } else if (kIsSolve && name == "timeout_ms") {
      auto n = QueryNumber(name, value, UINT32_MAX);
      if (!n.ok()) return n.status();
      if constexpr (kIsSolve) out->set_timeout_ms(static_cast<uint32_t>(*n));
    } else if (kIsSolve && name == "max_solutions") {
      auto n = QueryNumber(name, value, UINT32_MAX);
      if (!n.ok()) return n.status();
      if constexpr (kIsSolve) out->set_max_solutions(static_cast<uint32_t>(*n));
    } else if (name == "count") {
      auto flag = QueryFlag(name, value);
      if (!flag.ok()) return flag.status();
      out->set_count_solutions(*flag);
    } else {
      return absl::InvalidArgumentError(
          Cat("query: unknown parameter ", QuoteInput(name), "; known: ", known));
    }
  }
  if (!req.has_param("puzzle")) {
    return absl::InvalidArgumentError("query: puzzle is missing; give puzzle=NAME and state=...");
  }
  if (!req.has_param("state")) {
    return absl::InvalidArgumentError(
        "query: state is missing; give the puzzle's compact form (docs/API.md)");
  }
  auto puzzle = PuzzleFromCompact(req.get_param_value("puzzle"), req.get_param_value("state"));
  if (!puzzle.ok()) return puzzle.status();
  *out->mutable_puzzle() = std::move(*puzzle);
  return absl::OkStatus();
}

// A Sample request from a GET query (docs/API.md, "GET /v1/sample"): puzzle, distance (a
// number or "max"), count, seed, and for puzzles with parameters a state whose parameters
// are used.
absl::Status SampleFromQuery(const httplib::Request& req, v1::SampleRequest* out) {
  if (auto repeated = NoRepeats(req); !repeated.ok()) return repeated;
  for (const auto& [name, value] : req.params) {
    if (name == "puzzle" || name == "state") continue;
    if (name == "distance") {
      if (value == "max") {
        out->set_largest(true);
        continue;
      }
      auto n = QueryNumber(name, value, 255);
      if (!n.ok()) {
        return absl::InvalidArgumentError(
            Cat("query: distance=", QuoteInput(value), " is not a distance from 0 to 255 or max"));
      }
      out->set_distance(static_cast<uint32_t>(*n));
    } else if (name == "count") {
      auto n = QueryNumber(name, value, kMaxSampleCount);
      if (!n.ok()) return n.status();
      out->set_count(static_cast<uint32_t>(*n));
    } else if (name == "seed") {
      auto n = QueryNumber(name, value, UINT64_MAX);
      if (!n.ok()) return n.status();
      out->set_seed(*n);
    } else {
      return absl::InvalidArgumentError(
          Cat("query: unknown parameter ", QuoteInput(name),
              "; known: puzzle, distance, count, seed, state (puzzles with parameters)"));
    }
  }
  if (!req.has_param("puzzle")) {
    return absl::InvalidArgumentError("query: puzzle is missing; give puzzle=NAME");
  }
  if (!req.has_param("distance")) {
    return absl::InvalidArgumentError("query: distance is missing; give distance=N or distance=max");
  }
  const std::string name = req.get_param_value("puzzle");
  auto puzzle = req.has_param("state") ? PuzzleFromCompact(name, req.get_param_value("state"))
                                       : PuzzleOfKind(name);
  if (!puzzle.ok()) return puzzle.status();
  *out->mutable_puzzle() = std::move(*puzzle);
  return absl::OkStatus();
}

// A POST body must be JSON: UNSUPPORTED MEDIA TYPE (415) otherwise, with this message.
std::optional<std::string> WrongContentType(const httplib::Request& req, std::string_view what) {
  const std::string type = req.get_header_value("Content-Type");
  std::string lower = type;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string_view json = "application/json";
  if (lower.rfind(json, 0) == 0 && (lower.size() == json.size() || lower[json.size()] == ';' ||
                                    lower[json.size()] == ' ')) {
    return std::nullopt;
  }
  return Cat("Content-Type: send application/json (a ", what,
             " in protobuf's JSON mapping), got ",
             type.empty() ? std::string("none") : QuoteInput(type));
}

// A request message from a POST body in protobuf's JSON mapping.
absl::Status RequestFromBody(const httplib::Request& req, google::protobuf::Message* out) {
  if (req.body.empty()) {
    return absl::InvalidArgumentError(
        Cat("body: empty; send a ", out->GetDescriptor()->name(), " in JSON"));
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto parsed = google::protobuf::util::JsonStringToMessage(req.body, out, options);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(Cat("body: not a ", out->GetDescriptor()->name(), ": ",
                                          QuoteInput(std::string(parsed.message()))));
  }
  return absl::OkStatus();
}

// "<table>.<generation>.<crc>" in quotes, from the answer's provenance: changes whenever
// the table is rebuilt. Empty for an answer no table gave.
template <class Response>
std::string EntityTag(const Response& response) {
  if (response.table_id().empty()) return {};
  char numbers[48];
  std::snprintf(numbers, sizeof numbers, ".%llx.%08x",
                static_cast<unsigned long long>(response.table_generation()),
                response.table_crc32());
  return Cat("\"", response.table_id(), numbers, "\"");
}

// FNV-1a, for the page's ETags.
uint64_t Fingerprint(std::string_view bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool NotModified(const httplib::Request& req, httplib::Response& res, const std::string& tag) {
  const std::string wanted = req.get_header_value("If-None-Match");
  if (wanted.empty() || (wanted != tag && wanted.find(tag) == std::string::npos)) return false;
  res.status = 304;
  return true;
}

// The status's message, shown for statuses cpp-httplib answers itself.
std::pair<absl::StatusCode, std::string> LibraryError(int status, size_t max_body_bytes) {
  switch (status) {
    case 400:
      return {absl::StatusCode::kInvalidArgument, "the request is not valid HTTP/1.1"};
    case 404:
      return {absl::StatusCode::kNotFound, "no such path; the API is under /v1/ (docs/API.md)"};
    case 413:
      return {absl::StatusCode::kResourceExhausted,
              Cat("the body is larger than ", max_body_bytes, " bytes (--max-message-bytes)")};
    case 414:
      return {absl::StatusCode::kInvalidArgument,
              "the request line is too long (at most 8192 bytes)"};
    case 416:
      return {absl::StatusCode::kInvalidArgument, "the Range header cannot be served"};
    default:
      return {absl::StatusCode::kUnknown, Cat("HTTP status ", status)};
  }
}

}  // namespace

class HttpServer::Routes {
 public:
  Routes(const HttpOptions& options, HttpBackend backend, const std::atomic<bool>* cancelled)
      : options_(options), backend_(std::move(backend)), cancelled_(cancelled) {
    for (const WebAsset& asset : WebAssets()) {
      char tag[32];
      std::snprintf(tag, sizeof tag, "\"%016llx\"",
                    static_cast<unsigned long long>(Fingerprint(asset.body)));
      asset_tags_.emplace_back(tag);
    }
  }

  // Every GET and HEAD, and every other method but POST on the known paths (POSTs are read
  // by cpp-httplib first, under the body limit, then come to Post).
  httplib::Server::HandlerResponse PreRoute(const httplib::Request& req, httplib::Response& res) {
    const Endpoint* endpoint = FindEndpoint(req.path);
    if (req.method == "POST") return httplib::Server::HandlerResponse::Unhandled;
    if (req.method != "GET" && req.method != "HEAD") {
      if (endpoint == nullptr) return httplib::Server::HandlerResponse::Unhandled;  // 404
      // The body, if any, is not read, so the client is told not to reuse the connection
      // (cpp-httplib itself keeps it open and reads what follows as the next request).
      res.set_header("Connection", "close");
      MethodNotAllowed(res, *endpoint, req.method);
      return httplib::Server::HandlerResponse::Handled;
    }
    if (endpoint == nullptr) {
      SendError(res, 404, absl::StatusCode::kNotFound,
                Cat("no such path ", QuoteInput(req.path),
                    "; the API is under /v1/ and the page at / (docs/API.md)"));
    } else if (!endpoint->get) {
      MethodNotAllowed(res, *endpoint, req.method);
    } else {
      Get(*endpoint, req, res);
    }
    return httplib::Server::HandlerResponse::Handled;
  }

  void Post(const httplib::Request& req, httplib::Response& res) {
    const Endpoint* endpoint = FindEndpoint(req.path);
    if (endpoint == nullptr) {
      SendError(res, 404, absl::StatusCode::kNotFound, Cat("no such path ", QuoteInput(req.path)));
      return;
    }
    if (!endpoint->post) {
      MethodNotAllowed(res, *endpoint, req.method);
      return;
    }
    res.set_header("Cache-Control", "no-store");
    const auto started = std::chrono::steady_clock::now();
    if (auto wrong = WrongContentType(req, endpoint->body)) {
      Record(*endpoint->method, AnswerSource::kNone, absl::StatusCode::kInvalidArgument, started);
      SendError(res, 415, absl::StatusCode::kInvalidArgument, *wrong);
      return;
    }
    if (endpoint->path == "/v1/solve") {
      Answer<v1::SolveRequest, v1::SolveResponse>(req, res, /*from_query=*/false);
    } else if (endpoint->path == "/v1/analyze") {
      Answer<v1::AnalyzeRequest, v1::AnalyzeResponse>(req, res, /*from_query=*/false);
    } else if (endpoint->path == "/v1/sample") {
      Answer<v1::SampleRequest, v1::SampleResponse>(req, res, /*from_query=*/false);
    } else if (endpoint->path == "/v1/parse") {
      v1::ParseInputRequest request;
      absl::Status status = RequestFromBody(req, &request);
      auto parsed = status.ok() ? ParseInput(request) : status;
      Record(CallMethod::kParseInput, AnswerSource::kNone, parsed.status().code(), started);
      parsed.ok() ? SendJson(res, *parsed) : SendError(res, parsed.status());
    } else if (endpoint->path == "/v1/play") {
      v1::PlayRequest request;
      absl::Status status = RequestFromBody(req, &request);
      auto played = status.ok() ? Play(request) : status;
      Record(CallMethod::kPlay, AnswerSource::kNone, played.status().code(), started);
      played.ok() ? SendJson(res, *played) : SendError(res, played.status());
    }
  }

  // A JSON error body for the statuses cpp-httplib answers itself (bad HTTP, body or URI too
  // large); the bodies this class wrote are left as they are.
  httplib::Server::HandlerResponse Error(const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    auto [code, message] = LibraryError(res.status, options_.max_body_bytes);
    SendError(res, res.status, code, message);
    return httplib::Server::HandlerResponse::Handled;
  }

 private:
  void Get(const Endpoint& endpoint, const httplib::Request& req, httplib::Response& res) {
    if (endpoint.path == "/healthz") {
      const bool serving = backend_.serving == nullptr || backend_.serving();
      res.status = serving ? 200 : 503;
      res.set_header("Cache-Control", "no-store");
      res.set_content(serving ? "SERVING\n" : "NOT_SERVING\n", "text/plain");
    } else if (endpoint.path == "/metrics") {
      res.set_header("Cache-Control", "no-store");
      res.status = 200;
      res.set_content(backend_.metrics->Scrape(), "text/plain; version=0.0.4; charset=utf-8");
    } else if (endpoint.path == "/v1/tables") {
      const auto started = std::chrono::steady_clock::now();
      res.set_header("Cache-Control", "no-store");
      SendJson(res, backend_.handler->ListTables());
      Record(CallMethod::kListTables, AnswerSource::kNone, absl::StatusCode::kOk, started);
    } else if (endpoint.path == "/v1/solve") {
      Answer<v1::SolveRequest, v1::SolveResponse>(req, res, /*from_query=*/true);
    } else if (endpoint.path == "/v1/analyze") {
      Answer<v1::AnalyzeRequest, v1::AnalyzeResponse>(req, res, /*from_query=*/true);
    } else if (endpoint.path == "/v1/sample") {
      Answer<v1::SampleRequest, v1::SampleResponse>(req, res, /*from_query=*/true);
    } else {
      Page(endpoint.path == "/" ? "/index.html" : endpoint.path, req, res);
    }
  }

  void Page(std::string_view path, const httplib::Request& req, httplib::Response& res) {
    const auto assets = WebAssets();
    for (size_t i = 0; i < assets.size(); ++i) {
      if (assets[i].path != path) continue;
      res.set_header("Cache-Control", "no-cache");
      res.set_header("ETag", asset_tags_[i]);
      res.set_header("X-Content-Type-Options", "nosniff");
      if (NotModified(req, res, asset_tags_[i])) return;
      res.status = 200;
      res.set_content(std::string(assets[i].body), std::string(assets[i].content_type));
      return;
    }
    SendError(res, 404, absl::StatusCode::kNotFound, Cat("no such file ", QuoteInput(path)));
  }

  // Solve or Analyze, from a query or a body: the table step on this thread, a search on
  // the pool while this thread waits.
  template <class Request, class Response>
  void Answer(const httplib::Request& req, httplib::Response& res, bool from_query) {
    const auto started = std::chrono::steady_clock::now();
    Request request;
    absl::Status status;
    if (!from_query) {
      status = RequestFromBody(req, &request);
    } else if constexpr (std::is_same_v<Request, v1::SampleRequest>) {
      status = SampleFromQuery(req, &request);
    } else {
      status = RequestFromQuery(req, &request);
    }
    constexpr CallMethod method = std::is_same_v<Request, v1::SolveRequest>     ? CallMethod::kSolve
                                  : std::is_same_v<Request, v1::AnalyzeRequest> ? CallMethod::kAnalyze
                                                                                : CallMethod::kSample;
    if (!status.ok()) {
      Record(method, AnswerSource::kNone, status.code(), started);
      SendError(res, status);
      return;
    }
    Response response;
    RequestHandler::SearchStep<Response> search;
    RequestHandler::Route route;
    if constexpr (std::is_same_v<Request, v1::SolveRequest>) {
      route = backend_.handler->SolveFromTables(request, &response, &status, &search);
    } else if constexpr (std::is_same_v<Request, v1::AnalyzeRequest>) {
      route = backend_.handler->AnalyzeFromTables(request, &response, &status, &search);
    } else {
      route = backend_.handler->Sample(request, &response, &status, &search);
    }
    AnswerSource source = !status.ok() ? AnswerSource::kNone : AnswerSource::kTable;
    if (route == RequestHandler::Route::kNeedsSearch) {
      bool refused = false;
      status = Search(request, &response, search, &refused);
      source = refused ? AnswerSource::kRefused : AnswerSource::kSearch;
    }
    Record(method, source, status.code(), started);
    if (!status.ok()) {
      SendError(res, status);
      return;
    }
    response.set_micros(MicrosSince(started));
    if constexpr (requires { response.set_id(request.id()); }) response.set_id(request.id());
    if (from_query) {
      // An answer never changes for a given table build (docs/API.md, "Caching"); one from
      // a search may soon come from a table being built, so it is kept for less long.
      if (const std::string tag = EntityTag(response); !tag.empty()) {
        res.set_header("ETag", tag);
        res.set_header("Cache-Control", "public, max-age=86400");
        if (NotModified(req, res, tag)) return;
      } else {
        res.set_header("Cache-Control", "public, max-age=300");
      }
    }
    SendJson(res, response);
  }

  template <class Request, class Response>
  absl::Status Search(const Request& request, Response* response,
                      RequestHandler::SearchStep<Response>& search, bool* refused) {
    SearchLimits limits;
    const auto now = std::chrono::steady_clock::now();
    limits.deadline = now + options_.default_search_deadline;
    if constexpr (requires { request.timeout_ms(); }) {
      if (request.timeout_ms() > 0) {
        limits.deadline =
            std::min(*limits.deadline, now + std::chrono::milliseconds(request.timeout_ms()));
      }
    }
    const std::atomic<bool>* cancelled = cancelled_;
    limits.cancelled = [cancelled] { return cancelled->load(std::memory_order_relaxed); };
    LendSpareThreads(backend_.pool, &limits);
    struct Waiter {
      std::mutex mutex;
      std::condition_variable done_cv;
      bool done = false;
      absl::Status status;
    };
    auto waiter = std::make_shared<Waiter>();
    const bool accepted = backend_.pool->TrySubmit(
        [waiter, limits, response, search = std::move(search)]() -> std::function<void()> {
          absl::Status searched = EndedWhileQueued(limits);
          if (searched.ok()) searched = search(limits, response);
          return [waiter, searched] {
            std::lock_guard<std::mutex> lock(waiter->mutex);
            waiter->status = searched;
            waiter->done = true;
            waiter->done_cv.notify_all();
          };
        });
    if (!accepted) {
      *refused = true;
      return SearchRefusedStatus(*backend_.pool);
    }
    // The search ends by its deadline, its node budget or the shutdown's cancellation.
    std::unique_lock<std::mutex> lock(waiter->mutex);
    waiter->done_cv.wait(lock, [&] { return waiter->done; });
    return waiter->status;
  }

  void Record(CallMethod method, AnswerSource source, absl::StatusCode code,
              std::chrono::steady_clock::time_point started) {
    backend_.metrics->RecordCall(method, Transport::kHttp, source, code,
                                 std::chrono::steady_clock::now() - started);
  }

  const HttpOptions options_;
  const HttpBackend backend_;
  const std::atomic<bool>* const cancelled_;
  std::vector<std::string> asset_tags_;
};

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpOptions& options,
                                                              HttpBackend backend, Log log) {
  if (absl::Status address = CheckHostPort(options.listen, /*allow_port_zero=*/true);
      !address.ok()) {
    return absl::InvalidArgumentError(Cat("--http ", Message(address)));
  }
  const size_t colon = options.listen.rfind(':');
  std::string host = options.listen.substr(0, colon);
  if (host.front() == '[') host = host.substr(1, host.size() - 2);
  const int wanted_port = std::stoi(options.listen.substr(colon + 1));

  std::unique_ptr<HttpServer> server(new HttpServer());
  const bool tls = !options.tls_cert_file.empty();
  if (tls) {
    auto ssl = std::make_unique<httplib::SSLServer>(
        options.tls_cert_file.c_str(), options.tls_key_file.c_str(),
        options.tls_client_ca_file.empty() ? nullptr : options.tls_client_ca_file.c_str());
    if (!ssl->is_valid()) {
      return absl::InvalidArgumentError(
          Cat("HTTP: cannot use the TLS certificate ", options.tls_cert_file, " with key ",
              options.tls_key_file,
              options.tls_client_ca_file.empty() ? "" : " and client CA " + options.tls_client_ca_file));
    }
    server->server_ = std::move(ssl);
  } else {
    server->server_ = std::make_unique<httplib::Server>();
  }
  server->routes_ = std::make_unique<Routes>(options, std::move(backend), &server->cancelled_);
  httplib::Server& http = *server->server_;
  Routes* routes = server->routes_.get();
  const int threads = std::max(1, options.threads);
  http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  http.set_payload_max_length(options.max_body_bytes);
  http.set_read_timeout(options.io_timeout);
  http.set_write_timeout(options.io_timeout);
  http.set_keep_alive_timeout(options.io_timeout.count());
  http.set_keep_alive_max_count(1000);
  // An answer leaves in two writes (headers, body): without TCP_NODELAY the body waits for
  // the client's delayed ACK, 40 ms per request on Linux (measured: 173 requests/s over 8
  // keep-alive connections, 48 ms each).
  http.set_tcp_nodelay(true);
  // SO_REUSEADDR only: cpp-httplib's default also sets SO_REUSEPORT, which would let a second
  // server bind the same port and take half its connections.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  http.set_pre_routing_handler(
      [routes](const httplib::Request& req, httplib::Response& res) {
        return routes->PreRoute(req, res);
      });
  for (const Endpoint& e : kEndpoints) {
    std::string pattern;
    for (char c : e.path) {
      if (c == '.') pattern.push_back('\\');
      pattern.push_back(c);
    }
    http.Post(pattern, [routes](const httplib::Request& req, httplib::Response& res) {
      routes->Post(req, res);
    });
  }
  http.set_error_handler(httplib::Server::HandlerWithResponse(
      [routes](const httplib::Request& req, httplib::Response& res) {
        return routes->Error(req, res);
      }));
  http.set_exception_handler(
      [log](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown exception";
        try {
          if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        if (log) log(Cat("HTTP ", req.method, " ", QuoteInput(req.path), ": ", what));
        SendError(res, 500, absl::StatusCode::kInternal, Cat("internal error: ", what));
      });

  server->port_ = wanted_port == 0 ? http.bind_to_any_port(host)
                                   : (http.bind_to_port(host, wanted_port) ? wanted_port : -1);
  if (server->port_ <= 0) {
    return absl::UnavailableError(Cat("cannot listen for HTTP on ", options.listen,
                                      " (address in use, or not an address of this machine?)"));
  }
  const std::string shown_host =
      host.find(':') != std::string::npos ? Cat("[", host, "]") : host;
  server->url_ = Cat(tls ? "https" : "http", "://", shown_host, ":", server->port_, "/");
  HttpServer* self = server.get();
  server->thread_ = std::thread([self, &http] {
    http.listen_after_bind();
    self->listen_ended_ = true;
  });
  // stop() does nothing before the loop runs: wait for it, so that Shutdown never misses it.
  while (!http.is_running() && !server->listen_ended_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return server;
}

void HttpServer::Shutdown(std::chrono::milliseconds grace) {
  if (shut_down_) return;
  shut_down_ = true;
  // stop() closes the listening socket; each connection ends after its request in flight,
  // and listen_after_bind returns once every worker has. Searches still running at the end
  // of the grace are cancelled.
  std::mutex mutex;
  std::condition_variable joined_cv;
  bool joined = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mutex);
    if (!joined_cv.wait_for(lock, grace, [&] { return joined; })) cancelled_ = true;
  });
  server_->stop();
  if (thread_.joinable()) thread_.join();
  {
    std::lock_guard<std::mutex> lock(mutex);
    joined = true;
  }
  joined_cv.notify_all();
  watchdog.join();
}

HttpServer::~HttpServer() { Shutdown(std::chrono::milliseconds(0)); }

}  // namespace puzzledb
