#include "server/http/request_parse.h"

#include <cctype>
#include <cstdint>

#include "core/puzzle.h"
#include "core/util/strings.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"
#include "server/http/strict_json.h"
#include "service/puzzle_text.h"
#include "service/request_handler.h"
#include "service/wire.h"

namespace puzzledb {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decodes `text` (and '+' to a space when `plus_is_space`). `where` names the part
// for the error.
absl::StatusOr<std::string> Decode(std::string_view text, bool plus_is_space,
                                   std::string_view where) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      const int high = i + 1 < text.size() ? HexValue(text[i + 1]) : -1;
      const int low = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
      if (high < 0 || low < 0) {
        return absl::InvalidArgumentError(
            Cat(where, ": ", QuoteInput(text.substr(i, 3)), " at byte ", i + 1,
                " of ", QuoteInput(text), " is not a percent-encoded byte (%XX)"));
      }
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// A whole number in [0, limit] from a query parameter, or INVALID_ARGUMENT naming it, the
// range and `hint` (what a value means).
absl::StatusOr<uint64_t> QueryNumber(std::string_view name, std::string_view text,
                                     uint64_t limit, std::string_view hint = "") {
  uint64_t value = 0;
  bool ok = !text.empty() && text.size() <= 20;
  for (char c : text) {
    if (c < '0' || c > '9' || value > (limit - static_cast<uint64_t>(c - '0')) / 10) {
      ok = false;
      break;
    }
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!ok) {
    return absl::InvalidArgumentError(Cat("query: ", name, "=", QuoteInput(text),
                                          " is not a whole number from 0 to ", limit, hint));
  }
  return value;
}

absl::StatusOr<v1::Policy> QueryPolicy(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  v1::Policy policy;
  if (v1::Policy_Parse(upper, &policy)) return policy;
  if (upper.size() == 1 && upper[0] >= '0' && upper[0] <= '2') {
    return static_cast<v1::Policy>(upper[0] - '0');
  }
  return absl::InvalidArgumentError(
      Cat("query: policy=", QuoteInput(text),
          " is not a policy; use table_then_search, table_only or search_only"));
}

// A yes-or-no query parameter: 1, true, yes / 0, false, no.
absl::StatusOr<bool> QueryFlag(std::string_view name, std::string_view text) {
  if (text == "1" || text == "true" || text == "yes") return true;
  if (text == "0" || text == "false" || text == "no") return false;
  return absl::InvalidArgumentError(
      Cat("query: ", name, "=", QuoteInput(text),
          " is not a yes or no; use 1, true or yes, or 0, false or no (in lower case)"));
}

absl::Status NoRepeats(const HttpTarget& target) {
  for (const auto& [name, value] : target.params) {
    if (const size_t n = target.Count(name); n > 1) {
      return absl::InvalidArgumentError(
          Cat("query: ", QuoteInput(name), " is given ", n, " times; give it once"));
    }
  }
  return absl::OkStatus();
}

// Solve and Analyze share their parameters but timeout_ms and max_solutions.
template <class Request>
absl::Status SolveOrAnalyzeFromQuery(const HttpTarget& target, Request* out,
                                     Position* parsed) {
  constexpr bool kIsSolve = std::is_same_v<Request, v1::SolveRequest>;
  const std::string_view known =
      kIsSolve
          ? "puzzle, state, scramble, max_moves, policy, timeout_ms, id, max_solutions, count"
          : "puzzle, state, scramble, max_moves, policy, id, count";
  if (auto repeated = NoRepeats(target); !repeated.ok()) return repeated;
  for (const auto& [name, value] : target.params) {
    if (name == "puzzle" || name == "state" || name == "scramble") continue;
    if (name == "max_moves") {
      auto n = QueryNumber(name, value, kMaxMovesLimit, " (0: no limit)");
      if (!n.ok()) return n.status();
      out->set_max_moves(static_cast<uint32_t>(*n));
    } else if (name == "policy") {
      auto policy = QueryPolicy(value);
      if (!policy.ok()) return policy.status();
      out->set_policy(*policy);
    } else if (name == "id") {
      auto n = QueryNumber(name, value, UINT64_MAX);
      if (!n.ok()) return n.status();
      out->set_id(*n);
    } else if (kIsSolve && name == "timeout_ms") {
      auto n = QueryNumber(name, value, UINT32_MAX);
      if (!n.ok()) return n.status();
      if constexpr (kIsSolve) out->set_timeout_ms(static_cast<uint32_t>(*n));
    } else if (kIsSolve && name == "max_solutions") {
      auto n = QueryNumber(name, value, UINT32_MAX);
      if (!n.ok()) return n.status();
      if constexpr (kIsSolve) out->set_max_solutions(static_cast<uint32_t>(*n));
    } else if (name == "count") {
      auto flag = QueryFlag(name, value);
      if (!flag.ok()) return flag.status();
      out->set_count_solutions(*flag);
    } else {
      return absl::InvalidArgumentError(
          Cat("query: unknown parameter ", QuoteInput(name), "; known: ", known));
    }
  }
  const std::string* puzzle = target.Find("puzzle");
  if (puzzle == nullptr) {
    return absl::InvalidArgumentError("query: puzzle is missing; give puzzle=NAME and state=...");
  }
  const std::string* state = target.Find("state");
  const std::string* scramble = target.Find("scramble");
  if (state != nullptr && scramble != nullptr) {
    return absl::InvalidArgumentError(
        "query: both state and scramble are given; give one of them");
  }
  if (state == nullptr && scramble == nullptr) {
    return absl::InvalidArgumentError(
        "query: state is missing; give the puzzle's compact form (docs/API.md), or "
        "scramble=MOVES, moves from the goal");
  }
  if (parsed != nullptr || scramble != nullptr) {
    auto position = state != nullptr ? PositionFromCompact(*puzzle, *state)
                                     : PositionFromScramble(*puzzle, *scramble);
    if (!position.ok()) return position.status();
    if (parsed != nullptr) {
      *parsed = *position;
    } else {
      PositionToWire(*position, /*typed=*/false, out->mutable_puzzle());
    }
    return absl::OkStatus();
  }
  auto wire = PuzzleFromCompact(*puzzle, *state);
  if (!wire.ok()) return wire.status();
  *out->mutable_puzzle() = std::move(*wire);
  return absl::OkStatus();
}

}  // namespace

