#include "server/http/routes.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/util/strings.h"
#include "server/http/content_coding.h"
#include "server/http/web_assets.h"
#include "service/json.h"
#include "service/puzzle_text.h"
#include "service/retry_hint.h"

namespace puzzledb {

// One request on its way through a handler.
struct HttpRoutes::Call {
  const HttpRequestView& request;
  const Row& row;
  std::chrono::steady_clock::time_point started;
  std::shared_ptr<const std::atomic<bool>> cancelled;
  HttpReply& reply;
};

// A path, the methods it allows (GET comes with HEAD), for POST the message its body holds,
// and the API method its calls are counted as (docs/OPERATIONS.md, "Metrics"; the page, the
// OpenAPI document, /healthz and /metrics are not counted). docs/openapi.json describes
// every row (HttpTest.TheOpenApiDocumentDescribesEveryPath).
struct HttpRoutes::Row {
  std::string_view path;
  bool get;
  bool post;
  void (HttpRoutes::*handler)(const Call&) const;
  std::string_view body = {};
  bool metrics_only = false;  // served where /metrics is
  // The query parameters a GET takes (OnlyParams); kOwnQuery: the handler reads them
  // (RequestFromQuery). A POST takes none: its request is its body.
  std::string_view query = {};
};

namespace {

constexpr std::string_view kOwnQuery = "\x01";
// A link to the page may carry what it is to show (server/web/app.js reads them).
constexpr std::string_view kPageQuery = "puzzle, state, max_moves, view";

// FNV-1a, for the page's ETags.
uint64_t Fingerprint(std::string_view bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string_view AllowedOf(const HttpRoutes::Row& row) {
  return row.get && row.post ? "GET, HEAD, POST" : row.get ? "GET, HEAD" : "POST";
}

// The models' answers, with their default limits.
constexpr absl::StatusOr<v1::ParseInputResponse> (*ParseInputOf)(const v1::ParseInputRequest&) =
    &ParseInput;
constexpr absl::StatusOr<v1::PlayResponse> (*PlayOf)(const v1::PlayRequest&) = &Play;

// A GET's request: for Solve and Analyze with the puzzle parsed into `parsed`.
absl::Status QueryOf(const HttpTarget& target, v1::SolveRequest* out, Position* parsed) {
  return RequestFromQuery(target, out, parsed);
}
absl::Status QueryOf(const HttpTarget& target, v1::AnalyzeRequest* out, Position* parsed) {
  return RequestFromQuery(target, out, parsed);
}
absl::Status QueryOf(const HttpTarget& target, v1::SampleRequest* out, Position*) {
  return RequestFromQuery(target, out);
}

HttpAnswer NotModified(std::string tag) {
  HttpAnswer answer;
  answer.status = 304;
  if (!tag.empty()) answer.Set("ETag", std::move(tag));
  return answer;
}

// What a page on another origin may send, and read of an answer, beside the CORS-safelisted.
constexpr std::string_view kAllowedHeaders =
    "Content-Type, Content-Encoding, If-None-Match, If-Modified-Since, X-Request-Id, "
    "puzzledb-table";
constexpr std::string_view kExposedHeaders = "ETag, Last-Modified, Retry-After, X-Request-Id";

// The Access-Control-Allow-Origin for a request from `origin`: "*", the origin itself, or
// "" when it is not allowed.
std::string AllowOrigin(const std::vector<std::string>& allowed, std::string_view origin) {
  for (const std::string& a : allowed) {
    if (a == "*") return "*";
    if (a == origin) return a;
  }
  return "";
}

}  // namespace

const HttpRoutes::Row HttpRoutes::kRows[kRowCount] = {
    {"/", true, false, &HttpRoutes::File, {}, false, kPageQuery},
    {"/index.html", true, false, &HttpRoutes::File, {}, false, kPageQuery},
    {"/app.js", true, false, &HttpRoutes::File},
    {"/style.css", true, false, &HttpRoutes::File},
    {"/v1/openapi.json", true, false, &HttpRoutes::File},
    {"/healthz", true, false, &HttpRoutes::Health},
    {"/metrics", true, false, &HttpRoutes::Metrics, {}, true},
    {"/v1/tables", true, false, &HttpRoutes::Tables},
    {"/v1/puzzles", true, false, &HttpRoutes::PuzzleList},
    {"/v1/solve", true, true, &HttpRoutes::Answer<v1::SolveRequest, v1::SolveResponse>,
     "SolveRequest", false, kOwnQuery},
    {"/v1/analyze", true, true, &HttpRoutes::Answer<v1::AnalyzeRequest, v1::AnalyzeResponse>,
     "AnalyzeRequest", false, kOwnQuery},
    {"/v1/sample", true, true, &HttpRoutes::Answer<v1::SampleRequest, v1::SampleResponse>,
     "SampleRequest", false, kOwnQuery},
    {kBatchPath, false, true, &HttpRoutes::Batch, "SolveBatchRequest"},
    {"/v1/parse", false, true, &HttpRoutes::ByModel<v1::ParseInputRequest, ParseInputOf>,
     "ParseInputRequest"},
    {"/v1/play", false, true, &HttpRoutes::ByModel<v1::PlayRequest, PlayOf>, "PlayRequest"},
};

std::optional<std::string> BadCorsOrigin(std::string_view origin) {
  if (origin == "*") return std::nullopt;
  const size_t scheme_end = origin.find("://");
  const std::string_view scheme = origin.substr(0, scheme_end);
  const std::string_view host =
      scheme_end == std::string_view::npos ? "" : origin.substr(scheme_end + 3);
  const bool good_host = !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' ||
           c == '[' || c == ']';
  });
  if ((scheme == "http" || scheme == "https") && good_host &&
      std::none_of(host.begin(), host.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); })) {
    return std::nullopt;
  }
  return Cat(QuoteInput(origin), " is not an origin: give scheme://host[:port] in lower case, "
             "with no path or trailing slash (\"https://puzzles.example.org\"), or * for any");
}

