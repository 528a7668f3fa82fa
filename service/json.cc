#include "service/json.h"

#include "google/protobuf/util/json_util.h"

namespace puzzledb {

std::string ToJson(const google::protobuf::Message& message, JsonLayout layout) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  options.add_whitespace = layout == JsonLayout::kIndented;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(message, &json, options).ok()) {
    return R"({"error":"cannot print JSON"})";
  }
  return json;
}

}  // namespace puzzledb