absl::Status OnlyParams(const HttpTarget& target, std::string_view known, std::string_view what) {
  for (const auto& [name, value] : target.params) {
    bool found = false;
    for (std::string_view rest = known; !rest.empty() && !found;) {
      const size_t comma = rest.find(", ");
      found = rest.substr(0, comma) == name;
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
    }
    if (!found) {
      return absl::InvalidArgumentError(
          known.empty() ? Cat("query: unknown parameter ", QuoteInput(name), "; ", what,
                              " takes no query parameters")
                        : Cat("query: unknown parameter ", QuoteInput(name), "; ", what,
                              " takes ", known));
    }
  }
  return NoRepeats(target);
}

const std::string* HttpTarget::Find(std::string_view name) const {
  for (const auto& [key, value] : params) {
    if (key == name) return &value;
  }
  return nullptr;
}

size_t HttpTarget::Count(std::string_view name) const {
  size_t n = 0;
  for (const auto& param : params) n += param.first == name;
  return n;
}

absl::StatusOr<HttpTarget> ParseTarget(std::string_view target) {
  if (target.size() > kMaxTargetBytes) {
    return absl::InvalidArgumentError(
        Cat("the request target is ", target.size(), " bytes: too long (at most ",
            kMaxTargetBytes, ")"));
  }
  if (target.empty() || target.front() != '/') {
    return absl::InvalidArgumentError(
        Cat("the request target ", QuoteInput(target), " is not a path starting with '/'"));
  }
  const size_t question = target.find('?');
  const std::string_view raw_path = target.substr(0, question);
  HttpTarget out;
  auto path = Decode(raw_path, /*plus_is_space=*/false, "path");
  if (!path.ok()) return path.status();
  for (unsigned char c : *path) {
    if (c < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(
          Cat("path: ", QuoteInput(*path), " holds a control character"));
    }
  }
  out.path = std::move(*path);
  if (question == std::string_view::npos) return out;
  std::string_view query = target.substr(question + 1);
  const size_t fragment = query.find('#');
  if (fragment != std::string_view::npos) query = query.substr(0, fragment);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    auto name = Decode(item.substr(0, eq), /*plus_is_space=*/true, "query");
    if (!name.ok()) return name.status();
    auto value = Decode(eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1),
                        /*plus_is_space=*/true, "query");
    if (!value.ok()) return value.status();
    out.params.emplace_back(std::move(*name), std::move(*value));
  }
  return out;
}

