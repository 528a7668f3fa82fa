// The gate every POST body passes before protobuf's JSON parser reads it: JSON exactly as
// RFC 8259 defines it, nested at most kMaxJsonDepth deep (objects and arrays alike), no
// array directly inside an array (no field of the API is one), every number within a
// double's range, no key twice in one object. Protobuf's parser is lenient (trailing commas, single
// quotes, `1e-400` read as 0) and, on arrays nested a million deep, takes seconds and
// gigabytes (docs/OPERATIONS.md, "Memory"); this one reads any body in one pass, in time
// and memory linear in its size, holding nothing but its depth.
//
// nlohmann/json's SAX reader (Debian's nlohmann-json3-dev, header-only) does the reading:
// strict (RFC 8259; UTF-8 checked as RFC 3629 says), iterative (no recursion on nesting),
// its errors placed by byte. Chosen over a hand-written reader because the grammar's
// corners (escapes, surrogates, number syntax) are what a well-used, heavily fuzzed library
// gets right; RapidJSON 1.1.0 (Debian's) was tried first and read past the end of its
// input on a truncated UTF-8 sequence under this project's own fuzzing.
#ifndef PUZZLEDB_SERVER_HTTP_STRICT_JSON_H_
#define PUZZLEDB_SERVER_HTTP_STRICT_JSON_H_

#include <string_view>

#include "absl/status/status.h"

namespace puzzledb {

// Deep enough for every message of the API (a batch's puzzle sits at depth 6), shallow
// enough that a refusal is immediate.
inline constexpr int kMaxJsonDepth = 32;

// OK, or INVALID_ARGUMENT naming the byte offset, line and column of the first fault and
// what it is ("body: not JSON (RFC 8259) at byte 14 (line 1, column 15): ..."). A key twice
// in one object is refused too ("body: an object of no one meaning (RFC 8259, section 4)
// at byte 42 ...: the key 'puzzle' twice in one object; ..."): protobuf's parser would keep
// the last one.
absl::Status CheckStrictJson(std::string_view body, int max_depth = kMaxJsonDepth);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_HTTP_STRICT_JSON_H_
