// Helpers shared by the parsers of the puzzles' original input formats: the input as
// numbered lines, whole-number tokens, and error messages that say where the problem is.
#ifndef PUZZLEDB_CORE_UTIL_TEXT_INPUT_H_
#define PUZZLEDB_CORE_UTIL_TEXT_INPUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace puzzledb {

// One case of a multi-case input after parsing: its 1-based number, the line it starts on,
// and either the instance or the reason it was refused.
template <class Instance>
struct ParsedCase {
  int number = 0;
  int line = 0;
  absl::StatusOr<Instance> instance;
};

// The input split into lines (a trailing "\r" is dropped, so CRLF input reads the same).
// Line numbers are 1-based, as an editor shows them.
class InputLines {
 public:
  explicit InputLines(std::string_view text);

  int count() const { return static_cast<int>(lines_.size()); }
  // REQUIRES: 1 <= number <= count().
  std::string_view line(int number) const { return lines_[number - 1]; }

  // The number of the first line at or after `from` that is not blank, or count() + 1.
  int SkipBlank(int from) const;

 private:
  std::vector<std::string_view> lines_;
};

bool IsBlank(std::string_view line);

// Splits a line into whitespace-separated tokens and reads each as a whole number in
// [0, 10^9). On failure the status says which token is wrong and why (no location; the
// caller adds it).
absl::StatusOr<std::vector<uint32_t>> ParseNumbers(std::string_view line);

// "case 3, line 14: <what>" as an INVALID_ARGUMENT status. case_number 0 leaves the case out.
absl::Status InputError(int case_number, int line, std::string_view what);

// Quotes a piece of input for an error message, shortened and with control characters
// escaped, so a message never carries raw binary or a whole line of garbage.
std::string QuoteInput(std::string_view text);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_UTIL_TEXT_INPUT_H_
