// A table whose space keeps one entry per class of states under a group of symmetries
// that keep distances (the knight's model: a board and its mirror; a definition's index
// with symmetry classes, layout 4): what its entries stand for, asked the same way of
// either.
//
// A class of rank r holds ClassSize states, its members j = 0 .. size - 1 (member 0 the
// space's Unrank(r)); ClassImage says which member a state is. The group's order bounds
// every class's size; SmallClasses lists the classes of fewer states, ascending by rank.
// A model without classes: order 1, each entry one state.
#ifndef PUZZLEDB_CORE_TABLE_STATE_CLASSES_H_
#define PUZZLEDB_CORE_TABLE_STATE_CLASSES_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace puzzledb {

template <class P>
constexpr bool kMirrorClasses = requires { P::Space::kMirrorQuotient; };

template <class P>
int ClassOrder(const P& model) {
  if constexpr (kMirrorClasses<P>) {
    return 2;
  } else if constexpr (requires { model.ClassOrder(); }) {
    return model.ClassOrder();
  } else {
    return 1;
  }
}

template <class P>
std::vector<std::pair<uint64_t, int>> SmallClasses(const P& model) {
  if constexpr (kMirrorClasses<P>) {
    std::vector<std::pair<uint64_t, int>> small;
    for (const auto& s : P::Space::SelfMirrored()) small.emplace_back(model.space().Rank(s), 1);
    std::sort(small.begin(), small.end());
    return small;
  } else if constexpr (requires { model.SmallClasses(); }) {
    return model.SmallClasses();
  } else {
    return {};
  }
}

template <class P>
typename P::State ClassMember(const P& model, uint64_t rank, int j) {
  if constexpr (kMirrorClasses<P>) {
    const auto s = model.space().Unrank(rank);
    return j == 0 ? s : P::Mirror(s);
  } else if constexpr (requires { model.ClassMember(rank, j); }) {
    return model.ClassMember(rank, j);
  } else {
    return model.space().Unrank(rank);
  }
}

template <class P>
int ClassImage(const P& model, const typename P::State& s) {
  if constexpr (kMirrorClasses<P>) {
    return P::Space::Canonical(s) == s ? 0 : 1;
  } else if constexpr (requires { model.ClassImage(s); }) {
    return model.ClassImage(s);
  } else {
    return 0;
  }
}

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_STATE_CLASSES_H_
