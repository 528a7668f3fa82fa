#include "server/http/strict_json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/util/strings.h"
#include "core/util/text_input.h"
#include "rapidjson/error/en.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/reader.h"

namespace puzzledb {
namespace {

// Counts the depth and checks numbers; a `false` stops the reader (kParseErrorTermination)
// with `fault` saying why.
class Checker : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Checker> {
 public:
  explicit Checker(int max_depth) : max_depth_(max_depth) {}

  bool Default() { return true; }
  bool StartObject() { return Deeper(/*array=*/false); }
  // No field of the API is an array of arrays (protobuf's parser reads `[[...]]` for a
  // repeated message as nothing at all).
  bool StartArray() {
    if (depth_ > 0 && in_array_[static_cast<size_t>(depth_ - 1)]) {
      fault_ = "an array inside an array: no field of the API takes one";
      return false;
    }
    return Deeper(/*array=*/true);
  }
  bool EndObject(rapidjson::SizeType) { return Shallower(); }
  bool EndArray(rapidjson::SizeType) { return Shallower(); }
  // Numbers come as their text (kParseNumbersAsStringsFlag). Integers are left to the
  // field that reads them (protobuf checks each against its type); a fraction or an
  // exponent must fit a double, neither overflowing nor underflowing (ERANGE, as strtod
  // says): `1e-400` is refused, not read as 0.
  bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
    const std::string_view number(text, length);
    if (number.find_first_of(".eE") == std::string_view::npos) return true;
    const std::string copy(number);
    errno = 0;
    const double value = std::strtod(copy.c_str(), nullptr);
    if (errno == ERANGE || std::isinf(value)) {
      fault_ = Cat("the number ", QuoteInput(number), " is outside the range of a double");
      return false;
    }
    return true;
  }

  const std::string& fault() const { return fault_; }

 private:
  bool Deeper(bool array) {
    if (++depth_ > max_depth_) {
      fault_ = Cat("objects and arrays nested more than ", max_depth_, " deep");
      return false;
    }
    in_array_.push_back(array);
    return true;
  }
  bool Shallower() {
    --depth_;
    in_array_.pop_back();
    return true;
  }

  const int max_depth_;
  int depth_ = 0;
  std::vector<bool> in_array_;  // of each open container, whether it is an array
  std::string fault_;
};

absl::Status NotJson(std::string_view body, size_t offset, std::string_view why) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < body.size(); ++i) {
    if (body[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return absl::InvalidArgumentError(Cat("body: not JSON (RFC 8259) at byte ", offset, " (line ",
                                        line, ", column ", column, "): ", why));
}

}  // namespace

absl::Status CheckStrictJson(std::string_view body, int max_depth) {
  // The reader takes a NUL byte for the end of its input; JSON has none outside a string,
  // and a string holds it escaped.
  if (const void* nul = std::memchr(body.data(), '\0', body.size())) {
    return NotJson(body, static_cast<size_t>(static_cast<const char*>(nul) - body.data()),
                   "a NUL byte");
  }
  Checker checker(max_depth);
  rapidjson::MemoryStream stream(body.data(), body.size());
  rapidjson::Reader reader;
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag |
                              rapidjson::kParseValidateEncodingFlag |
                              rapidjson::kParseNumbersAsStringsFlag;
  const rapidjson::ParseResult result = reader.Parse<kFlags>(stream, checker);
  if (result) return absl::OkStatus();
  const std::string why = result.Code() == rapidjson::kParseErrorTermination
                              ? checker.fault()
                              : rapidjson::GetParseError_En(result.Code());
  return NotJson(body, result.Offset(), why);
}

}  // namespace puzzledb
