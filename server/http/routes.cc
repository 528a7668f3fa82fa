#include "server/http/routes.h"

#include <cstdio>

#include "core/util/strings.h"
#include "server/http/web_assets.h"
#include "service/puzzle_text.h"

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
};

namespace {


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

absl::StatusOr<v1::ParseInputResponse> ParseInputOf(const v1::ParseInputRequest& request) {
  return ParseInput(request);
}
absl::StatusOr<v1::PlayResponse> PlayOf(const v1::PlayRequest& request) { return Play(request); }

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
  answer.Set("ETag", std::move(tag));
  return answer;
}

}  // namespace

const HttpRoutes::Row HttpRoutes::kRows[kRowCount] = {
    {"/", true, false, &HttpRoutes::File},
    {"/index.html", true, false, &HttpRoutes::File},
    {"/app.js", true, false, &HttpRoutes::File},
    {"/style.css", true, false, &HttpRoutes::File},
    {"/v1/openapi.json", true, false, &HttpRoutes::File},
    {"/healthz", true, false, &HttpRoutes::Health},
    {"/metrics", true, false, &HttpRoutes::Metrics, {}, true},
    {"/v1/tables", true, false, &HttpRoutes::Tables},
    {"/v1/puzzles", true, false, &HttpRoutes::PuzzleList},
    {"/v1/solve", true, true, &HttpRoutes::Answer<v1::SolveRequest, v1::SolveResponse>,
     "SolveRequest"},
    {"/v1/analyze", true, true, &HttpRoutes::Answer<v1::AnalyzeRequest, v1::AnalyzeResponse>,
     "AnalyzeRequest"},
    {"/v1/sample", true, true, &HttpRoutes::Answer<v1::SampleRequest, v1::SampleResponse>,
     "SampleRequest"},
    {kBatchPath, false, true, &HttpRoutes::Batch, "SolveBatchRequest"},
    {"/v1/parse", false, true, &HttpRoutes::ByModel<v1::ParseInputRequest, ParseInputOf>,
     "ParseInputRequest"},
    {"/v1/play", false, true, &HttpRoutes::ByModel<v1::PlayRequest, PlayOf>, "PlayRequest"},
};

std::vector<std::pair<std::string_view, std::string_view>> HttpRoutes::Endpoints() {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (const Row& row : kRows) out.emplace_back(row.path, AllowedOf(row));
  return out;
}

HttpRoutes::HttpRoutes(CallEnv env, std::function<bool()> serving, HttpRoutesOptions options)
    : env_(env), serving_(std::move(serving)), options_(options) {
  for (const WebAsset& asset : WebAssets()) {
    char tag[32];
    std::snprintf(tag, sizeof tag, "\"%016llx\"",
                  static_cast<unsigned long long>(Fingerprint(asset.body)));
    asset_tags_.emplace_back(tag);
  }
}

HttpRoutes::~HttpRoutes() = default;

void HttpRoutes::Handle(const HttpRequestView& request,
                        std::shared_ptr<const std::atomic<bool>> cancelled,
                        HttpReply reply) const {
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
  const bool get = request.method == "GET" || request.method == "HEAD";
  if ((get && !row->get) || (request.method == "POST" && !row->post) ||
      (!get && request.method != "POST")) {
    HttpAnswer answer = ErrorAnswer(405, absl::StatusCode::kUnimplemented,
                                    Cat(request.method, " ", row->path, " is not allowed; use ",
                                        AllowedOf(*row)));
    answer.Set("Allow", std::string(AllowedOf(*row)));
    reply(std::move(answer));
    return;
  }
  const Call call{request, *row, std::chrono::steady_clock::now(), std::move(cancelled), reply};
  (this->*(row->handler))(call);
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
  AnswerCall(
      env_, Transport::kHttp, request, response.get(),
      [&env, cancelled](uint32_t timeout_ms) {
        return CallLimits(env, std::nullopt, timeout_ms, cancelled);
      },
      [response, from_query, if_none_match = std::move(if_none_match), keep = call.cancelled,
       reply = std::move(call.reply)](const absl::Status& status) {
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
        if (!tag.empty() && Matches(if_none_match, tag)) {
          answer = NotModified(tag);
        } else {
          answer = JsonAnswer(*response);
          if (!tag.empty()) answer.Set("ETag", tag);
        }
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
        HttpAnswer answer = status.ok() ? JsonAnswer(*response) : ErrorAnswer(status);
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
