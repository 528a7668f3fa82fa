// Messages as JSON, the one way every binary prints them: protobuf's JSON mapping with the
// .proto field names and every field printed (zeros included), so that a reader sees the
// whole schema.
#ifndef PUZZLEDB_SERVICE_JSON_H_
#define PUZZLEDB_SERVICE_JSON_H_

#include <string>

#include "google/protobuf/message.h"

namespace puzzledb {

enum class JsonLayout { kOneLine, kIndented };

std::string ToJson(const google::protobuf::Message& message, JsonLayout layout);
// The same through protobuf's printer always (ToJson takes a direct path for one line; the
// tests compare the two).
std::string ToJsonByProtobuf(const google::protobuf::Message& message, JsonLayout layout);
// The direct path alone: false (and *json unspecified) when the message needs protobuf's
// printer (floating point, bytes, maps, well-known types, strings it escapes).
bool ToJsonDirect(const google::protobuf::Message& message, std::string* json);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_JSON_H_
