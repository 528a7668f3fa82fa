// puzzledb::TableIdOf (puzzledb/client.h): the table id of a request's puzzle by the rule
// docs/API.md ("Table affinity") gives every client, from the message alone. The C++ side of
// the typed messages' mapping for the client, as clients/python/puzzledb/typed.py is the
// Python one; the models own the ids (TableIdTest checks that these are theirs).
#include "puzzledb/client.h"

#include <cstdint>
#include <string>

namespace puzzledb {
namespace {

// The 64-bit FNV-1a hash of the typed knobs message's wiring, each number less one
// (docs/API.md, "Table affinity"); "knobs" for a wiring that is not 48 numbers 1..12.
std::string WiringTableId(const google::protobuf::RepeatedField<uint32_t>& wiring) {
  if (wiring.size() != 48) return "knobs";
  uint64_t hash = 14695981039346656037ull;
  for (uint32_t n : wiring) {
    if (n < 1 || n > 12) return "knobs";
    hash = (hash ^ (n - 1)) * 1099511628211ull;
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string id = "knobs-";
  for (int shift = 60; shift >= 0; shift -= 4) id += kDigits[(hash >> shift) & 15];
  return id;
}

}  // namespace

std::string TableIdOf(const v1::Puzzle& puzzle) {
  // The wire's rule, without the puzzles' rules (which live in the server): a typed message
  // is named by its field in Puzzle's oneof `kind`, as the server names its puzzle; the
  // typed knobs by their wiring's hash; the generic form by the name it gives.
  const google::protobuf::FieldDescriptor* kind = puzzle.GetReflection()->GetOneofFieldDescriptor(
      puzzle, v1::Puzzle::descriptor()->FindOneofByName("kind"));
  if (kind == nullptr) return puzzle.name();
  if (puzzle.has_knobs()) return WiringTableId(puzzle.knobs().wiring());
  return kind->name();
}

}  // namespace puzzledb
