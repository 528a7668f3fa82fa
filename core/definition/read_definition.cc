#include "core/definition/read_definition.h"

#include <algorithm>
#include <bitset>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "core/util/strings.h"
#include "core/util/text_input.h"

namespace puzzledb {
namespace {

// twsearch's keywords that this reader does not take (docs/PUZZLES.md, "Puzzles as data").

using Line = DefinitionLine;

bool AllDigits(std::string_view token) {
  return !token.empty() &&
         std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool NumericLine(const Line& line) {
  return !line.tokens.empty() && std::all_of(line.tokens.begin(), line.tokens.end(), AllDigits);
}

// Numbers and twsearch's wildcards ('?'), at least one of those.
bool WildLine(const Line& line) {
  return !NumericLine(line) && std::all_of(line.tokens.begin(), line.tokens.end(), [](std::string_view t) {
    return t == "?" || AllDigits(t);
  });
}

bool PrintableAscii(std::string_view token) {
  return std::all_of(token.begin(), token.end(), [](char c) { return c > ' ' && c < 127; });
}

// The byte at which `text` stops being UTF-8 (RFC 3629), or npos.
size_t NotUtf8At(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t extra = 0;
    uint32_t min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      extra = 1;
      min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2;
      min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3;
      min = 0x10000;
    } else {
      return i;
    }
    uint32_t code = c & (0x3f >> extra);
    for (size_t k = 1; k <= extra; ++k) {
      if (i + k >= text.size()) return i;
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xc0) != 0x80) return i;
      code = code << 6 | (next & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += extra + 1;
  }
  return std::string_view::npos;
}

// A word that starts a line of its own kind, never a set's part of a block.
bool IsKeyword(std::string_view word) {
  return word == "Name" || word == "Set" || word == "Solved" || word == "Move" || word == "MoveSequence" ||
         word == "Illegal" || word == "StartState" || word == "MoveTransformation" || word == "MoveAlias";
}

// twsearch's whole-puzzle rotations, which it does not count as moves.
bool RotationName(std::string_view name) {
  if (!name.empty() && name.back() == 'v') return true;
  if (name.empty() || (name[0] != 'x' && name[0] != 'y' && name[0] != 'z')) return false;
  const std::string_view rest = name.substr(1);
  return rest.empty() || rest == "2" || rest == "'" || rest == "2'";
}

// The steps a MoveSequence may take.
constexpr size_t kMaxSequenceSteps = 1000;

// Power `t` of a move of order `n` as it is named: t, or t - n when n - t < t.
int64_t SignedPower(uint64_t t, uint64_t n) {
  return n - t < t ? -static_cast<int64_t>(n - t) : static_cast<int64_t>(t);
}

// The name of power `t` of a move of order `n` (docs/PUZZLES.md): U, U2, U'; R3, R2'.
std::string PowerName(const std::string& name, uint64_t t, uint64_t n) {
  const int64_t k = SignedPower(t, n);
  if (k == 1) return name;
  if (k == -1) return name + "'";
  if (k > 1) return name + std::to_string(k);
  return name + std::to_string(-k) + "'";
}

}  // namespace

class DefinitionReader {
 public:
  DefinitionReader(std::string_view text, std::string_view file, const DefinitionLimits& limits,
                   std::span<const std::string> line_names = {})
      : text_(text), file_(file), limits_(limits), line_names_(line_names) {}

  absl::StatusOr<Definition> Read();

  // A move's orientation line, and what it says written in the old reading (Read fills it).
  struct TwistLine {
    int line = 0;
    std::vector<int> by_piece;
  };
  const std::vector<TwistLine>& legacy_twists() const { return legacy_twists_; }

 private:
  struct Unexpanded {
    std::string name;
    std::vector<MoveBlock> blocks;
    bool guarded = false;
    bool single = false;  // "Move A single": no powers
    int line = 0;
    // A MoveSequence: its steps, composed into blocks[0] once every step is known
    // (ResolveSequences).
    std::vector<std::string> steps;
  };
  // One set's part of a Solved or Move block.
  struct SetPart {
    int set = -1;
    std::vector<int> values;        // labels (Solved) or sources (Move), as written (1-based)
    std::vector<int> orientations;  // empty when not given
    int orientations_line = 0;      // where they are given
    int values_line = 0;            // where the labels or sources are
  };

  absl::Status Error(int line, std::string_view what) const {
    return absl::InvalidArgumentError(line > 0 ? Cat(file_, ":", LineName(line), ": ", what)
                                               : Cat(file_, ": ", what));
  }
  // What names line `n` in messages: its number, or what a definition with parameters says
  // of the line it was made from (DefinitionTemplate::Expand).
  std::string LineName(int n) const {
    if (n >= 1 && static_cast<size_t>(n) <= line_names_.size()) return line_names_[static_cast<size_t>(n) - 1];
    return std::to_string(n);
  }
  absl::Status SplitLines();
  absl::Status ReadSet(const Line& line);
  absl::Status ReadSolved(const Line& first);
  absl::Status ReadMove(const Line& first);
  absl::Status ReadMoveSequence(const Line& first);
  // twsearch's "Illegal SET POSITION LABEL ...": that position never holds those labels.
  absl::Status ReadIllegal(const Line& line);
  // twsearch's "MoveAlias NAME MOVE": another name for a move, read in move sequences (a
  // scramble), never one of the search's moves.
  absl::Status ReadMoveAlias(const Line& line);
  // The order of an unguarded transform, capped at max_moves + 1.
  uint64_t OrderOf(const Transform& t) const;
  // Composes every MoveSequence from the moves and rotations it names (sequences of
  // sequences too, in any order), as twsearch expands them.
  absl::Status ResolveSequences();
  // Reads the set parts of a block up to its End, from the line after `*at`; `what` names
  // the block in messages. Moves `*at` to the End line.
  absl::Status ReadParts(std::string_view what, bool labels, std::vector<SetPart>* parts);
  int SetByName(std::string_view name) const;
  absl::Status Expand(Definition* definition);
  // The goals as written become the definition's patterns, and every state they stand for
  // its goals; checks that each goal holds the same pieces (INVALID_ARGUMENT naming it).
  absl::Status SettleGoals(Definition* definition);

