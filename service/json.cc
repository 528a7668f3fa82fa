#include "service/json.h"

#include <cstdio>
#include <mutex>
#include <unordered_map>

#include "absl/strings/escaping.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"

namespace puzzledb {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

std::string ProtobufJson(const Message& message, JsonLayout layout) {
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

// Whether every field of `type`, and of the messages it holds, is of a kind the direct
// writer prints exactly as protobuf does: integers, bools, enums, strings, plain messages,
// repeated or not, bytes (in base64), proto3 `optional` fields (printed only when set).
// Floating point, maps, proto2 presence and the well-known types go to protobuf's printer.
// Cached per type.
bool DirectlyPrintable(const Descriptor* type) {
  static std::mutex mutex;
  static std::unordered_map<const Descriptor*, bool> known;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(type); it != known.end()) return it->second;
    known[type] = true;  // assumed while its fields are looked at (recursive types)
  }
  bool ok = type->file()->syntax() == google::protobuf::FileDescriptor::SYNTAX_PROTO3 &&
            type->file()->package() != "google.protobuf";
  for (int i = 0; ok && i < type->field_count(); ++i) {
    const FieldDescriptor* f = type->field(i);
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
      case FieldDescriptor::CPPTYPE_UINT32:
      case FieldDescriptor::CPPTYPE_INT64:
      case FieldDescriptor::CPPTYPE_UINT64:
      case FieldDescriptor::CPPTYPE_BOOL:
      case FieldDescriptor::CPPTYPE_ENUM:
        break;
      case FieldDescriptor::CPPTYPE_STRING:  // strings, and bytes in base64
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE:
        ok = !f->is_map() && DirectlyPrintable(f->message_type());
        break;
      default:
        ok = false;
    }
    // proto3 `optional` prints only when set: protobuf's printer knows the rule.
    if (f->has_presence() && f->containing_oneof() == nullptr && !f->is_repeated() &&
        f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      ok = false;
    }
  }
  std::lock_guard<std::mutex> lock(mutex);
  known[type] = ok;
  return ok;
}

// Strings of printable ASCII but the quote and the backslash print as they are; anything
// else (control bytes, UTF-8, characters protobuf escapes) sends the message to protobuf's
// printer, whose escaping is the reference.
bool PlainString(const std::string& s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' ||
        c == '\'' || c == '=') {
      return false;
    }
  }
  return true;
}

// Appends the value of field `f` (element `index` if repeated); false when a value needs
// protobuf's printer.
bool WriteValue(const Message& m, const Reflection* r, const FieldDescriptor* f, int index,
                std::string* out);

bool WriteMessage(const Message& m, std::string* out) {
  const Descriptor* type = m.GetDescriptor();
  const Reflection* r = m.GetReflection();
  out->push_back('{');
  bool first = true;
  // Protobuf's printer writes proto3 `optional` fields after all the others.
  for (int k = 0; k < 2 * type->field_count(); ++k) {
    const int i = k % type->field_count();
    const FieldDescriptor* f = type->field(i);
    const bool optional = f->has_optional_keyword();
    if (optional != (k >= type->field_count())) continue;
    if (f->is_repeated()) {
    } else if (f->containing_oneof() != nullptr || f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (!r->HasField(m, f)) continue;  // unset messages and oneof members are left out
    }
    if (!first) out->push_back(',');
    first = false;
    out->push_back('"');
    out->append(f->name());
    out->append("\":");
    if (f->is_repeated()) {
      out->push_back('[');
      const int n = r->FieldSize(m, f);
      for (int k = 0; k < n; ++k) {
        if (k > 0) out->push_back(',');
        if (!WriteValue(m, r, f, k, out)) return false;
      }
      out->push_back(']');
    } else if (!WriteValue(m, r, f, -1, out)) {
      return false;
    }
  }
  out->push_back('}');
  return true;
}

bool WriteValue(const Message& m, const Reflection* r, const FieldDescriptor* f, int index,
                std::string* out) {
  const bool rep = index >= 0;
  char number[32];
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      std::snprintf(number, sizeof number, "%d",
                    rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
      out->append(number);
      return true;
    case FieldDescriptor::CPPTYPE_UINT32:
      std::snprintf(number, sizeof number, "%u",
                    rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
      out->append(number);
      return true;
    case FieldDescriptor::CPPTYPE_INT64:  // 64-bit integers are strings in the mapping
      std::snprintf(number, sizeof number, "\"%lld\"",
                    static_cast<long long>(rep ? r->GetRepeatedInt64(m, f, index)
                                               : r->GetInt64(m, f)));
      out->append(number);
      return true;
    case FieldDescriptor::CPPTYPE_UINT64:
      std::snprintf(number, sizeof number, "\"%llu\"",
                    static_cast<unsigned long long>(rep ? r->GetRepeatedUInt64(m, f, index)
                                                        : r->GetUInt64(m, f)));
      out->append(number);
      return true;
    case FieldDescriptor::CPPTYPE_BOOL:
      out->append((rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false");
      return true;
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int value = rep ? r->GetRepeatedEnumValue(m, f, index) : r->GetEnumValue(m, f);
      const auto* named = f->enum_type()->FindValueByNumber(value);
      if (named == nullptr) {
        std::snprintf(number, sizeof number, "%d", value);
        out->append(number);
      } else {
        out->push_back('"');
        out->append(named->name());
        out->push_back('"');
      }
      return true;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& s = rep ? r->GetRepeatedStringReference(m, f, index, &scratch)
                                 : r->GetStringReference(m, f, &scratch);
      out->push_back('"');
      if (f->type() == FieldDescriptor::TYPE_BYTES) {
        out->append(absl::Base64Escape(s));  // standard alphabet, padded: protobuf's mapping
      } else {
        if (!PlainString(s)) return false;
        out->append(s);
      }
      out->push_back('"');
      return true;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return WriteMessage(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f), out);
    default:
      return false;
  }
}

}  // namespace

std::string ToJson(const Message& message, JsonLayout layout) {
  // One line, the common case (every HTTP answer): written directly from the message's
  // reflection, as protobuf's printer would write it (tests/service_test.cc compares the
  // two), without the tree of nodes that printer builds for "print every field" — it was
  // a quarter of an HTTP answer's CPU time in malloc and free (docs/PERFORMANCE.md).
  if (layout == JsonLayout::kOneLine && DirectlyPrintable(message.GetDescriptor())) {
    std::string json;
    json.reserve(256);
    if (WriteMessage(message, &json)) return json;
  }
  return ProtobufJson(message, layout);
}

bool ToJsonDirect(const Message& message, std::string* json) {
  json->clear();
  return DirectlyPrintable(message.GetDescriptor()) && WriteMessage(message, json);
}

std::string ToJsonByProtobuf(const Message& message, JsonLayout layout) {
  return ProtobufJson(message, layout);
}

}  // namespace puzzledb
