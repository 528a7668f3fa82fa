// Layout 4 of a definition's index: one block of the table per class of outer numbers under
// the definition's symmetries (DefinedIndex::symmetric, docs/FORMAT.md step 7).
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/definition/defined_index.h"
#include "core/util/strings.h"

namespace puzzledb {
namespace {

// The group's order, the identity counted: its elements are numbered in a byte.
constexpr size_t kMaxGroupOrder = 48;
// Outer numbers whose classes are kept (a block number, an element and the arrangement's
// slots for each).
constexpr uint64_t kMaxClassOuters = uint64_t{1} << 20;

// A symmetry as comparable data: the byte each byte goes to, and by set the label each
// label becomes.
using Map = std::pair<std::vector<uint16_t>, std::vector<std::vector<uint8_t>>>;

// a after b.
Map Compose(const Map& a, const Map& b) {
  Map c = b;
  for (size_t p = 0; p < c.first.size(); ++p) c.first[p] = a.first[b.first[p]];
  for (size_t s = 0; s < c.second.size(); ++s) {
    for (size_t l = 0; l < c.second[s].size(); ++l) c.second[s][l] = a.second[s][b.second[s][l]];
  }
  return c;
}

}  // namespace

void DefinedSymmetry::Apply(const Definition& definition, const DefinedState& from, DefinedState* to) const {
  to->resize(from.size());
  for (size_t s = 0; s < definition.sets().size(); ++s) {
    const DefinedSet& set = definition.sets()[s];
    for (int j = 0; j < set.size; ++j) {
      const auto at = static_cast<size_t>(set.offset + j);
      (*to)[position[at]] = label[s][from[at]];
    }
  }
}

void DefinedIndex::MakeClasses(const Definition& definition, const std::vector<DefinedSymmetry>& symmetries) {
  auto refuse = [&](std::string why) { why_not_symmetric_ = std::move(why); };
  if (!rules_.empty()) return refuse("its placements keep a parity, which classes do not follow");
  for (const Coordinate& c : coordinates_) {
    if (c.size > 1 && c.kind == Coordinate::Kind::kTwists) {
      return refuse("its pieces turn, which classes do not follow");
    }
  }
  if (arrangement_slots_ == 0 && order_pieces_ == 0 && inner_size_ > 1) {
    return refuse("symmetry classes need an arrangement, an order or nothing as the index's inner part");
  }
  if (state_bytes_ > static_cast<int>(kMaxClassStateBytes)) {
    return refuse(Cat("its states of ", state_bytes_, " bytes are more than the ", kMaxClassStateBytes, " classes take"));
  }
  const uint64_t outers = outer_size();
  if (outers > kMaxClassOuters) {
    return refuse(Cat("its ", outers, " placements are more than the ", kMaxClassOuters, " whose classes are kept"));
  }
  const auto bytes = static_cast<size_t>(state_bytes_);
  std::vector<int> set_of(bytes, -1);
  for (size_t s = 0; s < definition.sets().size(); ++s) {
    const DefinedSet& set = definition.sets()[s];
    for (int j = 0; j < set.size; ++j) set_of[static_cast<size_t>(set.offset + j)] = static_cast<int>(s);
  }

  // The group the symmetries make: each element found composed with each symmetry, until
  // none is new.
  std::vector<Map> generators;
  for (const DefinedSymmetry& g : symmetries) {
    if (g.position.size() != bytes || g.label.size() != definition.sets().size()) {
      return refuse("a symmetry does not fit the definition's states");
    }
    generators.push_back({g.position, g.label});
  }
  Map identity;
  for (size_t p = 0; p < bytes; ++p) identity.first.push_back(static_cast<uint16_t>(p));
  for (size_t s = 0; s < definition.sets().size(); ++s) {
    std::vector<uint8_t> labels(256);
    for (int l = 0; l < 256; ++l) labels[static_cast<size_t>(l)] = static_cast<uint8_t>(l);
    identity.second.push_back(std::move(labels));
  }
  std::set<Map> seen = {identity};
  std::vector<Map> group = {identity};
  for (size_t k = 0; k < group.size(); ++k) {
    for (const Map& g : generators) {
      Map next = Compose(g, group[k]);
      if (seen.contains(next)) continue;
      if (group.size() == kMaxGroupOrder) {
        return refuse(Cat("its symmetries make a group of more than ", kMaxGroupOrder, " elements"));
      }
      seen.insert(next);
      group.push_back(std::move(next));
    }
  }
  if (group.size() == 1) return refuse("it has no symmetry");

  // Each element as bytes, checked to take the coordinates onto coordinates.
  std::vector<Element> elements;
  for (size_t k = 1; k < group.size(); ++k) {
    Element e;
    e.to = group[k].first;
    e.label.resize(bytes * 256);
    for (size_t p = 0; p < bytes; ++p) {
      for (int v = 0; v < 256; ++v) {
        e.label[p * 256 + static_cast<size_t>(v)] =
            set_of[p] < 0 ? static_cast<uint8_t>(v) : group[k].second[static_cast<size_t>(set_of[p])][static_cast<size_t>(v)];
      }
    }
    for (const Coordinate& c : coordinates_) {
      if (c.size <= 1 && c.kind != Coordinate::Kind::kLabels) continue;
      std::vector<uint16_t> image;
      for (uint16_t at : c.bytes) image.push_back(e.to[at]);
      std::sort(image.begin(), image.end());
      const Coordinate* onto = nullptr;
      for (const Coordinate& c2 : coordinates_) {
        std::vector<uint16_t> theirs = c2.bytes;
        std::sort(theirs.begin(), theirs.end());
        if (c2.kind == c.kind && c2.inner == c.inner && theirs == image) onto = &c2;
      }
      if (onto == nullptr) return refuse("a symmetry takes an orbit's positions across the index's coordinates");
      const uint8_t* label = &e.label[static_cast<size_t>(c.bytes[0]) * 256];
      if (c.kind == Coordinate::Kind::kArrangement) {
        const uint8_t first = onto->code[label[c.label[0]]], second = onto->code[label[c.label[1]]];
        if (first == 0xFF || second == 0xFF || first == second) {
          return refuse("a symmetry takes the arrangement's labels to others");
        }
        e.swap = first == 1;
        continue;
      }
      if (c.kind == Coordinate::Kind::kOrder) {
        // Distinct pieces onto distinct pieces: their codes relabelled.
        e.relabel.assign(c.label.size(), 0xFF);
        for (size_t code = 0; code < c.label.size(); ++code) {
          const uint8_t theirs = onto->code[label[c.label[code]]];
          if (theirs == 0xFF) return refuse("a symmetry takes the order's pieces to others");
          e.relabel[code] = theirs;
        }
        continue;
      }
      std::array<int, 256> code_to;
      code_to.fill(-1);
      for (int l = 0; l < 256; ++l) {
        const uint8_t code = c.code[static_cast<size_t>(l)];
        if (code == 0xFF) continue;
        const uint8_t theirs = onto->code[label[l]];
        if (theirs == 0xFF || (code_to[code] >= 0 && code_to[code] != theirs) ||
            c.counts[code] != onto->counts[theirs]) {
          return refuse("a symmetry takes pieces that the index tells apart to pieces it does not");
        }
        code_to[code] = theirs;
      }
    }
    elements.push_back(std::move(e));
  }
  elements_ = std::move(elements);

  // Each element's inverse, to take an image back to its class's first outer number.
  std::vector<int> inverse(group.size(), 0);
  for (size_t k = 0; k < group.size(); ++k) {
    for (size_t m = 0; m < group.size(); ++m) {
      if (Compose(group[m], group[k]) == identity) inverse[k] = static_cast<int>(m);
    }
  }
  // The classes in order of their smallest outer number, each found once from it (no
  // member of a class is met before its smallest): its images are its members, each
  // taken back by the inverse of the first element that makes it, and those that make it
  // again fix it.
  const size_t n = static_cast<size_t>(inner_slots());
  std::vector<uint8_t> state(bytes, 0), image(bytes, 0);
  std::vector<bool> done(outers, false);
  class_of_.assign(outers, 0);
  to_block_.assign(outers, 0);
  outer_slots_.assign(outers * n, 0);
  block_outer_.clear();
  fixing_begin_.assign(1, 0);
  fixing_.clear();
  for (uint64_t o = 0; o < outers; ++o) {
    if (done[o]) continue;
    const auto block = static_cast<uint32_t>(block_outer_.size());
    block_outer_.push_back(o);
    class_of_[o] = block;
    done[o] = true;
    UnrankOuter(o, state.data());
    UnrankInner(0, state.data());
    for (int e = 1; e < group_order(); ++e) {
      ApplyElement(e, state.data(), image.data());
      const uint64_t m = RankOuter(image.data());
      if (m == o) {
        Fixing f;
        f.swap = n > 0 && ElementSlots(e, state.data(), f.slots.data());
        f.element = e;
        fixing_.push_back(f);
        continue;
      }
      if (done[m]) continue;
      done[m] = true;
      class_of_[m] = block;
      to_block_[m] = static_cast<uint8_t>(inverse[static_cast<size_t>(e)]);
      if (n > 0) ElementSlots(to_block_[m], image.data(), &outer_slots_[m * n]);
    }
    fixing_begin_.push_back(static_cast<uint32_t>(fixing_.size()));
  }
  size_ = block_outer_.size() * inner_size_;
  if (block_outer_.size() <= UINT16_MAX) {
    class_of16_.assign(class_of_.begin(), class_of_.end());
    class_of_ = {};
  }
}

bool DefinedIndex::ElementSlots(int e, const uint8_t* state, uint8_t* slots) const {
  const Element& element = elements_[static_cast<size_t>(e - 1)];
  const Coordinate& c = coordinates_.back();  // the arrangement or the order
  std::vector<int> slot_of(static_cast<size_t>(state_bytes_), -1);
  std::vector<uint8_t> image(static_cast<size_t>(state_bytes_));
  ApplyElement(e, state, image.data());
  int s = 0;
  for (uint16_t at : c.bytes) {
    if (c.code[state[at]] != 0xFF) slot_of[element.to[at]] = s++;  // by where it goes
  }
  int t = 0;
  for (uint16_t at : c.bytes) {
    if (c.code[image[at]] != 0xFF) slots[t++] = static_cast<uint8_t>(slot_of[at]);
  }
  return element.swap;
}

void DefinedIndex::ApplyElement(int e, const uint8_t* from, uint8_t* to) const {
  const Element& element = elements_[static_cast<size_t>(e - 1)];
  for (size_t p = 0; p < element.to.size(); ++p) to[element.to[p]] = element.label[p * 256 + from[p]];
}

uint64_t DefinedIndex::ClassRank(const uint8_t* state, uint64_t outer) const {
  uint8_t image[kMaxClassStateBytes];
  const uint8_t e = to_block_[outer];
  if (e != 0) {
    ApplyElement(e, state, image);
    state = image;
  }
  return LeastInBlock(state, outer, RankInner(state));
}

uint64_t DefinedIndex::LeastInBlock(const uint8_t* image, uint64_t outer, uint64_t inner) const {
  uint8_t fixed[kMaxClassStateBytes];
  const uint64_t block = ClassOf(outer);
  if (inner_size_ == 1) return block;  // nothing else in the block
  uint64_t least = inner;
  for (const Fixing& f : Stabilizer(block)) {
    ApplyElement(f.element, image, fixed);
    least = std::min(least, RankInner(fixed));
  }
  return block * inner_size_ + least;
}

namespace {

// The distinct states the group makes of `first` (its elements in turn), end to end.
std::vector<uint8_t> Members(const DefinedIndex& index, const uint8_t* first) {
  const auto bytes = static_cast<size_t>(index.state_bytes());
  std::vector<uint8_t> all(first, first + bytes), image(bytes);
  for (int e = 1; e < index.group_order(); ++e) {
    index.ApplyElement(e, first, image.data());
    bool known = false;
    for (size_t at = 0; at < all.size() && !known; at += bytes) known = std::equal(image.begin(), image.end(), all.begin() + static_cast<std::ptrdiff_t>(at));
    if (!known) all.insert(all.end(), image.begin(), image.end());
  }
  return all;
}

}  // namespace

int DefinedIndex::ClassSize(uint64_t number) const {
  if (!symmetric()) return 1;
  std::vector<uint8_t> state(static_cast<size_t>(state_bytes_), 0);
  Unrank(number, state.data());
  return static_cast<int>(Members(*this, state.data()).size() / state.size());
}

int DefinedIndex::ImageOf(const uint8_t* state) const {
  if (!symmetric()) return 0;
  std::vector<uint8_t> first(static_cast<size_t>(state_bytes_), 0);
  Unrank(Rank(state), first.data());
  const std::vector<uint8_t> all = Members(*this, first.data());
  for (size_t j = 0; j * first.size() < all.size(); ++j) {
    if (std::equal(state, state + first.size(), all.begin() + static_cast<std::ptrdiff_t>(j * first.size()))) {
      return static_cast<int>(j);
    }
  }
  return -1;
}

void DefinedIndex::ClassMember(uint64_t number, int j, uint8_t* state) const {
  Unrank(number, state);
  if (!symmetric() || j == 0) return;
  const std::vector<uint8_t> all = Members(*this, state);
  std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(j) * static_cast<size_t>(state_bytes_)),
              state_bytes_, state);
}

std::vector<std::pair<uint64_t, int>> DefinedIndex::SmallClasses() const {
  std::vector<std::pair<uint64_t, int>> small;
  for (uint64_t b = 0; b < outer_size() && symmetric(); ++b) {
    const std::span<const Fixing> fixing = Stabilizer(b);
    if (fixing.empty()) continue;
    for (uint64_t i = 0; i < inner_size_; ++i) {
      int fixed = 1;
      bool least = true;
      for (const Fixing& f : fixing) {
        const uint64_t image = order_pieces_ > 0         ? PermuteOrder(i, f.slots.data(), Relabel(f.element))
                               : arrangement_slots_ > 0 ? PermuteArrangement(i, f.slots.data(), f.swap)
                                                        : i;  // one inner number
        fixed += image == i ? 1 : 0;
        least = least && image >= i;
      }
      if (least && fixed > 1) small.emplace_back(b * inner_size_ + i, group_order() / fixed);
    }
  }
  return small;
}

}  // namespace puzzledb