  std::string_view text_;
  std::string_view file_;
  const DefinitionLimits limits_;
  std::span<const std::string> line_names_;
  std::vector<Line> lines_;  // not blank, comments dropped
  size_t at_ = 0;            // in lines_
  bool seen_name_ = false;
  Definition out_;
  std::vector<int> goal_lines_;  // where each goal of out_.goals_ starts
  bool zero_based_ = false;      // the block being read counts from 0 (StartState, MoveTransformation)
  struct Alias {
    std::string name, move;
    int line = 0;
  };
  std::vector<Alias> aliases_;
  std::vector<Unexpanded> moves_;
  // twsearch's whole-puzzle rotations: transforms a MoveSequence may name, not moves.
  std::vector<Unexpanded> rotations_;
  std::vector<TwistLine> legacy_twists_;
  int state_bytes_ = 0;
  int blocks_ = 0;
};

absl::Status DefinitionReader::SplitLines() {
  auto lines = SplitDefinitionLines(text_, file_, line_names_);
  if (!lines.ok()) return lines.status();
  lines_ = *std::move(lines);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<DefinitionLine>> SplitDefinitionLines(std::string_view text, std::string_view file,
                                                                 std::span<const std::string> line_names) {
  std::vector<DefinitionLine> lines;
  int number = 0;
  size_t start = 0;
  // A UTF-8 byte order mark before the first line is skipped, as a CR before a newline is.
  if (text.substr(0, 3) == "\xef\xbb\xbf") start = 3;
  while (start <= text.size()) {
    const size_t newline = text.find('\n', start);
    std::string_view line = text.substr(start, newline == std::string_view::npos ? std::string_view::npos
                                                                                 : newline - start);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    for (char c : line) {
      if (static_cast<unsigned char>(c) < ' ' && c != '\t') {
        const std::string name = number <= static_cast<int>(line_names.size())
                                     ? line_names[static_cast<size_t>(number) - 1]
                                     : std::to_string(number);
        return absl::InvalidArgumentError(Cat(file, ":", name, ": a control character (byte ",
                                              static_cast<int>(static_cast<unsigned char>(c)),
                                              "): a definition is a text file"));
      }
    }
    DefinitionLine parsed{number, line, SplitWhitespace(line)};
    if (!parsed.tokens.empty()) lines.push_back(std::move(parsed));
    if (newline == std::string_view::npos) break;
    start = newline + 1;
  }
  return lines;
}

int DefinitionReader::SetByName(std::string_view name) const {
  for (size_t i = 0; i < out_.sets_.size(); ++i) {
    if (out_.sets_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

absl::Status DefinitionReader::ReadSet(const Line& line) {
  if (!out_.goals_.empty() || !moves_.empty()) {
    return Error(line.number, "Set after a Solved or Move block: Set lines come first");
  }
  if (line.tokens.size() != 4) {
    return Error(line.number, Cat("Set takes a name, a size and a number of orientations "
                                  "(Set CORNERS 8 3), got ", line.tokens.size() - 1, " words"));
  }
  const std::string_view name = line.tokens[1];
  if (AllDigits(name) || name == "End" || name == "If" || !PrintableAscii(name)) {
    return Error(line.number, Cat("Set ", QuoteInput(name),
                                  ": a set's name is printable ASCII, not a number, End or If"));
  }
  if (SetByName(name) >= 0) return Error(line.number, Cat("Set ", name, " is given twice"));
  if (static_cast<int>(out_.sets_.size()) >= limits_.max_sets) {
    return Error(line.number, Cat("more than ", limits_.max_sets, " sets"));
  }
  const int size = AllDigits(line.tokens[2]) && line.tokens[2].size() <= 3 ? std::stoi(std::string(line.tokens[2])) : -1;
  const int orientations = AllDigits(line.tokens[3]) && line.tokens[3].size() <= 3 ? std::stoi(std::string(line.tokens[3])) : -1;
  if (size < 1 || size > 255) {
    return Error(line.number, Cat("Set ", name, ": size ", QuoteInput(line.tokens[2]),
                                  " is not a number from 1 to 255"));
  }
  if (orientations < 1 || orientations > 255) {
    return Error(line.number, Cat("Set ", name, ": orientations ", QuoteInput(line.tokens[3]),
                                  " is not a number from 1 to 255"));
  }
  const int bytes = orientations > 1 ? 2 * size : size;
  if (state_bytes_ + bytes > limits_.max_state_bytes) {
    return Error(line.number, Cat("Set ", name, ": the sets' positions would take more than ",
                                  limits_.max_state_bytes, " bytes a state"));
  }
  DefinedSet set;
  set.name = std::string(name);
  set.size = size;
  set.orientations = orientations;
  set.offset = state_bytes_;
  state_bytes_ += bytes;
  out_.sets_.push_back(std::move(set));
  return absl::OkStatus();
}

absl::Status DefinitionReader::ReadParts(std::string_view what, bool labels,
                                         std::vector<SetPart>* parts) {
  const int start = lines_[at_].number;
  while (true) {
    ++at_;
    if (at_ >= lines_.size()) return Error(start, Cat(what, ": no End"));
    const Line& line = lines_[at_];
    const std::string_view word = line.tokens[0];
    if (word == "End") {
      if (line.tokens.size() != 1) return Error(line.number, "End takes nothing after it");
      return absl::OkStatus();
    }
    if (word == "If") {
      return Error(line.number, Cat(what, ": If lines come first in a Move block, before its sets"));
    }
    if (IsKeyword(word) && SetByName(word) < 0) {
      return Error(start, Cat(what, ": no End before line ", LineName(line.number), "'s ", word,
                              " (each block ends with a line End)"));
    }
    if (WildLine(line)) {
      return Error(line.number, Cat(what, ": '?' (a wildcard) stands for a piece or an orientation on the "
                                          "lines after a set's name, not for the name"));
    }
    if (line.tokens.size() != 1 || NumericLine(line)) {
      return Error(line.number, Cat(what, ": want a set's name on a line of its own, or End; got ",
                                    QuoteInput(word)));
    }
    const int s = SetByName(word);
    if (s < 0) {
      std::vector<std::string_view> names;
      for (const DefinedSet& set : out_.sets_) names.push_back(set.name);
      return Error(line.number, Cat(what, ": ", QuoteInput(word), " is neither a set's name (",
                                    Join(names, ", "), ") nor End, which the block (from line ",
                                    start, ") is missing"));
    }
    for (const SetPart& p : *parts) {
      if (p.set == s) return Error(line.number, Cat(what, ": set ", word, " is given twice"));
    }
    const DefinedSet& set = out_.sets_[static_cast<size_t>(s)];
    SetPart part;
    part.set = s;
    // Its labels or sources, on the next line; then maybe its orientations.
    ++at_;
    if (at_ < lines_.size() && lines_[at_].tokens[0] == "If") {
      return Error(lines_[at_].number,
                   Cat(what, ": If lines come first in a Move block, before its sets (here after set ",
                       set.name, ")"));
    }
    if (!labels && at_ < lines_.size() && WildLine(lines_[at_])) {
      return Error(lines_[at_].number, Cat(what, ": set ", set.name, ": '?' (a wildcard) stands for a "
                                                 "position or orientation of a Solved block, not a move's position"));
    }
    if (at_ >= lines_.size() || !(NumericLine(lines_[at_]) || (labels && WildLine(lines_[at_])))) {
      return Error(at_ < lines_.size() ? lines_[at_].number : line.number,
                   Cat(what, ": set ", set.name, ": want a line of ", set.size,
                       labels ? " piece labels" : " positions"));
    }
    const Line& values = lines_[at_];
    part.values_line = values.number;
    if (static_cast<int>(values.tokens.size()) != set.size) {
      return Error(values.number, Cat(what, ": set ", set.name, ": ", values.tokens.size(),
                                      " values, want ", set.size));
    }
    for (std::string_view token : values.tokens) {
      if (token == "?") {  // a position any piece may fill (labels only: WildLine above)
        part.values.push_back(0);
        continue;
      }
      const int v = (token.size() <= 3 ? std::stoi(std::string(token)) : 1000) + (zero_based_ ? 1 : 0);
      if (v < 1 || v > set.size) {
        return Error(values.number, Cat(what, ": set ", set.name, ": ", QuoteInput(token), " is not a number from ",
                                        zero_based_ ? 0 : 1, " to ", zero_based_ ? set.size - 1 : set.size));
      }
      part.values.push_back(v);
    }
    if (!labels) {  // a permutation of 1..N
      std::vector<bool> seen(static_cast<size_t>(set.size) + 1, false);
      for (int v : part.values) {
        if (seen[static_cast<size_t>(v)]) {
          return Error(values.number, Cat(what, ": set ", set.name, ": position ", v,
                                          " given twice: not a permutation of 1 to ", set.size));
        }
        seen[static_cast<size_t>(v)] = true;
      }
    }
    if (at_ + 1 < lines_.size() && (NumericLine(lines_[at_ + 1]) || WildLine(lines_[at_ + 1]))) {
      ++at_;
      const Line& o = lines_[at_];
      if (!labels && WildLine(o)) {
        return Error(o.number, Cat(what, ": set ", set.name, ": '?' (a wildcard) stands for a piece or an "
                                         "orientation of a Solved block, not a move's twist"));
      }
      part.orientations_line = o.number;
      if (static_cast<int>(o.tokens.size()) != set.size) {
        return Error(o.number, Cat(what, ": set ", set.name, ": ", o.tokens.size(),
                                   " orientations, want ", set.size));
      }
      for (std::string_view token : o.tokens) {
        if (token == "?") {  // an orientation no goal reads (ReadSolved)
          part.orientations.push_back(-1);
          continue;
        }
        const int v = token.size() <= 3 ? std::stoi(std::string(token)) : 1000;
        if (v >= set.orientations) {
          return Error(o.number, Cat(what, ": set ", set.name, ": orientation ", QuoteInput(token),
                                     " is not a number from 0 to ", set.orientations - 1));
        }
        part.orientations.push_back(v);
      }
    }
    parts->push_back(std::move(part));
  }
}

absl::Status DefinitionReader::ReadSolved(const Line& first) {
  // twsearch's StartState: a Solved block whose labels count from 0.
  const std::string_view keyword = first.tokens[0];
  zero_based_ = keyword == "StartState";
  if (first.tokens.size() != 1) return Error(first.number, Cat(keyword, " takes nothing after it"));
  if (out_.sets_.empty()) return Error(first.number, Cat(keyword, " before any Set"));
  if (static_cast<int>(out_.goals_.size()) >= limits_.max_goals) {
    return Error(first.number, Cat("more than ", limits_.max_goals, " Solved blocks"));
  }
  const std::string what = out_.goals_.empty() ? std::string(keyword) : Cat(keyword, " (goal ", out_.goals_.size() + 1, ")");
  std::vector<SetPart> parts;
  if (absl::Status read = ReadParts(what, /*labels=*/true, &parts); !read.ok()) return read;
  DefinedState goal(static_cast<size_t>(state_bytes_), 0);
  for (const SetPart& part : parts) {
    DefinedSet& set = out_.sets_[static_cast<size_t>(part.set)];
    // twsearch's '?': pieces whose orientation no goal reads, every piece of their label
    // alike, the same in every goal.
    std::bitset<256> wild, tame;
    for (int j = 0; j < set.size; ++j) {
      const auto label = static_cast<uint8_t>(part.values[static_cast<size_t>(j)]);
      goal[static_cast<size_t>(set.offset + j)] = label;
      if (label == 0) {
        // A position any piece may fill: its orientation, if written, is not read.
        if (set.orientations > 1) {
          return Error(part.values_line, Cat(what, ": set ", set.name, ": '?' for position ", j + 1,
                                                 ": a position any piece may fill only in a set whose pieces do "
                                                 "not turn (this one's have ", set.orientations, " orientations)"));
        }
        continue;
      }
      const int o = part.orientations.empty() ? 0 : part.orientations[static_cast<size_t>(j)];
      (o < 0 ? wild : tame).set(label);
      if (o > 0 && set.orientations > 1) goal[static_cast<size_t>(set.offset + set.size + j)] = static_cast<uint8_t>(o);
    }
    if (set.orientations == 1) continue;  // '?' of a set that does not turn: nothing to forget
    if ((wild & tame).any()) {
      size_t label = 0;
      while (!(wild & tame)[label]) ++label;
      return Error(part.orientations_line,
                   Cat(what, ": set ", set.name, ": pieces labelled ", label,
                       " have '?' for an orientation at some positions and not at others (identical "
                       "pieces are all wild or none)"));
    }
    if (!out_.goals_.empty() && wild != set.wild) {
      return Error(part.orientations_line > 0 ? part.orientations_line : first.number,
                   Cat(what, ": set ", set.name, ": '?' stands for other pieces' orientations than in "
                                                 "the first goal (each goal forgets the same pieces')"));
    }
    set.wild = wild;
  }
  // A set left out holds its pieces in order, 1 to N, unturned (as twsearch reads it).
  for (size_t s = 0; s < out_.sets_.size(); ++s) {
    const bool given = std::any_of(parts.begin(), parts.end(),
                                   [&](const SetPart& p) { return p.set == static_cast<int>(s); });
    if (!given) {
      const DefinedSet& set = out_.sets_[s];
      for (int j = 0; j < set.size; ++j) {
        goal[static_cast<size_t>(set.offset + j)] = static_cast<uint8_t>(j + 1);
      }
    }
  }
  out_.goals_.push_back(std::move(goal));
  goal_lines_.push_back(first.number);
  return absl::OkStatus();
}

absl::Status DefinitionReader::SettleGoals(Definition* d) {
  // The goals as written (0: any piece); each set's pieces (SettleGoals' `held`).
  d->patterns_ = out_.goals_;
  std::vector<std::vector<int>> held(out_.sets_.size());
  for (size_t s = 0; s < out_.sets_.size(); ++s) {
    const DefinedSet& set = out_.sets_[s];
    const auto begin = static_cast<size_t>(set.offset);
    bool free = false;
    for (const DefinedState& goal : out_.goals_) {
      free |= std::count(goal.begin() + static_cast<long>(begin), goal.begin() + static_cast<long>(begin) + set.size, 0) > 0;
    }
    std::vector<int> most(static_cast<size_t>(set.size) + 1, 0);  // by label: the most a goal names it
    for (size_t g = 0; g < out_.goals_.size(); ++g) {
      std::vector<int> count(static_cast<size_t>(set.size) + 1, 0);
      for (int j = 0; j < set.size; ++j) ++count[out_.goals_[g][begin + static_cast<size_t>(j)]];
      count[0] = 0;
      if (!free && g > 0 && count != most) {
        return Error(goal_lines_[g], Cat("Solved (goal ", g + 1, "): set ", set.name,
                                         " holds other pieces than the first goal's (each goal "
                                         "holds the same labels, moved)"));
      }
      for (size_t l = 1; l < count.size(); ++l) most[l] = std::max(most[l], count[l]);
    }
    // With positions any piece may fill, each label is held as often as the goal that names
    // it most often names it; those must make the set's pieces.
    int total = 0;
    std::vector<std::string> named;
    for (size_t l = 1; l < most.size(); ++l) {
      total += most[l];
      if (most[l] > 0) named.push_back(Cat(l, " x", most[l]));
      held[s].insert(held[s].end(), static_cast<size_t>(most[l]), static_cast<int>(l));
    }
    if (total != set.size) {
      return Error(goal_lines_[0],
                   Cat("set ", set.name, ": its goals leave positions to any piece ('?'), so its pieces are each "
                       "label as often as the goal naming it most often names it (", Join(named, ", "), "): ",
                       total, " pieces where it has ", set.size,
                       " positions (write one goal that names every position, or name each label's copies in one goal)"));
    }
  }
  // Every state each goal stands for: its free positions filled with the pieces it leaves,
  // in every distinct order (the first: ascending, in position order).
  double states = 0;
  for (size_t g = 0; g < out_.goals_.size(); ++g) {
    double n = 1;
    for (size_t s = 0; s < out_.sets_.size(); ++s) {
      const DefinedSet& set = out_.sets_[s];
      std::vector<int> left = held[s];
      int free = 0;
      for (int j = 0; j < set.size; ++j) {
        const int label = out_.goals_[g][static_cast<size_t>(set.offset + j)];
        if (label == 0) {
          ++free;
        } else {
          left.erase(std::find(left.begin(), left.end(), label));
        }
      }
      // Multinomial: free! / prod(count!), as a product of binomials.
      int placed = 0;
      for (size_t i = 0; i < left.size();) {
        size_t k = i;
        while (k < left.size() && left[k] == left[i]) ++k;
        for (size_t c = 1; c <= k - i; ++c) n = n * static_cast<double>(placed + static_cast<int>(c)) / static_cast<double>(c);
        placed += static_cast<int>(k - i);
        i = k;
      }
    }
    states += n;
    if (states > static_cast<double>(limits_.max_goal_states)) {
      return Error(goal_lines_[g], Cat("Solved (goal ", g + 1, "): the goals stand for more than ",
                                       limits_.max_goal_states, " states (the positions they leave to any piece, filled "
                                       "every way); name more of the pieces"));
    }
    if (states * static_cast<double>(state_bytes_) > static_cast<double>(limits_.max_goal_bytes)) {
      return Error(goal_lines_[g], Cat("Solved (goal ", g + 1, "): the goals stand for ", static_cast<uint64_t>(states),
                                       " states or more of ", state_bytes_, " bytes, more than the ",
                                       Thousands(limits_.max_goal_bytes), " bytes they may take; name more of the pieces"));
    }
  }
  // A Solved block that names every position must be a state; a free position's fillings
  // that break an Illegal line are none.
  for (size_t g = 0; g < out_.goals_.size(); ++g) {
    const DefinedState& pattern = out_.goals_[g];
    for (const IllegalPlace& place : d->illegal_) {
      if (pattern[place.at] != 0 && place.labels[pattern[place.at]]) {
        return Error(goal_lines_[g], Cat("Solved (goal ", g + 1, "): holds ", static_cast<int>(pattern[place.at]),
                                         " where the Illegal line ", LineName(place.line), " forbids it"));
      }
    }
  }
  std::set<DefinedState> seen;
  d->goals_.clear();
  for (const DefinedState& pattern : out_.goals_) {
    // Each set's free positions and the pieces left for them, ascending.
    std::vector<std::vector<size_t>> at(out_.sets_.size());
    std::vector<std::vector<int>> left(out_.sets_.size());
    for (size_t s = 0; s < out_.sets_.size(); ++s) {
      const DefinedSet& set = out_.sets_[s];
      left[s] = held[s];
      for (int j = 0; j < set.size; ++j) {
        const auto p = static_cast<size_t>(set.offset + j);
        if (pattern[p] == 0) {
          at[s].push_back(p);
        } else {
          left[s].erase(std::find(left[s].begin(), left[s].end(), pattern[p]));
        }
      }
    }
    DefinedState state = pattern;
    // Odometer over the sets' orders, the last set fastest.
    while (true) {
      for (size_t s = 0; s < at.size(); ++s) {
        for (size_t i = 0; i < at[s].size(); ++i) state[at[s][i]] = static_cast<uint8_t>(left[s][i]);
      }
      if (d->Legal(state.data()) && seen.insert(state).second) d->goals_.push_back(state);
      size_t s = at.size();
      while (s > 0 && !std::next_permutation(left[s - 1].begin(), left[s - 1].end())) --s;
      if (s == 0) break;
    }
  }
  if (d->goals_.empty()) {
    return Error(goal_lines_[0], "the goals stand for no state that the Illegal lines allow");
  }
  d->SettleGoalLookup();
  return absl::OkStatus();
}

absl::Status DefinitionReader::ReadMove(const Line& first) {
  // twsearch's MoveTransformation: a Move block whose positions count from 0.
  zero_based_ = first.tokens[0] == "MoveTransformation";
  // "Move A single": the move alone, without its powers (ours).
  const bool single = first.tokens.size() == 3 && first.tokens[2] == "single";
  if (first.tokens.size() < 2) {
    return Error(first.number, Cat("Move takes one name (Move U), got ", first.tokens.size() - 1, " words"));
  }
  if (first.tokens.size() != 2 && !single) {
    return Error(first.number, Cat("Move takes one name (Move U), and maybe the word single (Move A single: "
                                   "no powers), got ", QuoteInput(Join(std::vector<std::string_view>(
                                                                          first.tokens.begin() + 1, first.tokens.end()),
                                                                      " "))));
  }
  if (out_.sets_.empty()) return Error(first.number, "Move before any Set");
  const std::string name(first.tokens[1]);
  if (!PrintableAscii(name)) {
    return Error(first.number, Cat("Move ", QuoteInput(name), ": a move's name is printable ASCII"));
  }
  const bool rotation = RotationName(name);
  const std::string what = Cat("Move ", name);
  if (++blocks_ > limits_.max_blocks) {
    return Error(first.number, Cat("more than ", limits_.max_blocks, " Move blocks"));
  }
  MoveBlock block;
  block.line = first.number;
  std::vector<int> guard_lines;  // where each guard is
  // Its guards first.
  while (at_ + 1 < lines_.size() && lines_[at_ + 1].tokens[0] == "If") {
    ++at_;
    const Line& line = lines_[at_];
    if (line.tokens.size() != 4 && line.tokens.size() != 5) {
      return Error(line.number, Cat(what, ": If takes a set, a position, a piece (or *) and "
                                          "maybe an orientation (If T 5 6)"));
    }
    const int s = SetByName(line.tokens[1]);
    if (s < 0) return Error(line.number, Cat(what, ": If: no set is named ", QuoteInput(line.tokens[1])));
    const DefinedSet& set = out_.sets_[static_cast<size_t>(s)];
    Guard guard;
    guard.set = s;
    const std::string_view position = line.tokens[2];
    guard.position = AllDigits(position) && position.size() <= 3 ? std::stoi(std::string(position)) - 1 : -1;
    if (guard.position < 0 || guard.position >= set.size) {
      return Error(line.number, Cat(what, ": If: position ", QuoteInput(position),
                                    " is not a number from 1 to ", set.size, " (set ", set.name, ")"));
    }
    const std::string_view piece = line.tokens[3];
    if (piece == "*") {
      guard.piece = 0;
    } else {
      guard.piece = AllDigits(piece) && piece.size() <= 3 ? std::stoi(std::string(piece)) : -1;
      if (guard.piece < 1 || guard.piece > set.size) {
        return Error(line.number, Cat(what, ": If: piece ", QuoteInput(piece),
                                      " is not * or a label from 1 to ", set.size, " (set ",
                                      set.name, ")"));
      }
    }
    if (line.tokens.size() == 5) {
      const std::string_view o = line.tokens[4];
      guard.orientation = AllDigits(o) && o.size() <= 3 ? std::stoi(std::string(o)) : 1000;
      if (guard.orientation >= set.orientations) {
        return Error(line.number, Cat(what, ": If: orientation ", QuoteInput(o),
                                      " is not a number from 0 to ", set.orientations - 1,
                                      " (set ", set.name, ")"));
      }
    } else if (guard.piece == 0) {
      return Error(line.number, Cat(what, ": If: any piece (*) and any orientation: the guard "
                                          "says nothing; give an orientation"));
    }
    // Two guards of one position that cannot both hold: the block could never apply.
    for (size_t g = 0; g < block.guards.size(); ++g) {
      const Guard& other = block.guards[g];
      if (other.set != guard.set || other.position != guard.position) continue;
      const bool pieces = other.piece != 0 && guard.piece != 0 && other.piece != guard.piece;
      const bool turns = other.orientation >= 0 && guard.orientation >= 0 &&
                         other.orientation != guard.orientation;
      if (pieces || turns) {
        return Error(line.number,
                     Cat(what, ": If: contradicts the If of line ", LineName(guard_lines[g]), " (position ",
                         guard.position + 1, " of set ", set.name, " cannot hold ",
                         pieces ? Cat("pieces ", other.piece, " and ", guard.piece)
                                : Cat("orientations ", other.orientation, " and ", guard.orientation),
                         " at once): the block could never apply"));
      }
    }
    block.guards.push_back(guard);
    guard_lines.push_back(line.number);
  }
  std::vector<SetPart> parts;
  if (absl::Status read = ReadParts(what, /*labels=*/false, &parts); !read.ok()) return read;
  // The identity on the sets left out.
  size_t slots = 0;
  for (const DefinedSet& set : out_.sets_) slots += static_cast<size_t>(set.size);
  block.transform.source.resize(slots);
  block.transform.twist.assign(slots, 0);
  size_t slot = 0;
  for (size_t s = 0; s < out_.sets_.size(); ++s) {
    const DefinedSet& set = out_.sets_[s];
    const SetPart* part = nullptr;
    for (const SetPart& p : parts) {
      if (p.set == static_cast<int>(s)) part = &p;
    }
    for (int j = 0; j < set.size; ++j, ++slot) {
      block.transform.source[slot] =
          static_cast<uint8_t>(part != nullptr ? part->values[static_cast<size_t>(j)] - 1 : j);
      // Given by piece (docs/PUZZLES.md, as ksolve and twsearch read them): o_k is the twist
      // of the piece that was at position k; position j takes the piece from p_j.
      if (part != nullptr && !part->orientations.empty()) {
        block.transform.twist[slot] = static_cast<uint8_t>(
            part->orientations[static_cast<size_t>(part->values[static_cast<size_t>(j)] - 1)]);
      }
    }
  }
  // What the orientation lines would say in today's reading had they been written in the
  // old one (by destination: o_j turned the piece landing at j): o_{p_j} = old o_j.
  for (const SetPart& part : parts) {
    if (part.orientations.empty()) continue;
    TwistLine line{part.orientations_line, std::vector<int>(part.orientations.size(), 0)};
    for (size_t j = 0; j < part.values.size(); ++j) {
      line.by_piece[static_cast<size_t>(part.values[j] - 1)] = part.orientations[j];
    }
    legacy_twists_.push_back(std::move(line));
  }
  bool identity = true;
  for (size_t i = 0; i < slots && identity; ++i) {
    identity = block.transform.twist[i] == 0;
  }
  slot = 0;
  for (const DefinedSet& set : out_.sets_) {
    for (int j = 0; j < set.size && identity; ++j, ++slot) identity = block.transform.source[slot] == j;
    if (!identity) break;
  }
  if (identity) return Error(first.number, Cat(what, ": changes nothing"));
  const bool guarded = !block.guards.empty();
  if (rotation) {
    // twsearch's whole-puzzle rotations (x, y, z, x2, x', names ending in v) are no moves:
    // twsearch does not count them; a MoveSequence may name them (R = Fv L Fv).
    if (guarded || single) {
      return Error(first.number, Cat(what, ": a whole-puzzle rotation (a name like x, y, z or ending in v) "
                                           "takes no If and is not single"));
    }
    for (const Unexpanded& r : rotations_) {
      if (r.name == name) return Error(first.number, Cat(what, ": given again (first at line ", LineName(r.line), ")"));
    }
    Unexpanded r;
    r.name = name;
    r.line = first.number;
    r.blocks.push_back(std::move(block));
    rotations_.push_back(std::move(r));
    return absl::OkStatus();
  }
  for (Unexpanded& m : moves_) {
    if (m.name != name) continue;
    if (!m.guarded || !guarded) {
      return Error(first.number,
                   Cat(what, ": given again (first at line ", LineName(m.line),
                       "); only guarded moves (If) may have several blocks, and a name is "
                       "guarded in all its blocks or in none"));
    }
    if (single != m.single) {
      return Error(first.number, Cat(what, ": single here and not at line ", LineName(m.line), " (or the other way)"));
    }
    m.blocks.push_back(std::move(block));
    return absl::OkStatus();
  }
  Unexpanded move;
  move.name = name;
  move.guarded = guarded;
  move.single = single;
  move.line = first.number;
  move.blocks.push_back(std::move(block));
  moves_.push_back(std::move(move));
  return absl::OkStatus();
}

absl::Status DefinitionReader::ReadMoveAlias(const Line& line) {
  if (out_.goals_.empty()) return Error(line.number, "MoveAlias before any Solved block: it comes after them");
  if (line.tokens.size() != 3) return Error(line.number, "MoveAlias takes a name and the move it stands for (MoveAlias F2 F2)");
  aliases_.push_back({std::string(line.tokens[1]), std::string(line.tokens[2]), line.number});
  return absl::OkStatus();
}

absl::Status DefinitionReader::ReadIllegal(const Line& line) {
  if (out_.goals_.empty()) return Error(line.number, "Illegal before any Solved block: Illegal lines come after them");
  if (line.tokens.size() < 4) {
    return Error(line.number, "Illegal takes a set, a position and the labels it may not hold (Illegal SLICE 3 17)");
  }
  const int s = SetByName(line.tokens[1]);
  if (s < 0) return Error(line.number, Cat("Illegal: no set is named ", QuoteInput(line.tokens[1])));
  const DefinedSet& set = out_.sets_[static_cast<size_t>(s)];
  const std::string_view position = line.tokens[2];
  const int p = AllDigits(position) && position.size() <= 3 ? std::stoi(std::string(position)) : 0;
  if (p < 1 || p > set.size) {
    return Error(line.number, Cat("Illegal: position ", QuoteInput(position), " is not a number from 1 to ",
                                  set.size, " (set ", set.name, ")"));
  }
  const auto at = static_cast<uint16_t>(set.offset + p - 1);
  IllegalPlace* place = nullptr;
  for (IllegalPlace& known : out_.illegal_) {
    if (known.at == at) place = &known;
  }
  if (place == nullptr) place = &out_.illegal_.emplace_back(IllegalPlace{at, {}, line.number});
  for (size_t i = 3; i < line.tokens.size(); ++i) {
    const std::string_view label = line.tokens[i];
    const int l = AllDigits(label) && label.size() <= 3 ? std::stoi(std::string(label)) : 0;
    if (l < 1 || l > set.size) {
      return Error(line.number, Cat("Illegal: label ", QuoteInput(label), " is not a number from 1 to ", set.size,
                                    " (set ", set.name, ")"));
    }
    place->labels.set(static_cast<size_t>(l));
  }
  return absl::OkStatus();
}

absl::Status DefinitionReader::ReadMoveSequence(const Line& first) {
  if (first.tokens.size() < 3) {
    return Error(first.number, "MoveSequence takes a name and the moves it makes (MoveSequence R Fv L Fv)");
  }
  if (out_.sets_.empty()) return Error(first.number, "MoveSequence before any Set");
  const std::string name(first.tokens[1]);
  const std::string what = Cat("MoveSequence ", QuoteInput(name));
  if (!PrintableAscii(name)) return Error(first.number, Cat(what, ": a move's name is printable ASCII"));
  if (RotationName(name)) {
    return Error(first.number, Cat(what, ": a sequence named as a whole-puzzle rotation is not supported; "
                                         "name it as a move"));
  }
  if (first.tokens.size() - 2 > kMaxSequenceSteps) {
    return Error(first.number, Cat(what, ": more than ", kMaxSequenceSteps, " steps"));
  }
  for (const Unexpanded& m : moves_) {
    if (m.name == name) return Error(first.number, Cat(what, ": the name is taken (by the move at line ", m.line, ")"));
  }
  if (++blocks_ > limits_.max_blocks) {
    return Error(first.number, Cat("more than ", limits_.max_blocks, " Move blocks"));
  }
  Unexpanded move;
  move.name = name;
  move.line = first.number;
  for (size_t i = 2; i < first.tokens.size(); ++i) move.steps.emplace_back(first.tokens[i]);
  moves_.push_back(std::move(move));
  return absl::OkStatus();
}

uint64_t DefinitionReader::OrderOf(const Transform& t) const {
  // The least common multiple, over its cycles, of each cycle's length times the order of
  // the twist it adds up to.
  const uint64_t cap = static_cast<uint64_t>(limits_.max_moves) + 1;
  uint64_t order = 1;
  size_t base = 0;
  for (const DefinedSet& set : out_.sets_) {
    std::vector<bool> done(static_cast<size_t>(set.size), false);
    for (int j = 0; j < set.size; ++j) {
      if (done[static_cast<size_t>(j)]) continue;
      uint64_t length = 0;
      int twist = 0;
      for (int k = j; !done[static_cast<size_t>(k)]; k = t.source[base + static_cast<size_t>(k)]) {
        done[static_cast<size_t>(k)] = true;
        ++length;
        twist = (twist + t.twist[base + static_cast<size_t>(k)]) % set.orientations;
      }
      const uint64_t cycle = length * static_cast<uint64_t>(set.orientations / std::gcd(set.orientations, twist));
      order = std::min(cap, order / std::gcd(order, cycle) * cycle);
    }
    base += static_cast<size_t>(set.size);
  }
  return order;
}

absl::Status DefinitionReader::ResolveSequences() {
  if (std::none_of(moves_.begin(), moves_.end(), [](const Unexpanded& m) { return !m.steps.empty(); })) {
    return absl::OkStatus();  // no sequence: nothing to learn the powers for
  }
  // Every unguarded move's and rotation's powers by name, as they are named.
  std::map<std::string, Transform> known;
  std::set<std::string> guarded;
  auto learn = [&](const std::string& name, const Transform& t, bool single = false) {
    if (single) {  // the move alone
      known.emplace(name, t);
      return;
    }
    const uint64_t order = OrderOf(t);
    Transform power = t;
    for (uint64_t p = 1; p < order && p <= static_cast<uint64_t>(limits_.max_moves); ++p) {
      known.emplace(PowerName(name, p, order), power);
      power = Compose(out_.sets_, power, t);
    }
  };
  for (const Unexpanded& r : rotations_) learn(r.name, r.blocks[0].transform);
  std::vector<Unexpanded*> waiting;
  for (Unexpanded& m : moves_) {
    if (m.guarded) {
      guarded.insert(m.name);
    } else if (m.steps.empty()) {
      learn(m.name, m.blocks[0].transform, m.single);
    } else {
      waiting.push_back(&m);
    }
  }
  // In rounds, as twsearch does: a sequence whose steps are all known is composed.
  for (bool progress = true; progress && !waiting.empty();) {
    progress = false;
    for (auto it = waiting.begin(); it != waiting.end();) {
      Unexpanded& m = **it;
      const bool ready = std::all_of(m.steps.begin(), m.steps.end(),
                                     [&](const std::string& step) { return known.contains(step); });
      if (!ready) {
        ++it;
        continue;
      }
      MoveBlock block;
      block.line = m.line;
      block.transform = known.at(m.steps[0]);
      for (size_t i = 1; i < m.steps.size(); ++i) block.transform = Compose(out_.sets_, block.transform, known.at(m.steps[i]));
      if (OrderOf(block.transform) == 1) {
        return Error(m.line, Cat("MoveSequence ", QuoteInput(m.name), ": changes nothing"));
      }
      m.blocks.push_back(std::move(block));
      learn(m.name, m.blocks[0].transform);
      it = waiting.erase(it);
      progress = true;
    }
  }
  if (waiting.empty()) return absl::OkStatus();
  // The first that cannot be made, and why.
  const Unexpanded& m = *waiting.front();
  for (const std::string& step : m.steps) {
    if (known.contains(step)) continue;
    // A power of a waiting sequence: its name, then digits and maybe a prime.
    const bool pending = std::any_of(waiting.begin(), waiting.end(), [&](const Unexpanded* w) {
      if (step.rfind(w->name, 0) != 0) return false;
      std::string_view rest = std::string_view(step).substr(w->name.size());
      if (!rest.empty() && rest.back() == '\'') rest.remove_suffix(1);
      return std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });
    });
    return Error(m.line, Cat("MoveSequence ", QuoteInput(m.name), ": ", QuoteInput(step),
                             guarded.contains(step) ? " is a guarded move: a sequence composes unguarded moves and rotations"
                             : pending ? " is a sequence that needs this one (or another that cannot be made): "
                                         "sequences may not go round in a circle"
                                       : " is no move, power of a move or rotation of the file"));
  }
  return Error(m.line, Cat("MoveSequence ", QuoteInput(m.name), ": cannot be made"));
}

absl::Status DefinitionReader::Expand(Definition* definition) {
  const auto& sets = definition->sets_;
  for (Unexpanded& m : moves_) {
    if (m.guarded) {
      DefinedMove move;
      move.name = m.name;
      move.blocks = std::move(m.blocks);
      move.guarded = true;
      definition->moves_.push_back(std::move(move));
    } else {
      const Transform& t = m.blocks[0].transform;
      const uint64_t cap = static_cast<uint64_t>(limits_.max_moves) + 1;
      const uint64_t order = OrderOf(t);  // capped past what the limit allows
      const int count = static_cast<int>(definition->moves_.size());
      if (!m.single && (order >= cap || count + static_cast<int>(order) - 1 > limits_.max_moves)) {
        return Error(m.line, Cat("Move ", m.name, ": with its powers (order ",
                                 order >= cap ? Cat("over ", limits_.max_moves) : Cat(order),
                                 ") the puzzle would have more than ", limits_.max_moves,
                                 " moves"));
      }
      Transform power = t;
      for (uint64_t p = 1; p < (m.single ? 2 : order); ++p) {
        DefinedMove move;
        move.name = m.single ? m.name : PowerName(m.name, p, order);
        MoveBlock block;
        block.transform = power;
        block.line = m.line;
        move.blocks.push_back(std::move(block));
        move.power = m.single ? 1 : static_cast<int>(SignedPower(p, order));
        move.single = m.single;
        definition->moves_.push_back(std::move(move));
        power = Compose(sets, power, t);
      }
    }
    if (static_cast<int>(definition->moves_.size()) > limits_.max_moves) {
      return Error(m.line, Cat("Move ", m.name, ": the puzzle would have more than ",
                               limits_.max_moves, " moves"));
    }
  }
  // Every name once, the powers' included.
  for (size_t i = 0; i < definition->moves_.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (definition->moves_[i].name == definition->moves_[j].name) {
        return Error(definition->moves_[i].blocks[0].line,
                     Cat("Move ", definition->moves_[i].name,
                         ": the name is taken (by a move or the power of one written before)"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Definition> DefinitionReader::Read() {
  if (text_.size() > limits_.max_file_bytes) {
    return Error(0, Cat(Thousands(text_.size()), " bytes, more than a definition may take (",
                        Thousands(limits_.max_file_bytes), ")"));
  }
  if (const size_t bad = NotUtf8At(text_); bad != std::string_view::npos) {
    const int line = 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + static_cast<long>(bad), '\n'));
    return Error(line, Cat("not UTF-8 text (byte ", bad, ")"));
  }
  if (absl::Status split = SplitLines(); !split.ok()) return split;
  for (at_ = 0; at_ < lines_.size(); ++at_) {
    const Line& line = lines_[at_];
    const std::string_view word = line.tokens[0];
    absl::Status status;
    if (word == "Name") {
      if (seen_name_) return Error(line.number, "Name is given twice");
      seen_name_ = true;
      std::vector<std::string_view> rest(line.tokens.begin() + 1, line.tokens.end());
      out_.title_ = Join(rest, " ");
    } else if (word == "Set") {
      status = ReadSet(line);
    } else if (word == "Solved" || word == "StartState") {
      status = ReadSolved(line);
    } else if (word == "Move" || word == "MoveTransformation") {
      status = ReadMove(line);
    } else if (word == "MoveAlias") {
      status = ReadMoveAlias(line);
    } else if (word == "MoveSequence") {
      status = ReadMoveSequence(line);
    } else if (word == "Illegal") {
      status = ReadIllegal(line);
    } else if (word == "End" || word == "If") {
      return Error(line.number, Cat(word, " outside a block"));
    } else {
      return Error(line.number, Cat("unknown keyword ", QuoteInput(word),
                                    " (want Name, Set, Solved, Move, MoveSequence, MoveAlias, Illegal, StartState "
                                    "or MoveTransformation)"));
    }
    if (!status.ok()) return status;
  }
  if (out_.sets_.empty()) return Error(0, "no Set: a definition has at least one");
  if (out_.goals_.empty()) return Error(0, "no Solved block: a definition has at least one goal");
  if (moves_.empty()) {
    return Error(0, rotations_.empty() ? "no Move: a definition has at least one"
                                       : "no Move but whole-puzzle rotations, which are no moves: a definition has at least one");
  }
  if (absl::Status resolved = ResolveSequences(); !resolved.ok()) return resolved;
  Definition definition;
  definition.title_ = out_.title_;
  definition.sets_ = out_.sets_;
  definition.illegal_ = out_.illegal_;
  if (absl::Status settled = SettleGoals(&definition); !settled.ok()) return settled;
  // Guards name pieces the puzzle has.
  for (const Unexpanded& m : moves_) {
    for (const MoveBlock& block : m.blocks) {
      for (const Guard& g : block.guards) {
        const DefinedSet& set = out_.sets_[static_cast<size_t>(g.set)];
        const auto begin = definition.goals_[0].begin() + set.offset;
        if (g.piece != 0 && std::find(begin, begin + set.size, g.piece) == begin + set.size) {
          return Error(block.line, Cat("Move ", m.name, ": If: set ", set.name,
                                       " holds no piece labelled ", g.piece));
        }
      }
    }
  }
  definition.state_bytes_ = static_cast<size_t>(state_bytes_);
  if (absl::Status expanded = Expand(&definition); !expanded.ok()) return expanded;
  for (const Alias& alias : aliases_) {
    if (definition.MoveByName(alias.name) >= 0) {
      return Error(alias.line, Cat("MoveAlias ", QuoteInput(alias.name), ": the name is taken (by a move or another alias)"));
    }
    const int move = definition.MoveByName(alias.move);
    if (move < 0) {
      return Error(alias.line, Cat("MoveAlias ", QuoteInput(alias.name), ": ", QuoteInput(alias.move),
                                   " is no move or power of a move of the file"));
    }
    definition.aliases_.emplace_back(alias.name, move);
  }
  return definition;
}

absl::StatusOr<Definition> ReadDefinition(std::string_view text, std::string_view file,
                                          const DefinitionLimits& limits,
                                          std::span<const std::string> line_names) {
  return DefinitionReader(text, file, limits, line_names).Read();
}

absl::StatusOr<std::string> RewriteLegacyTwists(std::string_view text, std::string_view file,
                                                const DefinitionLimits& limits) {
  DefinitionReader reader(text, file, limits);
  if (auto read = reader.Read(); !read.ok()) return read.status();
  std::string out;
  out.reserve(text.size());
  auto twist = reader.legacy_twists().begin();
  const auto end = reader.legacy_twists().end();
  int number = 0;
  for (size_t start = 0; start <= text.size();) {
    const size_t newline = text.find('\n', start);
    std::string_view line = text.substr(start, newline == std::string_view::npos ? std::string_view::npos
                                                                                 : newline - start);
    ++number;
    if (twist != end && twist->line == number) {
      // The numbers replaced in their place; the indentation, a comment and a CR kept.
      const size_t first = line.find_first_not_of(" \t");
      size_t last = line.find('#');
      if (last == std::string_view::npos) last = line.size();
      if (last > 0 && line[last - 1] == '\r' && last == line.size()) --last;
      while (last > first && (line[last - 1] == ' ' || line[last - 1] == '\t')) --last;
      std::vector<std::string> numbers;
      for (int o : twist->by_piece) numbers.push_back(std::to_string(o));
      out += line.substr(0, first);
      out += Join(numbers, " ");
      out += line.substr(last);
      ++twist;
    } else {
      out += line;
    }
    if (newline == std::string_view::npos) break;
    out += '\n';
    start = newline + 1;
  }
  return out;
}

}  // namespace puzzledb
