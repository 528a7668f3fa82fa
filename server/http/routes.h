// The HTTP API's endpoints (docs/API.md, "HTTP"): one table, a row per path with the methods
// it allows and its handler. Apart from any engine: a request comes in as a view of what was
// read, and its answer goes out through a callback, at once (table answers, errors, the page)
// or from the search pool's delivery thread (searches).
#ifndef PUZZLEDB_SERVER_HTTP_ROUTES_H_
#define PUZZLEDB_SERVER_HTTP_ROUTES_H_

#include <atomic>
#include <functional>
#include <memory>
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

// A whole request as read: method, decoded target, the headers a handler reads, the body.
struct HttpRequestView {
  std::string_view method;
  const HttpTarget* target = nullptr;
  std::string_view content_type;
  std::string_view if_none_match;
  std::string_view body;
};

// Called once with the answer, from any thread.
using HttpReply = std::function<void(HttpAnswer)>;

struct HttpRoutesOptions {
  bool api = true;      // /v1/..., the page and /healthz
  bool metrics = true;  // /metrics (off on the API's address with --metrics-listen)
  size_t max_body_bytes = 64 << 10;
};

class HttpRoutes {
 public:
  // What `env` points to must outlive this; `serving` answers /healthz.
  HttpRoutes(CallEnv env, std::function<bool()> serving, HttpRoutesOptions options);
  ~HttpRoutes();

  // Answers `request` through `reply`. A search reads `*cancelled` (the engine sets it when
  // the client goes away or the server stops waiting); the pointer is kept until `reply`.
  void Handle(const HttpRequestView& request, std::shared_ptr<const std::atomic<bool>> cancelled,
              HttpReply reply) const;

  // Every path served and the methods it takes ("GET, HEAD", "POST" or "GET, HEAD, POST"),
  // for the test that holds docs/openapi.json to them.
  static std::vector<std::pair<std::string_view, std::string_view>> Endpoints();

  struct Row;

 private:
  struct Call;
  static constexpr int kRowCount = 15;
  static const Row kRows[kRowCount];

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
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_HTTP_ROUTES_H_
