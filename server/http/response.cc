#include "server/http/response.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>

#include "core/util/strings.h"
#include "service/json.h"
#include "service/retry_hint.h"

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

void HttpAnswer::AddVary(std::string_view name) {
  for (auto& [key, value] : headers) {
    if (key != "Vary") continue;
    for (std::string_view rest = value; !rest.empty();) {
      const size_t comma = rest.find(", ");
      if (rest.substr(0, comma) == name) return;
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
    }
    value = Cat(value, ", ", name);
    return;
  }
  headers.emplace_back("Vary", std::string(name));
}

bool GoodRequestId(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdBytes) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return c > 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
}

std::string NewRequestId() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  char id[20];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(random()));
  return id;
}

std::string RequestIdFor(std::string_view sent) {
  return GoodRequestId(sent) ? std::string(sent) : NewRequestId();
}

bool HttpAnswer::Has(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return true;
  }
  return false;
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

HttpAnswer ErrorAnswer(int http_status, const absl::Status& status) {
  HttpAnswer answer = ErrorAnswer(http_status, status.code(), Message(status));
  if (auto after = RetryHintOf(status)) {
    answer.Set("Retry-After", std::to_string(std::max<int64_t>(1, (after->count() + 999) / 1000)));
  }
  return answer;
}

HttpAnswer ErrorAnswer(const absl::Status& status) {
  return ErrorAnswer(HttpStatusOf(status.code()), status);
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
  return Cat("W/\"", table_id, numbers, "\"");
}

namespace {

std::string_view Opaque(std::string_view tag) {
  return tag.substr(0, 2) == "W/" ? tag.substr(2) : tag;
}

}  // namespace

bool Matches(std::string_view if_none_match, std::string_view tag) {
  if (StripWhitespace(if_none_match) == "*") return true;
  if (tag.empty()) return false;
  // Entity tags hold no commas (RFC 9110, section 8.8.3), so the list splits at them.
  while (!if_none_match.empty()) {
    const size_t comma = if_none_match.find(',');
    if (Opaque(StripWhitespace(if_none_match.substr(0, comma))) == Opaque(tag)) return true;
    if (comma == std::string_view::npos) break;
    if_none_match.remove_prefix(comma + 1);
  }
  return false;
}

std::string HttpDate(int64_t unix_seconds) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm;
  gmtime_r(&t, &tm);
  char out[40];
  std::snprintf(out, sizeof out, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday],
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return out;
}

std::optional<int64_t> ParseHttpDate(std::string_view text) {
  static constexpr std::string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
  text = StripWhitespace(text);
  // "Sun, 06 Nov 1994 08:49:37 GMT": 29 characters, fixed positions.
  if (text.size() != 29 || text.substr(3, 2) != ", " || text.substr(25) != " GMT") {
    return std::nullopt;
  }
  auto number = [&](size_t at, size_t digits) -> std::optional<int> {
    int n = 0;
    for (size_t i = at; i < at + digits; ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      n = n * 10 + (text[i] - '0');
    }
    return n;
  };
  const size_t month = kMonths.find(text.substr(8, 3));
  const auto day = number(5, 2), year = number(12, 4), hour = number(17, 2),
             minute = number(20, 2), second = number(23, 2);
  if (month == std::string_view::npos || month % 3 != 0 || !day || !year || !hour || !minute ||
      !second || text[7] != ' ' || text[11] != ' ' || text[16] != ' ' || text[19] != ':' ||
      text[22] != ':' || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  struct tm tm = {};
  tm.tm_year = *year - 1900;
  tm.tm_mon = static_cast<int>(month / 3);
  tm.tm_mday = *day;
  tm.tm_hour = *hour;
  tm.tm_min = *minute;
  tm.tm_sec = *second;
  return static_cast<int64_t>(timegm(&tm));
}

}  // namespace puzzledb
