// A refusal that may well succeed if the caller tries again a little later (the search pool
// or the memory budget is full, the server is stopping): the status carries when, and each
// transport says it its own way (docs/API.md, "Retries"): HTTP's Retry-After header, gRPC's
// `grpc-retry-pushback-ms` trailer (which gRPC's own retry policy honours), and a batch's or
// a stream's in-band Error.retry_after_ms. A refusal without the hint is not worth retrying
// as it was sent.
#ifndef PUZZLEDB_SERVICE_RETRY_HINT_H_
#define PUZZLEDB_SERVICE_RETRY_HINT_H_

#include <charconv>
#include <chrono>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"

namespace puzzledb {

// What the server suggests when it has no better figure: long enough for a search slot or
// some memory to come free, short enough for a restarted replica.
inline constexpr std::chrono::milliseconds kRetryAfter{1000};

inline constexpr char kRetryHintPayload[] = "type.puzzledb/retry-after-ms";

inline absl::Status WithRetryHint(absl::Status status, std::chrono::milliseconds after = kRetryAfter) {
  status.SetPayload(kRetryHintPayload, absl::Cord(std::to_string(after.count())));
  return status;
}

// The hint `status` carries, if any.
inline std::optional<std::chrono::milliseconds> RetryHintOf(const absl::Status& status) {
  const auto payload = status.GetPayload(kRetryHintPayload);
  if (!payload.has_value()) return std::nullopt;
  const std::string text(*payload);
  long long ms = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (error != std::errc() || end != text.data() + text.size() || ms < 0) return std::nullopt;
  return std::chrono::milliseconds(ms);
}

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_RETRY_HINT_H_
