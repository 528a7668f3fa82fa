#include "server/http/strict_json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/util/strings.h"
#include "core/util/text_input.h"
#include "nlohmann/json.hpp"

namespace puzzledb {
namespace {

using Json = nlohmann::json;

// Why the reader was stopped by a check of ours: what is wrong, and which structure or
// number it is (to find its byte: Locate).
struct Fault {
  enum class Kind { kNone, kTooDeep, kArrayInArray, kNumber, kDuplicateKey } kind = Kind::kNone;
  std::string what;
  // kNumber: the index of the number among the body's numbers; kDuplicateKey, of the key
  // among its keys.
  size_t number = 0;
};

// Counts the depth, and the numbers, and checks each number; a `false` stops the reader
// with `fault` saying why.
class Checker final : public nlohmann::json_sax<Json> {
 public:
  explicit Checker(int max_depth) : max_depth_(max_depth) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return Counted(); }
  bool number_unsigned(number_unsigned_t) override { return Counted(); }
  // A fraction or an exponent must fit a double, neither overflowing nor underflowing
  // (ERANGE, as strtod says of the number's own text): `1e-400` is refused, not read as 0.
  // Integers are left to the field that reads them (protobuf checks each against its type).
  bool number_float(number_float_t, const string_t& text) override {
    errno = 0;
    const double value = std::strtod(text.c_str(), nullptr);
    if (errno == ERANGE || std::isinf(value)) {
      fault_ = {Fault::Kind::kNumber,
                Cat("the number ", QuoteInput(text), " is outside the range of a double"),
                numbers_};
      return false;
    }
    return Counted();
  }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  // A key twice in one object: protobuf's parser merges the two, the last one winning, so
  // that `{"puzzle":{…},"puzzle":{…}}` asked for the second puzzle. RFC 8259 (section 4)
  // leaves such an object's meaning open: it is refused.
  bool key(string_t& key) override {
    if (!keys_.back().insert(key).second) {
      fault_ = {Fault::Kind::kDuplicateKey,
                Cat("the key ", QuoteInput(key), " twice in one object; send each key once"),
                keys_seen_};
      return false;
    }
    ++keys_seen_;
    return true;
  }
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return Deeper(/*array=*/false);
  }
  bool end_object() override {
    keys_.pop_back();
    return Shallower();
  }
  // No field of the API is an array of arrays (protobuf's parser reads `[[...]]` for a
  // repeated message as nothing at all).
  bool start_array(std::size_t) override {
    if (!in_array_.empty() && in_array_.back()) {
      fault_ = {Fault::Kind::kArrayInArray, "an array inside an array: no field of the API takes one"};
      return false;
    }
    return Deeper(/*array=*/true);
  }
  bool end_array() override { return Shallower(); }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& error) override {
    error_position_ = position;
    error_ = error.what();
    return false;
  }

  const Fault& fault() const { return fault_; }
  size_t error_position() const { return error_position_; }
  const std::string& error() const { return error_; }

 private:
  bool Counted() {
    ++numbers_;
    return true;
  }
  bool Deeper(bool array) {
    if (static_cast<int>(in_array_.size()) >= max_depth_) {
      fault_ = {Fault::Kind::kTooDeep, Cat("objects and arrays nested more than ", max_depth_, " deep")};
      return false;
    }
    in_array_.push_back(array);
    return true;
  }
  bool Shallower() {
    in_array_.pop_back();
    return true;
  }

  const int max_depth_;
  std::vector<bool> in_array_;  // of each open container, whether it is an array
  std::vector<std::unordered_set<std::string>> keys_;  // of each open object
  size_t keys_seen_ = 0;
  size_t numbers_ = 0;
  Fault fault_;
  size_t error_position_ = 0;
  std::string error_;
};

// The byte of a fault of ours. The body is valid JSON up to it (the reader stops at the
// fault), so a scan of its brackets, number tokens and keys (the strings where an object
// wants a key: after its `{` or a comma) outside strings finds it.
size_t Locate(std::string_view body, const Fault& fault, int max_depth) {
  std::string open;
  size_t numbers = 0, keys = 0;
  bool in_string = false, escaped = false, in_number = false, key_next = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"' && key_next) {
      if (fault.kind == Fault::Kind::kDuplicateKey && keys == fault.number) return i;
      ++keys;
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      key_next = c == '{' || (c == ',' && !open.empty() && open.back() == '{');
    }
    const bool number_char = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
                             c == 'e' || c == 'E';
    if (number_char && !in_number && (c == '-' || (c >= '0' && c <= '9'))) {
      if (fault.kind == Fault::Kind::kNumber && numbers == fault.number) return i;
      ++numbers;
    }
    in_number = number_char;
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (fault.kind == Fault::Kind::kArrayInArray && c == '[' && !open.empty() &&
          open.back() == '[') {
        return i;
      }
      if (fault.kind == Fault::Kind::kTooDeep && static_cast<int>(open.size()) >= max_depth) {
        return i;
      }
      open.push_back(c);
    } else if ((c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
    }
  }
  return body.size();
}

// "body: <lead> at byte 14 (line 1, column 15): <why>".
absl::Status Refusal(std::string_view body, size_t offset, std::string_view lead,
                     std::string_view why) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < body.size(); ++i) {
    if (body[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return absl::InvalidArgumentError(Cat("body: ", lead, " at byte ", offset, " (line ", line,
                                        ", column ", column, "): ", why));
}

absl::Status NotJson(std::string_view body, size_t offset, std::string_view why) {
  return Refusal(body, offset, "not JSON (RFC 8259)", why);
}

}  // namespace

absl::Status CheckStrictJson(std::string_view body, int max_depth) {
  // The reader takes a NUL byte for the end of its input; JSON has none outside a string,
  // and a string holds it escaped.
  if (const size_t nul = body.find('\0'); nul != std::string_view::npos) {
    return NotJson(body, nul, "a NUL byte");
  }
  Checker checker(max_depth);
  if (Json::sax_parse(body.begin(), body.end(), &checker, nlohmann::detail::input_format_t::json,
                      /*strict=*/true, /*ignore_comments=*/false)) {
    return absl::OkStatus();
  }
  if (checker.fault().kind == Fault::Kind::kDuplicateKey) {
    return Refusal(body, Locate(body, checker.fault(), max_depth),
                   "an object of no one meaning (RFC 8259, section 4)", checker.fault().what);
  }
  if (checker.fault().kind != Fault::Kind::kNone) {
    return NotJson(body, Locate(body, checker.fault(), max_depth), checker.fault().what);
  }
  // The library's message: "[json.exception.parse_error.101] parse error at line 1, column
  // 43: syntax error while parsing object key - unexpected '}'; expected string literal";
  // the part after the location is what went wrong.
  std::string why = checker.error();
  if (const size_t colon = why.find(": "); colon != std::string::npos) why = why.substr(colon + 2);
  const size_t position = checker.error_position();
  return NotJson(body, position > 0 ? position - 1 : 0, why);
}

}  // namespace puzzledb