std::vector<std::pair<std::string_view, std::string_view>> HttpRoutes::Endpoints() {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (const Row& row : kRows) out.emplace_back(row.path, AllowedOf(row));
  return out;
}

HttpRoutes::HttpRoutes(CallEnv env, std::function<bool()> serving, HttpRoutesOptions options)
    : env_(env), serving_(std::move(serving)), options_(options) {
  for (const WebAsset& asset : WebAssets()) {
    char tag[32];
    std::snprintf(tag, sizeof tag, "W/\"%016llx\"",
                  static_cast<unsigned long long>(Fingerprint(asset.body)));
    asset_tags_.emplace_back(tag);
    asset_encoded_.push_back(
        Compressible(asset.content_type) && asset.body.size() >= kCompressFromBytes
            ? std::make_shared<const EncodedBodies>(EncodeOnce(asset.body))
            : nullptr);
  }
}

HttpRoutes::~HttpRoutes() = default;

void HttpRoutes::Handle(const HttpRequestView& request,
                        std::shared_ptr<const std::atomic<bool>> cancelled,
                        HttpReply reply) const {
  std::string request_id;
  std::optional<HttpAnswer> refusal;
  if (request.request_id.empty()) {
    request_id = NewRequestId();
  } else if (!GoodRequestId(request.request_id)) {
    request_id = NewRequestId();
    refusal = ErrorAnswer(400, absl::StatusCode::kInvalidArgument,
                          Cat("X-Request-Id: ", QuoteInput(request.request_id.substr(0, 64)),
                              request.request_id.size() > 64 ? "..." : "", " is not a request id; "
                              "send 1 to ", kMaxRequestIdBytes, " visible ASCII characters, no "
                              "quotes or backslashes, or none and the server makes one"));
  } else {
    request_id = std::string(request.request_id);
  }
  reply = Decorated(request, std::move(request_id), std::move(reply));
  if (refusal) {
    reply(std::move(*refusal));
    return;
  }
  const std::string& path = request.target->path;
  const Row* row = nullptr;
  for (const Row& r : kRows) {
    if (r.path == path && (r.metrics_only ? options_.metrics : options_.api)) row = &r;
  }
  if (row == nullptr) {
    reply(ErrorAnswer(404, absl::StatusCode::kNotFound,
                      options_.api ? Cat("no such path ", QuoteInput(path),
                                         "; the API is under /v1/ and the page at / (docs/API.md)")
                                   : Cat("no such path ", QuoteInput(path),
                                         "; this address serves /metrics only")));
    return;
  }
  if (request.method == "OPTIONS") {
    if (auto preflight = Preflight(request, *row)) {
      reply(std::move(*preflight));
      return;
    }
  }
  const bool get = request.method == "GET" || request.method == "HEAD";
  if ((get && !row->get) || (request.method == "POST" && !row->post) ||
      (!get && request.method != "POST")) {
    const bool options = request.method == "OPTIONS";
    HttpAnswer answer = ErrorAnswer(
        405, absl::StatusCode::kUnimplemented,
        Cat(request.method, " ", row->path, " is not allowed; use ", AllowedOf(*row),
            options && options_.cors_origins.empty()
                ? " (OPTIONS answers cross-origin preflights, which are off: --http-cors-origins)"
                : options ? " (OPTIONS answers a cross-origin preflight: one with Origin and "
                            "Access-Control-Request-Method)"
                          : ""));
    answer.Set("Allow", std::string(AllowedOf(*row)));
    reply(std::move(answer));
    return;
  }
  if (const bool post = request.method == "POST"; post || row->query != kOwnQuery) {
    const std::string what = Cat(post ? "POST " : "GET ", row->path);
    if (absl::Status strict = OnlyParams(*request.target, post ? "" : row->query, what);
        !strict.ok()) {
      reply(ErrorAnswer(strict));
      return;
    }
  }
  const Call call{request, *row, std::chrono::steady_clock::now(), std::move(cancelled), reply};
  (this->*(row->handler))(call);
}

