// A definition's every state that reaches a goal, with its distance and its answer, found by
// the tests' own search with nothing but Definition::Apply: what the index, the search and
// the tables are checked against (tests/definition_test.cc, tests/defined_puzzle_test.cc).
#ifndef PUZZLEDB_TESTS_DEFINITION_BRUTE_FORCE_H_
#define PUZZLEDB_TESTS_DEFINITION_BRUTE_FORCE_H_

#include <algorithm>
#include <cstdint>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/definition/definition.h"

namespace puzzledb::testing {

// Every state that reaches a goal, with its distance: a breadth-first search backwards,
// done forwards from each state's moves (the definitions here are small).
class BruteForce {
 public:
  static std::string Key(const DefinedState& s) { return std::string(s.begin(), s.end()); }

  explicit BruteForce(const Definition& d) : d_(d) {
    // Forward search from every goal over the moves, then distances by a backward pass
    // over the edges found.
    std::queue<DefinedState> queue;
    for (const DefinedState& goal : d.goals()) {
      if (index_.emplace(Key(goal), states_.size()).second) {
        states_.push_back(goal);
        queue.push(goal);
      }
    }
    DefinedState next;
    while (!queue.empty()) {
      const DefinedState s = queue.front();
      queue.pop();
      for (int m = 0; m < static_cast<int>(d.moves().size()); ++m) {
        if (!d.Apply(s, m, &next)) continue;
        if (index_.emplace(Key(next), states_.size()).second) {
          states_.push_back(next);
          queue.push(next);
        }
      }
    }
    // Distances to a goal: Bellman-Ford style rounds over the forward edges (small spaces).
    distance_.assign(states_.size(), -1);
    for (const DefinedState& goal : d.goals()) distance_[index_.at(Key(goal))] = 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < states_.size(); ++i) {
        for (int m = 0; m < static_cast<int>(d.moves().size()); ++m) {
          if (!d.Apply(states_[i], m, &next)) continue;
          const auto it = index_.find(Key(next));
          if (it == index_.end() || distance_[it->second] < 0) continue;
          const int through = distance_[it->second] + 1;
          if (distance_[i] < 0 || through < distance_[i]) {
            distance_[i] = through;
            changed = true;
          }
        }
      }
    }
  }
  size_t size() const { return states_.size(); }
  const std::vector<DefinedState>& states() const { return states_; }
  int distance(size_t i) const { return distance_[i]; }
  // States per distance, of those that reach a goal.
  std::vector<uint64_t> Histogram() const {
    std::vector<uint64_t> h(static_cast<size_t>(farthest()) + 1, 0);
    for (int d : distance_) {
      if (d >= 0) ++h[static_cast<size_t>(d)];
    }
    return h;
  }
  int farthest() const { return *std::max_element(distance_.begin(), distance_.end()); }
  // The distance of a state (-1: it reaches no goal, or is not reachable from one).
  int DistanceOf(const DefinedState& s) const {
    const auto it = index_.find(Key(s));
    return it == index_.end() ? -1 : distance_[it->second];
  }
  // The number of optimal move sequences from `s` (0 if it reaches no goal): each move that
  // goes one step closer, summed over what follows it.
  uint64_t OptimalCount(const DefinedState& s) const {
    const int d = DistanceOf(s);
    if (d <= 0) return d == 0 ? 1 : 0;
    const std::string key = Key(s);
    if (const auto known = counts_.find(key); known != counts_.end()) return known->second;
    uint64_t count = 0;
    DefinedState next;
    for (int m = 0; m < static_cast<int>(d_.moves().size()); ++m) {
      if (d_.Apply(s, m, &next) && DistanceOf(next) == d - 1) count += OptimalCount(next);
    }
    counts_.emplace(key, count);
    return count;
  }
  // The first `limit` optimal sequences, by move names, in the moves' canonical order
  // (their order in the file) compared move by move.
  std::vector<std::string> FirstOptimal(const DefinedState& s, size_t limit) const {
    std::vector<std::string> out;
    std::vector<std::string> path;
    FirstOptimal(s, limit, &path, &out);
    return out;
  }

  // The answer line of the original output: "d m1 m2 ...", "0", or "-1".
  std::string Answer(DefinedState s) const {
    auto it = index_.find(Key(s));
    if (it == index_.end() || distance_[it->second] < 0) return "-1";
    int d = distance_[it->second];
    std::string out = std::to_string(d);
    DefinedState next;
    while (d > 0) {
      for (int m = 0; m < static_cast<int>(d_.moves().size()); ++m) {
        if (!d_.Apply(s, m, &next)) continue;
        const auto n = index_.find(Key(next));
        if (n != index_.end() && distance_[n->second] == d - 1) {
          out += " " + d_.moves()[static_cast<size_t>(m)].name;
          s = next;
          --d;
          break;
        }
      }
    }
    return out;
  }

 private:
  void FirstOptimal(const DefinedState& s, size_t limit, std::vector<std::string>* path,
                    std::vector<std::string>* out) const {
    const int d = DistanceOf(s);
    if (out->size() >= limit || d < 0) return;
    if (d == 0) {
      std::string line;
      for (const std::string& m : *path) line += (line.empty() ? "" : " ") + m;
      out->push_back(line);
      return;
    }
    DefinedState next;
    for (int m = 0; m < static_cast<int>(d_.moves().size()); ++m) {
      if (!d_.Apply(s, m, &next) || DistanceOf(next) != d - 1) continue;
      path->push_back(d_.moves()[static_cast<size_t>(m)].name);
      FirstOptimal(next, limit, path, out);
      path->pop_back();
    }
  }

  const Definition& d_;
  std::vector<DefinedState> states_;
  // By the state's bytes as a string (a map of vectors trips a false warning of g++ 12).
  std::unordered_map<std::string, size_t> index_;
  std::vector<int> distance_;
  mutable std::unordered_map<std::string, uint64_t> counts_;
};

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_DEFINITION_BRUTE_FORCE_H_
