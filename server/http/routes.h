// The HTTP API's endpoints (docs/API.md, "HTTP"): one table, a row per path with the methods
// it allows and its handler. Apart from any engine: a request comes in as a view of what was
// read, and its answer goes out through a callback, at once (table answers, errors, the page)
// or from the search pool's delivery thread (searches).
#ifndef PUZZLEDB_SERVER_HTTP_ROUTES_H_
#define PUZZLEDB_SERVER_HTTP_ROUTES_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/call.h"
#include "server/http/request_parse.h"
#include "server/http/response.h"

namespace puzzledb {

// The one path whose bodies may be larger than one request's (HttpOptions).
inline constexpr std::string_view kBatchPath = "/v1/solve/batch";

// A whole request as read: method, decoded target, the headers a handler reads, the body
// (decoded, when it came with a Content-Encoding).
struct HttpRequestView {
  std::string_view method;
  const HttpTarget* target = nullptr;
  std::string_view content_type;
  std::string_view if_none_match;
  std::string_view if_modified_since;
  std::string_view request_id;  // X-Request-Id
  std::string_view origin;
  std::string_view access_control_request_method;  // of a CORS preflight
  std::string_view body;
};


// Called once with the answer, from any thread.
using HttpReply = std::function<void(HttpAnswer)>;

struct HttpRoutesOptions {
  bool api = true;      // /v1/..., the page and /healthz
  bool metrics = true;  // /metrics (off on the API's address with --metrics-listen)
  size_t max_body_bytes = 64 << 10;
  // The origins whose pages may call the API (CORS, docs/API.md "Cross-origin requests"):
  // "scheme://host[:port]" each, or "*" for any; empty: none.
  std::vector<std::string> cors_origins;
  // Every request on a line of the log (else only those that failed with 500).
  bool access_log = false;
  std::function<void(std::string_view)> log;
};

// Why a --http-cors-origins entry is not an origin, or nothing.
std::optional<std::string> BadCorsOrigin(std::string_view origin);

class HttpRoutes {
 public:
  // What `env` points to must outlive this; `serving` answers /healthz.
  HttpRoutes(CallEnv env, std::function<bool()> serving, HttpRoutesOptions options);
  ~HttpRoutes();

  // Answers `request` through `reply`. A search reads `*cancelled` (the engine sets it when
  // the client goes away or the server stops waiting); the pointer is kept until `reply`.
  void Handle(const HttpRequestView& request, std::shared_ptr<const std::atomic<bool>> cancelled,
              HttpReply reply) const;

  // What every answer carries, set on one the engine made itself (a request it could not
  // read whole: 408, 413, 431, a bad Content-Encoding, not HTTP): CORS's headers for an
  // allowed `origin` ("" when the request's head was not read), and its line in the access
  // log (`method` and `path` "-" when unknown), under `request_id`.
  void FinishRefusal(std::string_view origin, std::string_view method, std::string_view path,
                     std::string_view request_id, std::chrono::steady_clock::time_point started,
                     HttpAnswer* answer) const;

  // Every path served and the methods it takes ("GET, HEAD", "POST" or "GET, HEAD, POST"),
  // for the test that holds docs/openapi.json to them.
  static std::vector<std::pair<std::string_view, std::string_view>> Endpoints();

  struct Row;

 private:
  struct Call;
  static constexpr int kRowCount = 15;
  static const Row kRows[kRowCount];

  // The request's answer `reply` with what every answer carries: X-Request-Id, CORS's
  // headers, and its line in the log.
  HttpReply Decorated(const HttpRequestView& request, std::string request_id,
                      HttpReply reply) const;
  // The CORS headers and the log line of an answer (Decorated's and FinishRefusal's).
  void Finish(std::string_view allow_origin, std::string_view line, std::string_view request_id,
              std::chrono::steady_clock::time_point started, HttpAnswer* answer) const;
  std::optional<HttpAnswer> Preflight(const HttpRequestView& request, const Row& row) const;
  // When the table build `table_id`.`generation` was made (Unix seconds), if it is known.
  std::optional<int64_t> BuiltAt(const std::string& table_id, uint64_t generation) const;

  std::optional<HttpAnswer> ReadBody(const Call& call, CallMethod method,
                                     google::protobuf::Message* out) const;
  void File(const Call& call) const;  // the page and the OpenAPI document (WebAssets)
  void Health(const Call& call) const;
  void Metrics(const Call& call) const;
  void Tables(const Call& call) const;
  void PuzzleList(const Call& call) const;
  template <class Request, class Response>
  void Answer(const Call& call) const;
  template <class Request, auto kAnswer>
  void ByModel(const Call& call) const;
  void Batch(const Call& call) const;

  const CallEnv env_;
  const std::function<bool()> serving_;
  const HttpRoutesOptions options_;
  std::vector<std::string> asset_tags_;  // the page's ETags, in WebAssets() order
  // Each file's gzip and brotli bodies, encoded once here (null: sent as it is).
  std::vector<std::shared_ptr<const EncodedBodies>> asset_encoded_;
  mutable std::mutex built_mutex_;
  // table id -> (generation, build time in Unix seconds; 0 when unknown)
  mutable std::map<std::string, std::pair<uint64_t, int64_t>> built_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_HTTP_ROUTES_H_