absl::Status RequestFromQuery(const HttpTarget& target, v1::SolveRequest* out,
                              Position* parsed) {
  return SolveOrAnalyzeFromQuery(target, out, parsed);
}

absl::Status RequestFromQuery(const HttpTarget& target, v1::AnalyzeRequest* out,
                              Position* parsed) {
  return SolveOrAnalyzeFromQuery(target, out, parsed);
}

// docs/API.md, "HTTP", GET /v1/sample: puzzle, distance (a number, "max" or "any"), count, seed, and
// for puzzles with parameters a state whose parameters are used.
absl::Status RequestFromQuery(const HttpTarget& target, v1::SampleRequest* out) {
  if (auto repeated = NoRepeats(target); !repeated.ok()) return repeated;
  for (const auto& [name, value] : target.params) {
    if (name == "puzzle" || name == "state") continue;
    if (name == "distance") {
      if (value == "max") {
        out->set_largest(true);
        continue;
      }
      if (value == "any") {
        out->set_any_distance(true);
        continue;
      }
      auto n = QueryNumber(name, value, 255);
      if (!n.ok()) {
        return absl::InvalidArgumentError(Cat("query: distance=", QuoteInput(value),
                                              " is not a distance from 0 to 255, max or any"));
      }
      out->set_distance(static_cast<uint32_t>(*n));
    } else if (name == "count") {
      auto n = QueryNumber(name, value, kMaxSampleCount);
      if (!n.ok()) return n.status();
      out->set_count(static_cast<uint32_t>(*n));
    } else if (name == "seed") {
      auto n = QueryNumber(name, value, UINT64_MAX);
      if (!n.ok()) return n.status();
      out->set_seed(*n);
    } else {
      return absl::InvalidArgumentError(
          Cat("query: unknown parameter ", QuoteInput(name),
              "; known: puzzle, distance, count, seed, state (puzzles with parameters)"));
    }
  }
  const std::string* puzzle = target.Find("puzzle");
  if (puzzle == nullptr) {
    return absl::InvalidArgumentError("query: puzzle is missing; give puzzle=NAME");
  }
  if (target.Find("distance") == nullptr) {
    return absl::InvalidArgumentError(
        "query: distance is missing; give distance=N, distance=max or distance=any");
  }
  const std::string* state = target.Find("state");
  if (state == nullptr) {
    // A puzzle with parameters is sampled under the ones a state gives: say that, not the
    // message's field a GET never names.
    if (const Puzzle* found = FindPuzzle(*puzzle); found != nullptr && found->has_parameters()) {
      return absl::InvalidArgumentError(
          Cat("query: state is missing; the ", found->name(), " puzzle has parameters, and "
              "state=COMPACT gives them (any state under them will do: GET /v1/puzzles shows "
              "an example)"));
    }
  }
  auto parsed = state != nullptr ? PuzzleFromCompact(*puzzle, *state) : PuzzleOfKind(*puzzle);
  if (!parsed.ok()) return parsed.status();
  *out->mutable_puzzle() = std::move(*parsed);
  return absl::OkStatus();
}

std::optional<std::string> WrongContentType(std::string_view content_type,
                                            std::string_view message_name) {
  std::string lower(content_type);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string_view json = "application/json";
  if (lower.rfind(json, 0) == 0 && (lower.size() == json.size() || lower[json.size()] == ';' ||
                                    lower[json.size()] == ' ')) {
    return std::nullopt;
  }
  return Cat("Content-Type: send application/json (a ", message_name,
             " in protobuf's JSON mapping), got ",
             content_type.empty() ? std::string("none") : QuoteInput(content_type));
}

