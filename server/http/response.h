// What the HTTP API answers, before any engine writes it: the status, the headers of our
// own, and the body. Errors are a JSON object {"code": "...", "message": "..."} whose code is
// the gRPC code's name and whose status follows it (docs/API.md, "Errors").
#ifndef PUZZLEDB_SERVER_HTTP_RESPONSE_H_
#define PUZZLEDB_SERVER_HTTP_RESPONSE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace puzzledb {

struct HttpAnswer {
  int status = 200;
  std::string content_type;  // empty: no body (a 304)
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // beside Content-Type and -Length
  bool close = false;  // the connection is not to be reused (the body was not read)

  void Set(std::string_view name, std::string value);
};

// The HTTP status of a gRPC (absl) status code.
int HttpStatusOf(absl::StatusCode code);

// A JSON string literal. Bytes outside printable ASCII are escaped one by one, so the result
// is valid JSON whatever bytes a message quotes.
std::string JsonQuote(std::string_view text);

// An error answer, "Cache-Control: no-store".
HttpAnswer ErrorAnswer(int http_status, absl::StatusCode code, std::string_view message);
HttpAnswer ErrorAnswer(const absl::Status& status);
// A message in protobuf's JSON mapping on one line, status 200.
HttpAnswer JsonAnswer(const google::protobuf::Message& message);

// "<table>.<generation>.<crc>" in quotes, from an answer's provenance: it changes whenever
// the table is rebuilt. Empty for an answer no table gave.
std::string EntityTag(std::string_view table_id, uint64_t generation, uint32_t crc32);
// Whether an If-None-Match header names `tag`.
bool Matches(std::string_view if_none_match, std::string_view tag);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_HTTP_RESPONSE_H_