HttpReply HttpRoutes::Decorated(const HttpRequestView& request, std::string request_id,
                                HttpReply reply) const {
  std::string allow_origin;
  if (!request.origin.empty()) allow_origin = AllowOrigin(options_.cors_origins, request.origin);
  const bool log = options_.log != nullptr;
  std::string line;
  if (log) line = Cat(request.method, " ", QuoteInput(request.target->path));
  return [this, request_id = std::move(request_id), allow_origin = std::move(allow_origin),
          line = std::move(line), started = std::chrono::steady_clock::now(),
          reply = std::move(reply)](HttpAnswer answer) {
    answer.Set("X-Request-Id", request_id);
    Finish(allow_origin, line, request_id, started, &answer);
    reply(std::move(answer));
  };
}

void HttpRoutes::Finish(std::string_view allow_origin, std::string_view line,
                        std::string_view request_id,
                        std::chrono::steady_clock::time_point started, HttpAnswer* answer) const {
  if (!allow_origin.empty()) {
    answer->Set("Access-Control-Allow-Origin", std::string(allow_origin));
    answer->Set("Access-Control-Expose-Headers", std::string(kExposedHeaders));
  }
  // The answer depends on Origin whenever CORS is on and not open to all.
  if (!options_.cors_origins.empty() && allow_origin != "*") answer->AddVary("Origin");
  if (options_.log != nullptr && (options_.access_log || answer->status == 500)) {
    const double ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - started).count();
    char took[32];
    std::snprintf(took, sizeof took, "%.1f", ms);
    options_.log(Cat("http ", line, " ", answer->status, " ", answer->body.size(), " B ", took,
                     " ms id=", request_id));
  }
}

void HttpRoutes::FinishRefusal(std::string_view origin, std::string_view method,
                               std::string_view path, std::string_view request_id,
                               std::chrono::steady_clock::time_point started,
                               HttpAnswer* answer) const {
  const std::string allow_origin =
      origin.empty() ? std::string() : AllowOrigin(options_.cors_origins, origin);
  Finish(allow_origin, Cat(method.empty() ? "-" : method, " ",
                           path.empty() ? std::string("-") : QuoteInput(path)),
         request_id, started, answer);
}

