// Reference answers for the tests, computed the slow and obvious way: a breadth-first
// search backwards from the goals over a hash map, and the greedy smallest-move walk.
#ifndef PUZZLEDB_TESTS_BRUTE_FORCE_H_
#define PUZZLEDB_TESTS_BRUTE_FORCE_H_

#include <cstdint>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/model/model.h"

namespace puzzledb::testing {

// Distances to the goal of every space state within `radius` moves, keyed by rank.
template <IndexedSpace S>
std::unordered_map<uint64_t, int> DistancesWithin(const S& space, int radius) {
  std::unordered_map<uint64_t, int> distance;
  std::vector<typename S::State> frontier = space.Goals();
  for (const auto& g : frontier) distance[space.Rank(g)] = 0;
  for (int d = 1; d <= radius; ++d) {
    std::vector<typename S::State> next;
    for (const auto& s : frontier) {
      for (int m = 0; m < S::kNumMoves; ++m) {
        typename S::State p;
        if (space.Undo(s, m, &p) && distance.emplace(space.Rank(p), d).second) next.push_back(p);
      }
    }
    frontier.swap(next);
  }
  return distance;
}

// Distances of every state of a dense space, -1 where the goal is unreachable.
template <IndexedSpace S>
std::vector<int8_t> AllDistances(const S& space) {
  std::vector<int8_t> distance(space.Size(), -1);
  std::vector<typename S::State> frontier = space.Goals();
  for (const auto& g : frontier) distance[space.Rank(g)] = 0;
  for (int d = 1; !frontier.empty(); ++d) {
    std::vector<typename S::State> next;
    for (const auto& s : frontier) {
      for (int m = 0; m < S::kNumMoves; ++m) {
        typename S::State p;
        if (!space.Undo(s, m, &p)) continue;
        int8_t& slot = distance[space.Rank(p)];
        if (slot < 0) {
          slot = static_cast<int8_t>(d);
          next.push_back(p);
        }
      }
    }
    frontier.swap(next);
  }
  return distance;
}

// The lexicographically smallest optimal path of a puzzle state, from any function giving
// exact distances of puzzle states: from distance d take the smallest move to d - 1.
template <PuzzleModel P, class DistanceOf>
std::vector<uint8_t> GreedyPath(const P& model, typename P::State s, DistanceOf distance_of) {
  std::vector<uint8_t> path;
  for (int d = distance_of(s); d > 0; --d) {
    for (int m = 0; m < P::kNumMoves; ++m) {
      typename P::State t;
      if (model.Apply(s, m, &t) && distance_of(t) == d - 1) {
        path.push_back(static_cast<uint8_t>(m));
        s = t;
        break;
      }
    }
  }
  return path;
}

// Applies `moves` from `s`; true if every move is legal and the result is a goal.
template <PuzzleModel P>
bool Replays(const P& model, typename P::State s, const std::vector<uint8_t>& moves) {
  for (uint8_t m : moves) {
    typename P::State t;
    if (!model.Apply(s, m, &t)) return false;
    s = t;
  }
  return model.IsGoal(s);
}

// One line of tests/golden/knight_exact.txt: a board (25 characters), its exact
// distance and its lexicographically smallest optimal sequence (cell names).
struct KnightExactSample {
  std::string board;
  int distance = 0;
  std::vector<std::string> moves;
};

inline std::vector<KnightExactSample> ParseKnightExact(const std::string& text) {
  std::vector<KnightExactSample> samples;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    KnightExactSample sample;
    fields >> sample.board >> sample.distance;
    for (std::string name; fields >> name;) sample.moves.push_back(name);
    samples.push_back(sample);
  }
  return samples;
}

// The names of `moves` made from `s`, in order (knight moves are named from where they are
// made).
template <PuzzleModel P>
std::vector<std::string> MoveNames(const P& model, typename P::State s,
                                   const std::vector<uint8_t>& moves) {
  std::vector<std::string> names;
  for (uint8_t m : moves) {
    names.push_back(model.MoveName(s, m));
    model.Apply(s, m, &s);
  }
  return names;
}

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_BRUTE_FORCE_H_
