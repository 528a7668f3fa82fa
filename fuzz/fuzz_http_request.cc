// libFuzzer target: the bytes of one HTTP request as a client sends them, through what the
// server's HTTP engine does before any handler runs (docs/API.md, "HTTP"): Beast's request
// parser under the engine's limits, then the target (path and query), the query of each GET
// endpoint, the body's Content-Encoding decoded (server/http/content_coding.h) and the body
// as each POST message (server/http/request_parse.h). Nothing may crash or hang; every
// refusal must be INVALID_ARGUMENT with a message that says where ("query: ...", "body:
// ...", "path: ..."), a query that parses names its puzzle, and a decoded body is never
// larger than the limit, its refusals 400, 413 or 415.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "core/util/strings.h"
#include "server/http/content_coding.h"
#include "server/http/request_parse.h"

namespace {

void Check(const absl::Status& status) {
  if (status.ok()) return;
  if (!absl::IsInvalidArgument(status)) std::abort();
  if (puzzledb::Message(status).find(':') == std::string_view::npos &&
      puzzledb::Message(status).find("request target") == std::string_view::npos) {
    std::abort();
  }
}

template <class Request>
void FromQuery(const puzzledb::HttpTarget& target) {
  Request request;
  const absl::Status status = puzzledb::RequestFromQuery(target, &request);
  Check(status);
  if (status.ok() && !request.has_puzzle()) std::abort();
}

template <class Request>
void FromBody(std::string_view body) {
  Request request;
  Check(puzzledb::RequestFromBody(body, &request));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace http = boost::beast::http;
  http::request_parser<http::string_body> parser;
  parser.header_limit(16 << 10);
  parser.body_limit(64 << 10);
  parser.eager(true);
  boost::beast::error_code ec;
  size_t used = 0;
  // As the engine feeds it: what has arrived, again after each partial step.
  while (used < size && !parser.is_done()) {
    const size_t n = parser.put(boost::asio::buffer(data + used, size - used), ec);
    used += n;
    if (ec || n == 0) break;
  }
  if (!parser.is_done()) return 0;
  const auto& request = parser.get();
  const auto target = puzzledb::ParseTarget(
      std::string_view(request.target().data(), request.target().size()));
  Check(target.status());
  if (target.ok()) {
    FromQuery<puzzledb::v1::SolveRequest>(*target);
    FromQuery<puzzledb::v1::AnalyzeRequest>(*target);
    FromQuery<puzzledb::v1::SampleRequest>(*target);
  }
  const std::string_view type(request[http::field::content_type].data(),
                              request[http::field::content_type].size());
  (void)puzzledb::WrongContentType(type, "SolveRequest");
  std::string_view body = request.body();
  const auto coding = request[http::field::content_encoding];
  auto decoded = puzzledb::DecodeBody(std::string_view(coding.data(), coding.size()), body, 64 << 10);
  if (decoded.ok()) {
    if (decoded->size() > (64 << 10)) std::abort();
    body = *decoded;
  } else {
    const int status = puzzledb::DecodeErrorStatus(decoded.status());
    if (status != 400 && status != 413 && status != 415) std::abort();
    if (puzzledb::Message(decoded.status()).empty()) std::abort();
  }
  FromBody<puzzledb::v1::SolveRequest>(body);
  FromBody<puzzledb::v1::AnalyzeRequest>(body);
  FromBody<puzzledb::v1::SampleRequest>(body);
  FromBody<puzzledb::v1::ParseInputRequest>(body);
  FromBody<puzzledb::v1::PlayRequest>(body);
  return 0;
}
