// Helpers shared by the parsers of the puzzles' original input formats: the input as
// numbered lines, whole-number tokens, and error messages that say where the problem is.
#ifndef PUZZLEDB_CORE_UTIL_TEXT_INPUT_H_
#define PUZZLEDB_CORE_UTIL_TEXT_INPUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
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

// The cases of an input of one case a line, blank lines skipped: `parse(line)` reads each
// (an absl::StatusOr<Instance>; its error gets the case, the line and the line's text). An
// input without a case is one case whose error says `empty` ("the input is empty; ...").
template <class Instance, class Parse>
std::vector<ParsedCase<Instance>> ParseCaseLines(std::string_view text, Parse parse,
                                                 std::string_view empty) {
  std::vector<ParsedCase<Instance>> cases;
  const InputLines lines(text);
  int case_number = 1;
  for (int at = lines.SkipBlank(1); at <= lines.count(); at = lines.SkipBlank(at + 1)) {
    absl::StatusOr<Instance> instance = parse(lines.line(at));
    if (instance.ok()) {
      cases.push_back({case_number, at, *std::move(instance)});
    } else {
      cases.push_back({case_number, at,
                       InputError(case_number, at,
                                  std::string(instance.status().message()) + ": " +
                                      QuoteInput(lines.line(at)))});
    }
    ++case_number;
  }
  if (cases.empty()) cases.push_back({1, 1, InputError(0, 1, empty)});
  return cases;
}


}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_UTIL_TEXT_INPUT_H_
