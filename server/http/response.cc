#include "server/http/response.h"

#include <cstdio>

#include "core/util/strings.h"
#include "service/json.h"

namespace puzzledb {

void HttpAnswer::Set(std::string_view name, std::string value) {
  for (auto& [key, old] : headers) {
    if (key == name) {
      old = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::string(name), std::move(value));
}

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

HttpAnswer ErrorAnswer(int http_status, absl::StatusCode code, std::string_view message) {
  HttpAnswer answer;
  answer.status = http_status;
  answer.content_type = "application/json";
  answer.body = Cat("{\"code\":", JsonQuote(absl::StatusCodeToString(code)),
                    ",\"message\":", JsonQuote(message), "}\n");
  answer.Set("Cache-Control", "no-store");
  return answer;
}

HttpAnswer ErrorAnswer(const absl::Status& status) {
  return ErrorAnswer(HttpStatusOf(status.code()), status.code(), Message(status));
}

HttpAnswer JsonAnswer(const google::protobuf::Message& message) {
  HttpAnswer answer;
  answer.content_type = "application/json";
  answer.body = ToJson(message, JsonLayout::kOneLine);
  answer.body.push_back('\n');
  return answer;
}

std::string EntityTag(std::string_view table_id, uint64_t generation, uint32_t crc32) {
  if (table_id.empty()) return {};
  char numbers[48];
  std::snprintf(numbers, sizeof numbers, ".%llx.%08x", static_cast<unsigned long long>(generation),
                crc32);
  return Cat("\"", table_id, numbers, "\"");
}

bool Matches(std::string_view if_none_match, std::string_view tag) {
  return !if_none_match.empty() &&
         (if_none_match == tag || if_none_match.find(tag) != std::string_view::npos);
}

}  // namespace puzzledb
