// A definition file made a puzzle: read, checked against what a runtime puzzle can hold,
// indexed, and registered (core/puzzle.h) beside the puzzles written in C++, so that every
// surface finds it by name. docs/PUZZLES.md, "Puzzles as data".
#ifndef PUZZLEDB_CORE_DEFINED_DEFINED_PUZZLE_H_
#define PUZZLEDB_CORE_DEFINED_DEFINED_PUZZLE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/puzzle.h"
#include "core/table/table_builder.h"
#include "core/table/table_store.h"

namespace puzzledb {

// The index of a complete table may hold this many states unless a caller raises it.
inline constexpr uint64_t kDefaultMaxDefinedStates = uint64_t{1} << 33;
inline constexpr uint64_t kLargestMaxDefinedStates = uint64_t{1} << 40;

// INVALID_ARGUMENT unless `name` can name a defined puzzle: 1 to 32 of a-z, 0-9 and _, not
// starting with _ ("slide25", "2x2x2").
absl::Status CheckDefinedName(std::string_view name);
// The name a file gives when none is: its base name without ".tws", in lower case.
std::string DefinedNameOf(std::string_view path);

// How a defined puzzle is answered: from a complete table of its states, or by a live
// search guided by pattern tables of its projections (core/defined/defined_patterns.h);
// kAuto: a complete table when its index takes at most max_states numbers, else patterns.
enum class DefinedTableKind { kAuto, kComplete, kPatterns };

// The puzzle of definition `text` (from file `file`, for messages) named `name`, not yet
// registered: INVALID_ARGUMENT naming the file, the line and the rule, or what the puzzle
// needs beyond puzzledb's bounds (kComplete: its index past `max_states`; more moves than a
// table's walk holds, a state of more bytes than a position holds). `stored`: the encoding
// of the complete table it will read, where one is stored already (a table of a byte a
// state, built before guarded moves with their ways back took 2 bits, is read as it is).
absl::StatusOr<std::shared_ptr<const Puzzle>> MakeDefinedPuzzle(
    std::string_view name, std::string_view text, std::string_view file, uint64_t max_states,
    DefinedTableKind kind = DefinedTableKind::kAuto,
    std::optional<TableEncoding> stored = std::nullopt);

// OK, or why the builder cannot build `puzzle` (a defined puzzle) with `options`, before it
// opens a database: the projections of its pattern tables do not read or do not fit
// (INVALID_ARGUMENT naming its file; why it has no complete table too, where it was not
// asked for).
absl::Status CheckDefinedBuild(const Puzzle& puzzle, const BuildOptions& options);

// The puzzle of the definition a table's record `m` stores (not registered), or null if
// `m` is not a definition's table; why it cannot be served otherwise (a checksum that
// fails, another layout of the index, the old reading of move orientations, a file that
// no longer reads). `db` names the database in what to do.
absl::StatusOr<std::shared_ptr<const Puzzle>> PuzzleOfStoredDefinition(const TableMetadata& m,
                                                                        std::string_view db);

// Makes and registers the puzzle of every definition stored in `store` (a table's
// metadata whose puzzle is no built-in one): a definition that fails its checksum or no
// longer reads is not registered, `log` says why, and so does `refused` (if not null), by
// table id. Returns how many were registered. A name registered already (by this program)
// is left as it is.
int RegisterStoredDefinitions(const TableStore& store,
                              const std::function<void(std::string_view)>& log,
                              std::map<std::string, std::string>* refused = nullptr);

// Removes every table of the puzzle `name` from `store` (a definition's: its complete
// table or its pattern tables) and returns their ids, none if it has none.
// FAILED_PRECONDITION for a built-in puzzle, whose tables are built again, not removed.
absl::StatusOr<std::vector<std::string>> RemoveDefinitionTables(TableStore& store, std::string_view name);

// A stored definition's table record whose file was read the old way (move orientations by
// destination: kLegacyDefinitionHeader), rewritten in today's reading with the same meaning
// (RewriteLegacyTwists), with its header, checksum and description: its entries stay
// right. False if the record needs nothing (not a definition's, or read today's way);
// DATA_LOSS if it fails its checksum, INVALID_ARGUMENT if its text no longer reads.
// TableStore::Migrate's rewrite.
absl::StatusOr<bool> MigrateDefinitionRecord(TableMetadata* m);

// Makes and registers the puzzles a server lists with their definitions (PuzzleInfo's
// `definition`) that this program does not know yet, so that a client reads and writes
// their states as the server does; what cannot be is said by `log`. Returns how many.
int RegisterListedDefinitions(const std::vector<std::pair<std::string, std::string>>& listed,
                              const std::function<void(std::string_view)>& log);

// True if `puzzle` was made from a definition (and `table` is the metadata of its table):
// the definition's name, file checksum and sets for `info`.
struct DefinitionSummary {
  std::string name;
  std::string title;
  std::string file;
  uint32_t text_crc32 = 0;
  std::string sets;   // "CORNER 8 x 3"
  std::string moves;  // in canonical order
  std::string index;  // DefinedIndex::Describe, or why there is none
  // Guarded moves: whether each block has its way back (a complete table of 2 bits a
  // state), or the first that has none (a byte a state). Empty without guards.
  std::string ways;
  bool patterns = false;  // searched with pattern tables (no complete table)
  std::string symmetry;   // a complete table's symmetry classes, or why it has none
};
bool SummarizeDefinition(const Puzzle& puzzle, DefinitionSummary* summary);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINED_DEFINED_PUZZLE_H_
