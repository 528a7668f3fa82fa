// What the HTTP API answers, before any engine writes it: the status, the headers of our
// own, and the body. Errors are a JSON object {"code": "...", "message": "..."} whose code is
// the gRPC code's name and whose status follows it (docs/API.md, "Errors").
#ifndef PUZZLEDB_SERVER_HTTP_RESPONSE_H_
#define PUZZLEDB_SERVER_HTTP_RESPONSE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace puzzledb {

struct EncodedBodies;  // server/http/content_coding.h

struct HttpAnswer {
  int status = 200;
  std::string content_type;  // empty: no body (a 304)
  std::string body;
  // `body` encoded already (a file's, at start): sent in place of encoding it per answer.
  std::shared_ptr<const EncodedBodies> encoded;
  std::vector<std::pair<std::string, std::string>> headers;  // beside Content-Type and -Length
  bool close = false;  // the connection is not to be reused (the body was not read)

  void Set(std::string_view name, std::string value);
  bool Has(std::string_view name) const;
  // Adds `name` to the Vary header (once).
  void AddVary(std::string_view name);
};

// X-Request-Id: what a client may send (any visible ASCII but quotes and backslashes, at
// most this long); else the server makes one, 16 random hexadecimal digits.
inline constexpr size_t kMaxRequestIdBytes = 128;
bool GoodRequestId(std::string_view id);
std::string NewRequestId();
// `sent` if it is good, else a new one.
std::string RequestIdFor(std::string_view sent);

// The HTTP status of a gRPC (absl) status code.
int HttpStatusOf(absl::StatusCode code);

// A JSON string literal. Bytes outside printable ASCII are escaped one by one, so the result
// is valid JSON whatever bytes a message quotes.
std::string JsonQuote(std::string_view text);

// An error answer, "Cache-Control: no-store". One whose status carries a retry hint
// (service/retry_hint.h) says when in `Retry-After`, in whole seconds.
HttpAnswer ErrorAnswer(int http_status, absl::StatusCode code, std::string_view message);
HttpAnswer ErrorAnswer(int http_status, const absl::Status& status);
HttpAnswer ErrorAnswer(const absl::Status& status);
// A message in protobuf's JSON mapping on one line, status 200.
HttpAnswer JsonAnswer(const google::protobuf::Message& message);

// W/"<table>.<generation>.<crc>", from an answer's provenance: it changes whenever the table
// is rebuilt. Weak (RFC 9110, section 8.8.1): answers from one build mean the same, but their
// bytes differ (`micros`, and the content coding). Empty for an answer no table gave.
std::string EntityTag(std::string_view table_id, uint64_t generation, uint32_t crc32);
// Whether an If-None-Match header's list names `tag`, by weak comparison (RFC 9110, section
// 13.1.2), or is "*" (`tag` may then be empty: any current answer matches).
bool Matches(std::string_view if_none_match, std::string_view tag);

// An HTTP date (RFC 9110, section 5.6.7: "Sun, 06 Nov 1994 08:49:37 GMT") of a Unix time in
// seconds, and back (the IMF-fixdate form only; nothing for anything else).
std::string HttpDate(int64_t unix_seconds);
std::optional<int64_t> ParseHttpDate(std::string_view text);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_HTTP_RESPONSE_H_