namespace {

// The field named `name` in `type` or a message it holds (protobuf's JSON errors name the
// field alone), or null.
const google::protobuf::FieldDescriptor* FieldNamed(const google::protobuf::Descriptor* type,
                                                    std::string_view name, int depth = 0) {
  if (depth > 8) return nullptr;
  for (int i = 0; i < type->field_count(); ++i) {
    const auto* f = type->field(i);
    if (f->name() == name || f->json_name() == name) return f;
  }
  for (int i = 0; i < type->field_count(); ++i) {
    const auto* f = type->field(i);
    if (f->message_type() == nullptr) continue;
    if (const auto* found = FieldNamed(f->message_type(), name, depth + 1)) return found;
  }
  return nullptr;
}

// What a field of this kind takes, in JSON.
std::string AcceptedFor(const google::protobuf::FieldDescriptor* field) {
  using F = google::protobuf::FieldDescriptor;
  switch (field->cpp_type()) {
    case F::CPPTYPE_UINT32:
      return "a whole number from 0 to 4294967295";
    case F::CPPTYPE_INT32:
      return "a whole number from -2147483648 to 2147483647";
    case F::CPPTYPE_UINT64:
      return "a whole number from 0 to 18446744073709551615 (a number, or its digits as a "
             "string)";
    case F::CPPTYPE_INT64:
      return "a whole number (a number, or its digits as a string)";
    case F::CPPTYPE_BOOL:
      return "true or false";
    case F::CPPTYPE_ENUM: {
      std::vector<std::string> names;
      for (int i = 0; i < field->enum_type()->value_count(); ++i) {
        names.push_back(field->enum_type()->value(i)->name());
      }
      return Cat("one of ", Join(names, ", "), " (or its number)");
    }
    case F::CPPTYPE_MESSAGE:
      return Cat("an object (", field->message_type()->name(), ")");
    case F::CPPTYPE_STRING:
      return "a string";
    default:
      return "another kind of value";
  }
}

// protobuf's JSON parser's error, said as this API's: the field, what was sent, and what
// the field takes (its own are terse and cut).
std::string BodyError(std::string_view error, const google::protobuf::Descriptor* type) {
  const size_t close = error.find("): invalid value ");
  if (!error.empty() && error[0] == '(' && close != std::string_view::npos) {
    const std::string_view name = error.substr(1, close - 1);
    std::string_view value = error.substr(close + 17);
    value = value.substr(0, value.rfind(" for type "));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);  // a JSON string: its text
    }
    if (const auto* field = FieldNamed(type, name)) {
      return Cat("body: ", field->name(), ": ", QuoteInput(value), " is not ",
                 AcceptedFor(field));
    }
  }
  const size_t colon = error.find(": Cannot find field.");
  if (colon != std::string_view::npos) {
    // "name", or "(parent) name" for a field of a message inside.
    std::string_view name = error.substr(0, colon);
    std::string where;
    const google::protobuf::Descriptor* in = type;
    if (!name.empty() && name[0] == '(' && name.find(") ") != std::string_view::npos) {
      const std::string_view parent = name.substr(1, name.find(") ") - 1);
      const auto* field = FieldNamed(type, parent);
      if (field != nullptr && field->message_type() != nullptr) {
        in = field->message_type();
        where = Cat(" in ", field->name());
      }
      name = name.substr(name.find(") ") + 2);
    }
    std::vector<std::string> fields;
    for (int i = 0; i < in->field_count(); ++i) fields.push_back(in->field(i)->name());
    return Cat("body: unknown field ", QuoteInput(name), where, " (a ", in->name(), " has ",
               Join(fields, ", "), ")");
  }
  return Cat("body: not a ", type->name(), ": ", QuoteInput(error));
}