// A CORS preflight (OPTIONS with Origin and Access-Control-Request-Method), when CORS is on:
// 204 with what the page may send, or 403 for an origin not allowed. Nothing for any other
// OPTIONS.
std::optional<HttpAnswer> HttpRoutes::Preflight(const HttpRequestView& request,
                                                const Row& row) const {
  if (options_.cors_origins.empty() || request.origin.empty() ||
      request.access_control_request_method.empty()) {
    return std::nullopt;
  }
  if (AllowOrigin(options_.cors_origins, request.origin).empty()) {
    return ErrorAnswer(403, absl::StatusCode::kPermissionDenied,
                       Cat("Origin ", QuoteInput(request.origin), " may not call this server: "
                           "it is not among --http-cors-origins"));
  }
  const std::string_view method = request.access_control_request_method;
  if (!((method == "GET" || method == "HEAD") ? row.get : method == "POST" && row.post)) {
    HttpAnswer answer = ErrorAnswer(
        405, absl::StatusCode::kUnimplemented,
        Cat("Access-Control-Request-Method: ", QuoteInput(method), " is not allowed on ",
            row.path, "; use ", AllowedOf(row)));
    answer.Set("Allow", std::string(AllowedOf(row)));
    return answer;
  }
  HttpAnswer answer;
  answer.status = 204;
  answer.Set("Access-Control-Allow-Methods", std::string(AllowedOf(row)));
  answer.Set("Access-Control-Allow-Headers", std::string(kAllowedHeaders));
  answer.Set("Access-Control-Max-Age", "600");
  answer.Set("Cache-Control", "no-store");
  return answer;
}

std::optional<int64_t> HttpRoutes::BuiltAt(const std::string& table_id,
                                           uint64_t generation) const {
  {
    std::lock_guard<std::mutex> lock(built_mutex_);
    if (auto it = built_.find(table_id); it != built_.end() && it->second.first == generation) {
      if (it->second.second == 0) return std::nullopt;
      return it->second.second;
    }
  }
  // A build not seen yet (once per table build): the listing says when each was made.
  const v1::ListTablesResponse tables = env_.handler->ListTables();
  std::lock_guard<std::mutex> lock(built_mutex_);
  built_[table_id] = {generation, 0};  // not listed at all: no date, and no second listing
  for (const v1::TableInfo& t : tables.tables()) {
    built_[t.table_id()] = {t.generation(), std::max<int64_t>(0, t.built_unix_micros() / 1000000)};
  }
  // Another generation listed: the table was rebuilt since this answer; no date for it.
  const auto& [listed_generation, seconds] = built_[table_id];
  if (listed_generation != generation || seconds == 0) return std::nullopt;
  return seconds;
}

// The body of a POST as a `Message`, or the answer that refuses it (415 for a body that
// is not JSON, 400 for one that is not the message), counted as a call of `method`.
std::optional<HttpAnswer> HttpRoutes::ReadBody(const Call& call, CallMethod method,
                                               google::protobuf::Message* out) const {
  std::optional<HttpAnswer> refusal;
  absl::StatusCode code = absl::StatusCode::kInvalidArgument;
  if (auto wrong = WrongContentType(call.request.content_type, call.row.body)) {
    refusal = ErrorAnswer(415, code, *wrong);
  } else if (absl::Status status = RequestFromBody(call.request.body, out); !status.ok()) {
    refusal = ErrorAnswer(status);
  }
  if (refusal) {
    env_.metrics->RecordCall(method, Transport::kHttp, AnswerSource::kNone, code,
                             std::chrono::steady_clock::now() - call.started);
  }
  return refusal;
}

void HttpRoutes::File(const Call& call) const {
  const std::string_view path = call.row.path == "/" ? "/index.html" : call.row.path;
  const auto assets = WebAssets();
  for (size_t i = 0; i < assets.size(); ++i) {
    if (assets[i].path != path) continue;
    HttpAnswer answer;
    if (Matches(call.request.if_none_match, asset_tags_[i])) {
      answer = NotModified(asset_tags_[i]);
    } else {
      answer.content_type = std::string(assets[i].content_type);
      answer.body = std::string(assets[i].body);
      answer.encoded = asset_encoded_[i];
      answer.Set("ETag", asset_tags_[i]);
    }
    answer.Set("Cache-Control", "no-cache");
    answer.Set("X-Content-Type-Options", "nosniff");
    call.reply(std::move(answer));
    return;
  }
  call.reply(ErrorAnswer(404, absl::StatusCode::kNotFound, Cat("no such file ", QuoteInput(path))));
}

