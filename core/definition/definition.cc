#include "core/definition/definition.h"

#include <algorithm>
#include <type_traits>

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
  if (illegal_.empty()) return ApplyAnywhere(from, move, to);
  DefinedState out;
  if (!ApplyAnywhere(from, move, &out) || !Legal(out.data())) return false;
  *to = std::move(out);
  return true;
}

bool Definition::ApplyAnywhere(const DefinedState& from, int move, DefinedState* to) const {
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

bool Definition::Matches(size_t pattern, const uint8_t* state) const {
  const DefinedState& p = patterns_[pattern];
  for (const DefinedSet& set : sets_) {
    const auto n = static_cast<size_t>(set.size);
    const auto base = static_cast<size_t>(set.offset);
    for (size_t j = 0; j < n; ++j) {
      const uint8_t label = p[base + j];
      if (label == 0) continue;
      if (state[base + j] != label) return false;
      if (set.orientations > 1 && state[base + n + j] != p[base + n + j]) return false;
    }
  }
  return true;
}

bool Definition::IsGoal(const uint8_t* state) const {
  if (free_) {
    for (size_t g = 0; g < patterns_.size(); ++g) {
      if (Matches(g, state)) return true;
    }
    return false;
  }
  if (!sorted_goals_.empty()) {
    return std::binary_search(sorted_goals_.begin(), sorted_goals_.end(), state,
                              [this](const auto& a, const auto& b) {
                                if constexpr (std::is_pointer_v<std::decay_t<decltype(a)>>) {
                                  return std::lexicographical_compare(a, a + state_bytes_, b.begin(), b.end());
                                } else {
                                  return std::lexicographical_compare(a.begin(), a.end(), b, b + state_bytes_);
                                }
                              });
  }
  for (const DefinedState& goal : goals_) {
    if (std::equal(goal.begin(), goal.end(), state)) return true;
  }
  return false;
}

void Definition::SettleGoalLookup() {
  free_ = false;
  for (const DefinedState& p : patterns_) {
    for (const DefinedSet& set : sets_) {
      const auto begin = p.begin() + set.offset;
      free_ |= std::find(begin, begin + set.size, uint8_t{0}) != begin + set.size;
    }
  }
  sorted_goals_.clear();
  if (!free_ && goals_.size() > 8) {
    sorted_goals_ = goals_;
    std::sort(sorted_goals_.begin(), sorted_goals_.end());
  }
}

int Definition::MoveByName(std::string_view name) const {
  for (size_t i = 0; i < moves_.size(); ++i) {
    if (moves_[i].name == name) return static_cast<int>(i);
  }
  for (const auto& [alias, move] : aliases_) {
    if (alias == name) return move;
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
  for (const IllegalPlace& place : illegal_) {
    if (!place.labels[state[place.at]]) continue;
    for (const DefinedSet& set : sets_) {
      if (place.at < set.offset || place.at >= set.offset + set.size) continue;
      return absl::InvalidArgumentError(Cat("set ", set.name, ": position ", place.at - set.offset + 1, " holds ",
                                            static_cast<int>(state[place.at]), ", which the Illegal line ",
                                            place.line, " of the definition forbids there"));
    }
  }
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
      const uint8_t label = state[static_cast<size_t>(set.offset + j)];
      out += label == 0 ? std::string("?") : std::to_string(label);  // a pattern's free position
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

bool SamePuzzle(const Definition& a, const Definition& b) {
  if (a.sets().size() != b.sets().size() || a.moves().size() != b.moves().size() ||
      a.goals().size() != b.goals().size() || a.patterns().size() != b.patterns().size()) {
    return false;
  }
  for (size_t s = 0; s < a.sets().size(); ++s) {
    const DefinedSet& x = a.sets()[s];
    const DefinedSet& y = b.sets()[s];
    if (x.name != y.name || x.size != y.size || x.orientations != y.orientations || x.wild != y.wild) return false;
  }
  for (size_t m = 0; m < a.moves().size(); ++m) {
    const DefinedMove& x = a.moves()[m];
    const DefinedMove& y = b.moves()[m];
    if (x.name != y.name || x.guarded != y.guarded || x.power != y.power || x.blocks.size() != y.blocks.size()) {
      return false;
    }
    for (size_t k = 0; k < x.blocks.size(); ++k) {
      const MoveBlock& p = x.blocks[k];
      const MoveBlock& q = y.blocks[k];
      if (p.transform.source != q.transform.source || p.transform.twist != q.transform.twist ||
          p.guards.size() != q.guards.size()) {
        return false;
      }
      for (size_t g = 0; g < p.guards.size(); ++g) {
        const Guard& u = p.guards[g];
        const Guard& v = q.guards[g];
        if (u.set != v.set || u.position != v.position || u.piece != v.piece || u.orientation != v.orientation) {
          return false;
        }
      }
    }
  }
  if (a.illegal().size() != b.illegal().size()) return false;
  for (size_t i = 0; i < a.illegal().size(); ++i) {
    if (a.illegal()[i].at != b.illegal()[i].at || a.illegal()[i].labels != b.illegal()[i].labels) return false;
  }
  auto sorted = [](std::vector<DefinedState> states) {
    std::sort(states.begin(), states.end());
    return states;
  };
  return sorted(a.goals()) == sorted(b.goals()) && sorted(a.patterns()) == sorted(b.patterns());
}

}  // namespace puzzledb