// What a JSON value is, for people: "an object", "the string 'x'", "the number 3".
std::string KindOf(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "a list";
    case nlohmann::json::value_t::string:
      return Cat("the string ", QuoteInput(value.get_ref<const std::string&>()));
    case nlohmann::json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    default:
      return Cat("the number ", QuoteInput(value.dump()));
  }
}

// Whether protobuf's JSON mapping takes `value` for one value of `field` (a list's element,
// for a repeated one): what its parser is lenient about (numbers as digit strings, enums by
// number) is taken here too.
bool Takes(const google::protobuf::FieldDescriptor* field, const nlohmann::json& value) {
  using F = google::protobuf::FieldDescriptor;
  if (value.is_null()) return true;
  switch (field->cpp_type()) {
    case F::CPPTYPE_MESSAGE:
      return value.is_object();
    case F::CPPTYPE_STRING:
      return value.is_string();
    case F::CPPTYPE_BOOL:
      return value.is_boolean();
    case F::CPPTYPE_ENUM:
      return value.is_string() || value.is_number_integer() || value.is_number_unsigned();
    default:  // numbers
      return value.is_number() || value.is_string();
  }
}

// The first field of `object` (a message of `type`, at `path`) whose value is of a kind the
// field cannot take, said as "puzzle: an object is not a string": protobuf's parser names
// neither the field nor the kind for these. Empty if every field's kind is right (the
// parser's error is then about a value: BodyError says it).
std::string ShapeError(const nlohmann::json& object, const google::protobuf::Descriptor* type,
                       const std::string& path, int depth = 0) {
  if (depth > 16 || !object.is_object()) return "";
  for (const auto& [key, value] : object.items()) {
    const google::protobuf::FieldDescriptor* field = type->FindFieldByName(key);
    for (int i = 0; field == nullptr && i < type->field_count(); ++i) {
      if (type->field(i)->json_name() == key) field = type->field(i);
    }
    if (field == nullptr || field->is_map()) continue;
    const std::string at = path.empty() ? key : Cat(path, ".", key);
    const bool list = field->is_repeated() && value.is_array();
    const nlohmann::json single = nlohmann::json::array({value});
    const nlohmann::json& values = list ? value : single;
    for (size_t i = 0; i < values.size(); ++i) {
      const nlohmann::json& one = values[i];
      const std::string where = list ? Cat(at, "[", i, "]") : at;
      if (!Takes(field, one)) {
        return Cat("body: ", where, ": ", KindOf(one), " is not ", AcceptedFor(field),
                   field->is_repeated() && !list ? ", or a list of them" : "");
      }
      if (field->message_type() != nullptr) {
        if (std::string inner = ShapeError(one, field->message_type(), where, depth + 1); !inner.empty()) {
          return inner;
        }
      }
    }
  }
  return "";
}

}  // namespace

absl::Status RequestFromBody(std::string_view body, google::protobuf::Message* out) {
  // A UTF-8 byte order mark is skipped, as RFC 8259 (section 8.1) lets a parser do.
  if (body.substr(0, 3) == "\xef\xbb\xbf") body.remove_prefix(3);
  if (body.empty()) {
    return absl::InvalidArgumentError(
        Cat("body: empty; send a ", out->GetDescriptor()->name(), " in JSON"));
  }
  // Strict JSON, nested at most kMaxJsonDepth deep, before protobuf's lenient parser
  // (strict_json.h).
  if (absl::Status strict = CheckStrictJson(body); !strict.ok()) return strict;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto parsed = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(body.data(), body.size()), out, options);
  if (!parsed.ok()) {
    // A field given a value of the wrong kind (an object for a name, a list for one value)
    // is named with both kinds; what else protobuf refuses, in its words made ours.
    const nlohmann::json json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (std::string shape = ShapeError(json, out->GetDescriptor(), ""); !shape.empty()) {
      return absl::InvalidArgumentError(shape);
    }
    return absl::InvalidArgumentError(
        BodyError(std::string_view(parsed.message().data(), parsed.message().size()),
                  out->GetDescriptor()));
  }
  return absl::OkStatus();
}

}  // namespace puzzledb
