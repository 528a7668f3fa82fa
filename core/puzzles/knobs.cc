#include "core/puzzles/knobs.h"

#include "core/puzzles/drawing.h"
#include "core/puzzles/model_puzzle.h"
#include "core/util/strings.h"

namespace puzzledb {

absl::StatusOr<KnobsWiring> KnobsWiring::FromNumbers(const std::vector<uint32_t>& numbers) {
  if (numbers.size() != 48) {
    return absl::InvalidArgumentError(
        Cat("a wiring has 48 knob numbers (4 per knob), got ", numbers.size()));
  }
  KnobsWiring wiring;
  for (int i = 0; i < 48; ++i) {
    const int knob = i / 4 + 1;
    const uint32_t target = numbers[i];
    if (target < 1 || target > 12) {
      return absl::InvalidArgumentError(Cat("knob ", knob, "'s wiring for state ",
                                                     i % 4 + 1, " is ", target,
                                                     "; knob numbers are 1..12"));
    }
    if (static_cast<int>(target) == knob) {
      return absl::InvalidArgumentError(
          Cat("knob ", knob, "'s wiring for state ", i % 4 + 1, " points at knob ", knob,
                       " itself; a turn must also advance another knob"));
    }
    wiring.target[i] = static_cast<uint8_t>(target - 1);
  }
  return wiring;
}

std::vector<uint32_t> KnobsWiring::ToNumbers() const {
  std::vector<uint32_t> numbers;
  for (uint8_t t : target) numbers.push_back(t + 1u);
  return numbers;
}

uint64_t KnobsWiring::Fingerprint() const {
  uint64_t hash = 14695981039346656037ull;
  for (uint8_t t : target) {
    hash ^= t;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string KnobsPuzzle::TableId(const Params& wiring) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string id = "knobs-";
  const uint64_t fingerprint = wiring.Fingerprint();
  for (int shift = 60; shift >= 0; shift -= 4) id += kDigits[(fingerprint >> shift) & 15];
  return id;
}

std::string KnobsPuzzle::EncodeParams(const Params& wiring) {
  std::string bytes;
  for (uint32_t t : wiring.ToNumbers()) bytes.push_back(static_cast<char>(t));
  return bytes;
}

absl::StatusOr<KnobsPuzzle::Params> KnobsPuzzle::DecodeParams(std::string_view bytes) {
  std::vector<uint32_t> numbers;
  for (char c : bytes) numbers.push_back(static_cast<uint8_t>(c));
  return KnobsWiring::FromNumbers(numbers);
}

std::string KnobsPuzzle::DescribeParams(const Params& wiring) {
  std::string text = "wiring";
  const auto numbers = wiring.ToNumbers();
  for (int knob = 0; knob < kKnobs; ++knob) {
    text += knob == 0 ? " " : " | ";
    for (int s = 0; s < 4; ++s) text += Cat(s == 0 ? "" : " ", numbers[4 * knob + s]);
  }
  return text;
}

int KnobsPuzzle::LowerBound(State s) const {
  int steps = 0;
  for (int knob = 0; knob < kKnobs; ++knob) steps += (4 - Knob(s, knob)) & 3;
  return (steps + 1) / 2;
}

bool KnobsPuzzle::ProvablyUnsolvable(State s) { return KnobsSolvableSpace::OddSum(s); }

absl::StatusOr<KnobsPuzzle::State> KnobsPuzzle::StateFromNumbers(
    const std::vector<uint32_t>& positions) {
  if (positions.size() != kKnobs) {
    return absl::InvalidArgumentError(
        Cat("there are 12 knobs, got ", positions.size(), " states"));
  }
  State s = 0;
  for (int knob = 0; knob < kKnobs; ++knob) {
    if (positions[knob] < 1 || positions[knob] > 4) {
      return absl::InvalidArgumentError(Cat("knob ", knob + 1, "'s state is ",
                                                     positions[knob], "; states are 1..4"));
    }
    s |= (positions[knob] - 1) << (2 * knob);
  }
  return s;
}

namespace {

// Splits the original's 60 numbers (12 rows of state + 4 targets) into an instance.
absl::StatusOr<KnobsPuzzle::Instance> InstanceFromRows(const std::vector<uint32_t>& numbers) {
  std::vector<uint32_t> positions, targets;
  for (size_t i = 0; i < numbers.size(); ++i) {
    (i % 5 == 0 ? positions : targets).push_back(numbers[i]);
  }
  auto wiring = KnobsWiring::FromNumbers(targets);
  if (!wiring.ok()) return wiring.status();
  auto state = KnobsPuzzle::StateFromNumbers(positions);
  if (!state.ok()) return state.status();
  return KnobsPuzzle::Instance{*wiring, *state};
}

}  // namespace

std::vector<ParsedCase<KnobsPuzzle::Instance>> KnobsPuzzle::ParseOriginal(std::string_view text) {
  std::vector<ParsedCase<Instance>> cases;
  const InputLines lines(text);
  int at = lines.SkipBlank(1);
  if (at > lines.count()) {
    cases.push_back({1, 1, InputError(0, 1, "the input is empty; an instance is 12 lines "
                                             "'state w1 w2 w3 w4'")});
    return cases;
  }
  for (int case_number = 1; at <= lines.count(); ++case_number) {
    ParsedCase<Instance> parsed{case_number, at, absl::UnknownError("unset")};
    std::vector<uint32_t> numbers;
    absl::Status problem;
    int knob = 0;
    for (; knob < kKnobs && at <= lines.count(); ++knob) {
      if (problem.ok()) {
        auto row = ParseNumbers(lines.line(at));
        if (!row.ok()) {
          problem = InputError(case_number, at,
                               Cat("knob ", knob + 1, ": ", Message(row.status())));
        } else if (row->size() != 5) {
          problem = InputError(
              case_number, at,
              Cat("knob ", knob + 1, "'s line has ", row->size(), " numbers, expected 5: ",
                  "its state (1..4) and the knobs it advances from states 1, 2, 3, 4",
                  row->size() % 5 == 0 && row->size() > 5
                      ? " (an instance is 12 lines, one per knob)"
                      : ""));
        } else {
          // Check this line's values now so the error names this line.
          std::vector<uint32_t> targets(row->begin() + 1, row->end());
          if ((*row)[0] < 1 || (*row)[0] > 4) {
            problem = InputError(case_number, at,
                                 Cat("knob ", knob + 1, "'s state is ", (*row)[0],
                                              "; states are 1..4"));
          }
          for (int s = 0; problem.ok() && s < 4; ++s) {
            const uint32_t t = targets[s];
            if (t < 1 || t > 12) {
              problem = InputError(case_number, at,
                                   Cat("knob ", knob + 1, "'s wiring for state ", s + 1,
                                                " is ", t, "; knob numbers are 1..12"));
            } else if (static_cast<int>(t) == knob + 1) {
              problem = InputError(
                  case_number, at,
                  Cat("knob ", knob + 1, "'s wiring for state ", s + 1,
                               " points at knob ", t,
                               " itself; a turn must also advance another knob"));
            }
          }
          numbers.insert(numbers.end(), row->begin(), row->end());
        }
      }
      at = lines.SkipBlank(at + 1);
    }
    // A wrong line says more than the input ending after it (e.g. 12 knobs on one line).
    if (!problem.ok()) {
      parsed.instance = problem;
    } else if (knob < kKnobs) {
      parsed.instance = InputError(case_number, lines.count(),
                                   Cat("the input ended after ", knob,
                                       " of the 12 knob lines of this instance"));
    } else {
      auto instance = InstanceFromRows(numbers);
      parsed.instance =
          instance.ok() ? instance : InputError(case_number, parsed.line, Message(instance.status()));
    }
    if (knob < kKnobs) {
      cases.push_back(std::move(parsed));
      return cases;
    }
    cases.push_back(std::move(parsed));
  }
  return cases;
}

absl::StatusOr<KnobsPuzzle::Instance> KnobsPuzzle::ParseCompact(std::string_view text) {
  auto numbers = ParseNumbers(text);
  if (!numbers.ok()) return numbers.status();
  if (numbers->size() != 60) {
    return absl::InvalidArgumentError(
        Cat("a knobs instance has 60 numbers (12 knobs: state and 4 targets), got ",
                     numbers->size()));
  }
  return InstanceFromRows(*numbers);
}

std::string KnobsPuzzle::FormatCompact(const Instance& instance) {
  std::vector<uint32_t> numbers;
  for (int knob = 0; knob < kKnobs; ++knob) {
    numbers.push_back(static_cast<uint32_t>(Knob(instance.state, knob)) + 1);
    for (int s = 0; s < 4; ++s) numbers.push_back(instance.params.target[4 * knob + s] + 1u);
  }
  return Join(numbers, " ");
}

std::string KnobsPuzzle::FormatOriginal(const std::vector<Instance>& instances) {
  std::string out;
  for (const Instance& instance : instances) {
    for (int knob = 0; knob < kKnobs; ++knob) {
      out += Cat(Knob(instance.state, knob) + 1);
      for (int s = 0; s < 4; ++s) out += Cat(" ", instance.params.target[4 * knob + s] + 1u);
      out += "\n";
    }
  }
  return out;
}

std::string KnobsPuzzle::FormatOriginalAnswer(const Instance&, const KnobsPuzzle&,
                                              const Solution& solution) {
  if (solution.outcome != Outcome::kSolved) return "-1\n";
  std::vector<int> knobs;
  for (uint8_t m : solution.moves) knobs.push_back(m + 1);
  return Cat(solution.distance, "\n", Join(knobs, " "), "\n");
}


std::string KnobsPuzzle::Draw(const Instance& now, const Instance* before) {
  // The knobs' states in a row, the turned ones in brackets; on the first board also,
  // under each knob, the knob its turn also advances from each of its four states.
  std::string knobs = "  knob ", states = "  state", wiring = "  wired";
  for (int k = 0; k < kKnobs; ++k) {
    const int state = Knob(now.state, k) + 1;
    const bool moved = before != nullptr && Knob(before->state, k) != Knob(now.state, k);
    knobs += Cat(k + 1 < 10 ? "    " : "   ", k + 1);
    states += moved ? Cat("  [", state, "]") : Cat("    ", state);
  }
  for (int s = 0; s < 4; ++s) {
    wiring += s == 0 ? "" : "\n       ";
    for (int k = 0; k < kKnobs; ++k) {
      const int target = now.params.target[4 * k + s] + 1;
      wiring += Cat(target < 10 ? "    " : "   ", target);
    }
    wiring += Cat("   (turned from ", s + 1, ")");
  }
  if (before != nullptr) return Cat(knobs, "\n", states, "\n");
  return Cat(knobs, "\n", states, "\n", wiring, "\n");
}

// The twelve knobs in three rows of four, each holding its position 1..4; a click turns a
// knob as the puzzle does (its move: the knob it is wired to turns too, which the page
// shows), and editing by hand cycles a knob's position (the wiring is the parameters: not
// edited here).
BoardLayout KnobsPuzzle::Layout() {
  BoardLayout layout;
  layout.width = 4;
  layout.height = 3;
  const KnobsPuzzle model;
  for (int knob = 0; knob < kKnobs; ++knob) {
    layout.cells.push_back({static_cast<double>(knob % 4), static_cast<double>(knob / 4),
                            Cat("knob ", knob + 1), model.MoveName(State{}, knob)});
  }
  layout.symbols = {{1, "\u2191 1", "#fff9c4"}, {2, "\u2192 2", "#fff9c4"},
                    {3, "\u2193 3", "#fff9c4"}, {4, "\u2190 4", "#fff9c4"}};
  layout.edit = BoardLayout::Edit::kCycle;
  layout.hint =
      "Click a knob to turn it: the knob it is wired to at its position (under its arrow) "
      "turns too. Edit by hand to set a knob alone. Paste an input to change the wiring.";
  return layout;
}

std::vector<int> KnobsPuzzle::Cells(const Instance& instance) {
  std::vector<int> cells;
  for (int knob = 0; knob < kKnobs; ++knob) cells.push_back(Knob(instance.state, knob) + 1);
  return cells;
}

absl::StatusOr<KnobsPuzzle::Instance> KnobsPuzzle::FromCells(const Instance& base,
                                                             std::span<const int> cells) {
  auto state = StateFromNumbers(std::vector<uint32_t>(cells.begin(), cells.end()));
  if (!state.ok()) return state.status();
  return Instance{base.params, *state};
}

PUZZLEDB_REGISTER_PUZZLE(KnobsPuzzle)

}  // namespace puzzledb
