// libFuzzer target: any bytes as a POST body through the strict JSON gate
// (server/http/strict_json.h) that stands before protobuf's parser. Nothing may crash or
// hang, whatever the nesting; a refusal is INVALID_ARGUMENT naming the byte it stopped at
// (a key given twice, the opening quote of its second);
// and what it lets through is nested no deeper than kMaxJsonDepth, has no array directly
// inside an array, holds no NUL byte and is not blank (a scan of its brackets outside
// strings says so independently).
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/util/strings.h"
#include "server/http/strict_json.h"

namespace {

// The deepest nesting of brackets outside strings; -1 if an array opens directly inside
// an array.
int DepthOf(std::string_view text) {
  std::string open;  // the brackets open now
  int deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (c == '[' && !open.empty() && open.back() == '[') return -1;
      open.push_back(c);
      deepest = std::max(deepest, static_cast<int>(open.size()));
    } else if ((c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
    }
  }
  return deepest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const absl::Status status = puzzledb::CheckStrictJson(body);
  if (!status.ok()) {
    if (!absl::IsInvalidArgument(status)) std::abort();
    const std::string_view message = puzzledb::Message(status);
    const size_t at = message.find("at byte ");
    if (at == std::string_view::npos) std::abort();
    // A key given twice is placed at its second opening quote. (The refusal's lead says so:
    // the words after it may quote the body.)
    if (message.rfind("body: an object of no one meaning", 0) == 0) {
      const size_t offset = std::strtoul(std::string(message.substr(at + 8, 12)).c_str(), nullptr, 10);
      if (offset >= body.size() || body[offset] != '"') std::abort();
    }
    return 0;
  }
  const int depth = DepthOf(body);
  if (depth < 0 || depth > puzzledb::kMaxJsonDepth) std::abort();
  if (body.find('\0') != std::string_view::npos) std::abort();
  const size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) std::abort();  // an empty body is not JSON
  return 0;
}
