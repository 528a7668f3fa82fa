#include "core/definition/definition.h"

#include <algorithm>

#include "core/util/strings.h"
#include "core/util/text_input.h"

namespace puzzledb {
namespace {

// Whitespace-separated tokens.
std::vector<std::string_view> Tokens(std::string_view text) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
    size_t end = at;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    if (end > at) out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

// A decimal number below `limit`, or -1.
int SmallNumber(std::string_view token, int limit) {
  if (token.empty() || token.size() > 3) return -1;
  int value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return -1;
    value = value * 10 + (c - '0');
  }
  return value < limit ? value : -1;
}

}  // namespace

bool Definition::Apply(const DefinedState& from, int move, DefinedState* to) const {
  for (const MoveBlock& block : moves_[static_cast<size_t>(move)].blocks) {
    bool holds = true;
    for (const Guard& g : block.guards) {
      const DefinedSet& set = sets_[static_cast<size_t>(g.set)];
      const size_t at = static_cast<size_t>(set.offset + g.position);
      if ((g.piece != 0 && from[at] != g.piece) ||
          (g.orientation >= 0 && set.orientations > 1 &&
           from[at + static_cast<size_t>(set.size)] != g.orientation)) {
        holds = false;
        break;
      }
    }
    if (!holds) continue;
    to->resize(from.size());
    size_t slot = 0;
    for (const DefinedSet& set : sets_) {
      const size_t base = static_cast<size_t>(set.offset);
      const size_t n = static_cast<size_t>(set.size);
      for (size_t j = 0; j < n; ++j, ++slot) {
        const size_t source = base + block.transform.source[slot];
        (*to)[base + j] = from[source];
        if (set.orientations > 1) {
          (*to)[base + n + j] = static_cast<uint8_t>(
              (from[source + n] + block.transform.twist[slot]) % set.orientations);
        }
      }
    }
    ForgetWildTwists(sets_, to->data());
    return true;
  }
  return false;
}

bool Definition::IsGoal(const DefinedState& state) const {
  return std::find(goals_.begin(), goals_.end(), state) != goals_.end();
}