void HttpRoutes::Health(const Call& call) const {
  const bool serving = serving_ == nullptr || serving_();
  HttpAnswer answer;
  answer.status = serving ? 200 : 503;
  answer.content_type = "text/plain";
  answer.body = serving ? "SERVING\n" : "NOT_SERVING\n";
  answer.Set("Cache-Control", "no-store");
  // Stopping (or not yet serving): another replica, or this one restarted, may answer.
  if (!serving) answer.Set("Retry-After", std::to_string((kRetryAfter.count() + 999) / 1000));
  call.reply(std::move(answer));
}

void HttpRoutes::Metrics(const Call& call) const {
  HttpAnswer answer;
  answer.content_type = "text/plain; version=0.0.4; charset=utf-8";
  answer.body = env_.metrics->Scrape();
  answer.Set("Cache-Control", "no-store");
  call.reply(std::move(answer));
}

void HttpRoutes::Tables(const Call& call) const {
  HttpAnswer answer = JsonAnswer(env_.handler->ListTables());
  answer.Set("Cache-Control", "no-store");
  env_.metrics->RecordCall(CallMethod::kListTables, Transport::kHttp, AnswerSource::kNone,
                           absl::StatusCode::kOk, std::chrono::steady_clock::now() - call.started);
  call.reply(std::move(answer));
}

void HttpRoutes::PuzzleList(const Call& call) const {
  HttpAnswer answer = JsonAnswer(env_.handler->ListPuzzles());
  // The list changes only with the server's tables.
  answer.Set("Cache-Control", "no-store");
  env_.metrics->RecordCall(CallMethod::kListPuzzles, Transport::kHttp, AnswerSource::kNone,
                           absl::StatusCode::kOk, std::chrono::steady_clock::now() - call.started);
  call.reply(std::move(answer));
}

// Solve, Analyze or Sample, from a query (GET) or a body (POST), through the server's call
// path: a table answer on this thread, a search on the pool.
template <class Request, class Response>
void HttpRoutes::Answer(const Call& call) const {
  const bool from_query = call.request.method != "POST";
  Request request;
  // A GET's state is parsed once, by its model, straight into what the handler reads.
  Position parsed;
  Position* parse_into = nullptr;
  if constexpr (!std::is_same_v<Request, v1::SampleRequest>) parse_into = &parsed;
  if (!from_query) {
    if (auto refusal = ReadBody(call, MethodOf<Request>(), &request)) {
      call.reply(std::move(*refusal));
      return;
    }
  } else if (absl::Status status = QueryOf(*call.request.target, &request, parse_into);
             !status.ok()) {
    env_.metrics->RecordCall(MethodOf<Request>(), Transport::kHttp, AnswerSource::kNone,
                             status.code(), std::chrono::steady_clock::now() - call.started);
    call.reply(ErrorAnswer(status));
    return;
  }
  auto response = std::make_shared<Response>();
  const std::atomic<bool>* cancelled = call.cancelled.get();
  const CallEnv& env = env_;
  std::string if_none_match = from_query ? std::string(call.request.if_none_match) : "";
  std::optional<int64_t> if_modified_since;
  if (from_query && if_none_match.empty()) {
    if_modified_since = ParseHttpDate(call.request.if_modified_since);  // else ignored
  }
  AnswerCall(
      env_, Transport::kHttp, request, response.get(),
      [&env, cancelled](uint32_t timeout_ms) {
        return CallLimits(env, std::nullopt, timeout_ms, cancelled);
      },
      [this, response, from_query, if_none_match = std::move(if_none_match), if_modified_since,
       keep = call.cancelled, reply = std::move(call.reply)](const absl::Status& status) {
        if (!status.ok()) {
          reply(ErrorAnswer(status));
          return;
        }
        HttpAnswer answer;
        std::string tag;
        if (from_query) {
          tag = EntityTag(response->table_id(), response->table_generation(),
                          response->table_crc32());
        }
        std::optional<int64_t> built;
        if (!tag.empty()) built = BuiltAt(response->table_id(), response->table_generation());
        // If-None-Match first; If-Modified-Since only without it (RFC 9110, section 13.2.2).
        const bool not_modified =
            !if_none_match.empty() ? Matches(if_none_match, tag)
                                   : built && if_modified_since && *built <= *if_modified_since;
        if (not_modified) {
          answer = NotModified(tag);
        } else {
          answer = JsonAnswer(*response);
          if (!tag.empty()) answer.Set("ETag", tag);
        }
        if (built) answer.Set("Last-Modified", HttpDate(*built));
        // An answer never changes for a given table build (docs/API.md, "Caching"); one
        // from a search may soon come from a table being built, so it is kept for less
        // long. POSTs are not cached.
        answer.Set("Cache-Control", !from_query     ? "no-store"
                                    : !tag.empty() ? "public, max-age=86400"
                                                   : "public, max-age=300");
        reply(std::move(answer));
      },
      from_query ? parse_into : nullptr);
}

