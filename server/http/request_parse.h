// From the bytes a client sends to v1 requests: the request target (path and query), the
// query parameters of GET /v1/solve, /v1/analyze and /v1/sample, and POST bodies in
// protobuf's JSON mapping (docs/API.md, "HTTP"). The one parser that faces the network, so it
// has a fuzz target of its own (fuzz/fuzz_http_request.cc). Every error is INVALID_ARGUMENT
// and names the part of the request that was wrong.
#ifndef PUZZLEDB_SERVER_HTTP_REQUEST_PARSE_H_
#define PUZZLEDB_SERVER_HTTP_REQUEST_PARSE_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "puzzledb/v1/solver.pb.h"
#include "service/request_handler.h"

namespace puzzledb {

// A request target, percent-decoded: the path ("/v1/solve") and the query's parameters in
// the order given ('+' in the query is a space, as in HTML forms).
struct HttpTarget {
  std::string path;
  std::vector<std::pair<std::string, std::string>> params;

  // The first value of `name`, or null.
  const std::string* Find(std::string_view name) const;
  size_t Count(std::string_view name) const;
};

// At most this many bytes of target (longer ones are refused before parsing).
inline constexpr size_t kMaxTargetBytes = 8192;

absl::StatusOr<HttpTarget> ParseTarget(std::string_view target);

// The fields of a request from a GET query (docs/API.md, "HTTP"). Unknown and repeated
// parameters are refused. With `parsed`, the puzzle is parsed into it (once, by its model)
// and out->puzzle() is left empty.
absl::Status RequestFromQuery(const HttpTarget& target, v1::SolveRequest* out,
                              Position* parsed = nullptr);
absl::Status RequestFromQuery(const HttpTarget& target, v1::AnalyzeRequest* out,
                              Position* parsed = nullptr);
absl::Status RequestFromQuery(const HttpTarget& target, v1::SampleRequest* out);

// Refuses a query that has a parameter not in `known` (names separated by ", "; empty: the
// path takes no parameters) or one given twice; `what` names the request ("GET /v1/tables").
absl::Status OnlyParams(const HttpTarget& target, std::string_view known, std::string_view what);

// Why a POST body with this Content-Type is not read (415), or nothing for JSON.
std::optional<std::string> WrongContentType(std::string_view content_type,
                                            std::string_view message_name);

// A request message from a POST body in protobuf's JSON mapping; unknown fields refused.
absl::Status RequestFromBody(std::string_view body, google::protobuf::Message* out);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_HTTP_REQUEST_PARSE_H_