int Definition::MoveByName(std::string_view name) const {
  for (size_t i = 0; i < moves_.size(); ++i) {
    if (moves_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<DefinedState> Definition::ParseCompact(std::string_view text) const {
  std::vector<std::string_view> parts;
  for (size_t at = 0;;) {
    const size_t bar = text.find('|', at);
    parts.push_back(text.substr(at, bar == std::string_view::npos ? std::string_view::npos : bar - at));
    if (bar == std::string_view::npos) break;
    at = bar + 1;
  }
  if (parts.size() != sets_.size()) {
    return absl::InvalidArgumentError(
        Cat(parts.size(), " sets given (separated by '|'), want ", sets_.size(), ": ",
            Join([&] {
              std::vector<std::string> names;
              for (const DefinedSet& s : sets_) names.push_back(s.name);
              return names;
            }(),
                 " | ")));
  }
  DefinedState state(state_bytes_, 0);
  const DefinedState& goal = goals_.front();
  for (size_t i = 0; i < sets_.size(); ++i) {
    const DefinedSet& set = sets_[i];
    const size_t n = static_cast<size_t>(set.size);
    std::string_view part = parts[i];
    std::string_view orientations;
    const size_t slash = part.find('/');
    if (slash != std::string_view::npos) {
      orientations = part.substr(slash + 1);
      part = part.substr(0, slash);
    }
    const std::string where = Cat("set ", set.name, ": ");
    if (slash == std::string_view::npos && set.orientations > 1) {
      return absl::InvalidArgumentError(
          Cat(where, "its ", n, " orientations are missing (labels, then ' / ' and orientations)"));
    }
    if (slash != std::string_view::npos && set.orientations == 1) {
      return absl::InvalidArgumentError(Cat(where, "has no orientations, but '/' gives some"));
    }
    const auto labels = Tokens(part);
    if (labels.size() != n) {
      return absl::InvalidArgumentError(Cat(where, labels.size(), " labels, want ", n));
    }
    std::vector<int> count(n + 1, 0), wanted(n + 1, 0);
    for (size_t j = 0; j < n; ++j) {
      const int label = SmallNumber(labels[j], set.size + 1);
      if (label < 1) {
        return absl::InvalidArgumentError(Cat(where, "label ", QuoteInput(labels[j]),
                                              " at position ", j + 1, " is not a number from 1 to ",
                                              set.size));
      }
      state[static_cast<size_t>(set.offset) + j] = static_cast<uint8_t>(label);
      ++count[static_cast<size_t>(label)];
    }
    for (size_t j = 0; j < n; ++j) ++wanted[goal[static_cast<size_t>(set.offset) + j]];
    for (size_t label = 1; label <= n; ++label) {
      if (count[label] != wanted[label]) {
        const auto times = [](int k) { return k == 1 ? std::string("once") : Cat(k, " times"); };
        return absl::InvalidArgumentError(
            Cat(where, "holds label ", label, " ", times(count[label]), ", the goal ",
                times(wanted[label]), " (a state holds the goal's pieces, moved)"));
      }
    }
    if (set.orientations > 1) {
      const auto values = Tokens(orientations);
      if (values.size() != n) {
        return absl::InvalidArgumentError(Cat(where, values.size(), " orientations, want ", n));
      }
      for (size_t j = 0; j < n; ++j) {
        const uint8_t label = state[static_cast<size_t>(set.offset) + j];
        if (set.wild[label] && values[j] == "?") continue;  // stays 0
        const int o = SmallNumber(values[j], set.orientations);
        if (o < 0) {
          return absl::InvalidArgumentError(Cat(where, "orientation ", QuoteInput(values[j]),
                                                " at position ", j + 1,
                                                " is not a number from 0 to ",
                                                set.orientations - 1));
        }
        state[static_cast<size_t>(set.offset) + n + j] = static_cast<uint8_t>(o);
      }
    }
  }
  ForgetWildTwists(sets_, state.data());
  return state;
}

void ForgetWildTwists(const std::vector<DefinedSet>& sets, uint8_t* state) {
  for (const DefinedSet& set : sets) {
    if (set.orientations == 1 || set.wild.none()) continue;
    for (int j = 0; j < set.size; ++j) {
      if (set.wild[state[set.offset + j]]) state[set.offset + set.size + j] = 0;
    }
  }
}

std::string Definition::FormatCompact(const DefinedState& state) const {
  std::string out;
  for (size_t i = 0; i < sets_.size(); ++i) {
    const DefinedSet& set = sets_[i];
    if (i > 0) out += " | ";
    for (int j = 0; j < set.size; ++j) {
      if (j > 0) out += ' ';
      out += std::to_string(state[static_cast<size_t>(set.offset + j)]);
    }
    if (set.orientations > 1) {
      out += " /";
      for (int j = 0; j < set.size; ++j) {
        out += ' ';
        out += set.wild[state[static_cast<size_t>(set.offset + j)]]
                   ? std::string("?")
                   : std::to_string(state[static_cast<size_t>(set.offset + set.size + j)]);
      }
    }
  }
  return out;
}

absl::StatusOr<DefinedState> Definition::ParseMoves(std::string_view text) const {
  DefinedState state = goals_.front(), next;
  int number = 0;
  for (std::string_view name : Tokens(text)) {
    ++number;
    const int move = MoveByName(name);
    if (move < 0) {
      std::vector<std::string> names;
      for (const DefinedMove& m : moves_) names.push_back(m.name);
      return absl::InvalidArgumentError(Cat("move ", number, ": ", QuoteInput(name),
                                            " is no move of this puzzle (its moves: ",
                                            Join(names, " "), ")"));
    }
    if (!Apply(state, move, &next)) {
      return absl::InvalidArgumentError(
          Cat("move ", number, ": ", name, " does not apply there (its guards do not hold)"));
    }
    state.swap(next);
  }
  return state;
}

Transform Compose(const std::vector<DefinedSet>& sets, const Transform& first,
                  const Transform& second) {
  Transform out;
  out.source.resize(first.source.size());
  out.twist.resize(first.twist.size());
  size_t slot = 0;
  for (const DefinedSet& set : sets) {
    const size_t base = slot;
    for (int j = 0; j < set.size; ++j, ++slot) {
      const size_t via = base + second.source[slot];
      out.source[slot] = first.source[via];
      out.twist[slot] =
          static_cast<uint8_t>((first.twist[via] + second.twist[slot]) % set.orientations);
    }
  }
  return out;
}

}  // namespace puzzledb