// A batch's answers in JSON: a failed request's as its `id` and `error` alone (docs/API.md,
// "Batches"), not with every other field at its default, as protobuf's printer would have
// it.
static HttpAnswer BatchJson(const v1::SolveBatchResponse& batch) {
  // Without a failure, the whole message at once, as before.
  if (std::none_of(batch.responses().begin(), batch.responses().end(),
                   [](const v1::SolveResponse& r) { return r.has_error(); })) {
    return JsonAnswer(batch);
  }
  HttpAnswer answer;
  answer.content_type = "application/json";
  std::string& body = answer.body;
  body = "{\"responses\":[";
  for (int i = 0; i < batch.responses_size(); ++i) {
    const v1::SolveResponse& item = batch.responses(i);
    if (i > 0) body.push_back(',');
    if (item.has_error()) {
      // uint64 as a string, as protobuf's JSON mapping writes it.
      body += Cat("{\"id\":\"", item.id(), "\",\"error\":",
                  ToJson(item.error(), JsonLayout::kOneLine), "}");
    } else {
      body += ToJson(item, JsonLayout::kOneLine);
    }
  }
  body += "]}\n";
  return answer;
}

// Many solves in one body (docs/API.md, "Batches"), through the server's batch path: the
// answers in one body, each request's failure in band.
void HttpRoutes::Batch(const Call& call) const {
  // The request and the answer on one arena, as gRPC's SolveBatch has them
  // (server/grpc/solver_service.h): one allocation per block, not several per request.
  auto arena = std::make_shared<google::protobuf::Arena>(BatchArenaOptions());
  auto* request = google::protobuf::Arena::CreateMessage<v1::SolveBatchRequest>(arena.get());
  if (auto refusal = ReadBody(call, CallMethod::kSolveBatch, request)) {
    call.reply(std::move(*refusal));
    return;
  }
  auto* response = google::protobuf::Arena::CreateMessage<v1::SolveBatchResponse>(arena.get());
  const std::atomic<bool>* cancelled = call.cancelled.get();
  const CallEnv& env = env_;
  AnswerBatch(
      env_, Transport::kHttp, CallMethod::kSolveBatch, *request, response,
      [&env, cancelled](uint32_t timeout_ms) {
        return CallLimits(env, std::nullopt, timeout_ms, cancelled);
      },
      [arena, response, keep = call.cancelled, reply = std::move(call.reply)](const absl::Status& status) {
        HttpAnswer answer = status.ok() ? BatchJson(*response) : ErrorAnswer(status);
        answer.Set("Cache-Control", "no-store");
        reply(std::move(answer));
      });
}

// ParseInput and Play: answered by the puzzles' models, no table involved.
template <class Request, auto kAnswer>
void HttpRoutes::ByModel(const Call& call) const {
  constexpr CallMethod method =
      std::is_same_v<Request, v1::PlayRequest> ? CallMethod::kPlay : CallMethod::kParseInput;
  Request request;
  if (auto refusal = ReadBody(call, method, &request)) {
    call.reply(std::move(*refusal));
    return;
  }
  auto answered = kAnswer(request);
  env_.metrics->RecordCall(method, Transport::kHttp, AnswerSource::kNone,
                           answered.status().code(),
                           std::chrono::steady_clock::now() - call.started);
  HttpAnswer answer = answered.ok() ? JsonAnswer(*answered) : ErrorAnswer(answered.status());
  answer.Set("Cache-Control", "no-store");
  call.reply(std::move(answer));
}

}  // namespace puzzledb
