// Reads a definition file (docs/PUZZLES.md, "Puzzles as data") into a Definition. A
// definition is untrusted input: every refusal is INVALID_ARGUMENT naming the file, the line
// and the rule ("slide.tws:14: Move U: set T: 5 values, want 6"), and the limits below keep
// what one file may ask for in bounds, their figures in the message. Never a crash, a hang,
// or a definition that breaks a rule (fuzz/fuzz_definition.cc).
#ifndef PUZZLEDB_CORE_DEFINITION_READ_DEFINITION_H_
#define PUZZLEDB_CORE_DEFINITION_READ_DEFINITION_H_

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/definition/definition.h"

namespace puzzledb {

struct DefinitionLimits {
  size_t max_file_bytes = 1 << 20;
  int max_sets = 255;
  int max_state_bytes = 4096;  // both bytes of every position of every set
  // Moves as answers count them, powers included: a move is a byte in an answer.
  int max_moves = 250;
  int max_blocks = 4096;  // the blocks of every move, guarded ones each counting
  int max_goals = 64;
  // The states the goals stand for, each position a goal leaves to any piece ('?') filled
  // every way its pieces can.
  int max_goal_states = 1 << 17;
  // ... and the bytes they take together (a state of every position's byte, or two).
  size_t max_goal_bytes = size_t{64} << 20;
};

// A line of a definition file as the reader splits it: a UTF-8 byte order mark before the
// first line skipped, a CR before a newline dropped, `#` to the end of a line a comment;
// `text` the rest, `tokens` its words (separated by spaces and tabs). Lines without a word
// are left out.
struct DefinitionLine {
  int number = 0;
  std::string_view text;
  std::vector<std::string_view> tokens;
};
// INVALID_ARGUMENT for a control character, naming `file` and the line (by `line_names`
// where given, as ReadDefinition).
absl::StatusOr<std::vector<DefinitionLine>> SplitDefinitionLines(std::string_view text, std::string_view file,
                                                                 std::span<const std::string> line_names = {});

// `file` names the text in messages ("slide.tws"); `line_names`, if given, what names each
// line there instead of its number (a definition with parameters: the line of the file it
// was made from, and the loop variables' values, core/definition/definition_template.h).
absl::StatusOr<Definition> ReadDefinition(std::string_view text, std::string_view file,
                                          const DefinitionLimits& limits = {},
                                          std::span<const std::string> line_names = {});

// A definition written for a puzzledb that read move orientations by destination (before
// 2026-12: o_j was added to the piece landing at position j; docs/PUZZLES.md now reads them
// by piece, as twsearch does), rewritten with the same meaning in today's reading: each
// move's orientation line permuted (o_{p_j} = old o_j), every other byte as it was.
// INVALID_ARGUMENT as ReadDefinition.
absl::StatusOr<std::string> RewriteLegacyTwists(std::string_view text, std::string_view file,
                                                const DefinitionLimits& limits = {});

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINITION_READ_DEFINITION_H_
