#include "core/defined/defined_symmetry.h"

#include <algorithm>
#include <set>
#include <utility>

namespace puzzledb {
namespace {

// A block as comparable data: each moved byte with the byte it takes from, and the tests.
using BlockKey = std::pair<std::vector<std::pair<uint16_t, uint16_t>>, std::vector<std::pair<uint16_t, uint8_t>>>;

class Finder {
 public:
  Finder(const Definition& d, const CompiledMoves& moves, int most, uint64_t steps)
      : d_(d), moves_(moves), most_(most), steps_left_(steps), n_(moves.state_bytes()) {
    for (int b = 0; b < moves.block_count(); ++b) blocks_.insert(Key(b, identity()));
    set_of_.assign(static_cast<size_t>(n_), 0);
    for (size_t s = 0; s < d.sets().size(); ++s) {
      for (int j = 0; j < d.sets()[s].size; ++j) set_of_[static_cast<size_t>(d.sets()[s].offset + j)] = static_cast<int>(s);
    }
    // The order positions are given images in: from the positions guards read (their
    // labels then map early), then through the blocks that join them.
    std::vector<bool> placed(static_cast<size_t>(n_), false);
    auto add = [&](int p) {
      if (!placed[static_cast<size_t>(p)]) {
        placed[static_cast<size_t>(p)] = true;
        order_.push_back(p);
      }
    };
    for (int b = 0; b < moves.block_count(); ++b) {
      for (const auto& t : moves.block(b).tests) {
        // The home of the label a guard tests: where the first goal holds it.
        for (int p = 0; p < n_; ++p) {
          if (set_of_[static_cast<size_t>(p)] == set_of_[t.at] && d.goals()[0][static_cast<size_t>(p)] == t.value) add(p);
        }
      }
    }
    for (size_t k = 0; k < static_cast<size_t>(n_); ++k) {
      if (k == order_.size()) {
        for (int p = 0; p < n_; ++p) add(p);  // what no guard and no block reaches, in order
      }
      const int p = order_[k];
      for (int b = 0; b < moves.block_count(); ++b) {
        const auto& source = moves.block(b).source;
        for (int i = 0; i < n_; ++i) {
          if (source[static_cast<size_t>(i)] != i && (i == p || source[static_cast<size_t>(i)] == p)) {
            add(i);
            add(source[static_cast<size_t>(i)]);
          }
        }
      }
    }
  }

  std::vector<DefinedSymmetry> Run() {
    for (const DefinedSet& set : d_.sets()) {
      if (set.orientations > 1) return {};
    }
    image_.assign(static_cast<size_t>(n_), -1);
    used_.assign(static_cast<size_t>(n_), false);
    label_.assign(d_.sets().size(), std::vector<int>(256, -1));
    label_used_.assign(d_.sets().size(), std::vector<int>(256, 0));
    Assign(0);
    return found_;
  }

 private:
  std::vector<uint16_t> identity() const {
    std::vector<uint16_t> id(static_cast<size_t>(n_));
    for (int i = 0; i < n_; ++i) id[static_cast<size_t>(i)] = static_cast<uint16_t>(i);
    return id;
  }

  // Block b under the position map `to` (labels through label_), as a key.
  BlockKey Key(int b, const std::vector<uint16_t>& to) const {
    const CompiledMoves::Block& block = moves_.block(b);
    BlockKey key;
    for (int i = 0; i < n_; ++i) {
      const uint16_t from = block.source[static_cast<size_t>(i)];
      if (from != i) key.first.emplace_back(to[static_cast<size_t>(i)], to[from]);
    }
    for (const auto& t : block.tests) {
      const int label = label_.empty() ? t.value : label_[static_cast<size_t>(set_of_[t.at])][t.value];
      key.second.emplace_back(to[t.at], static_cast<uint8_t>(label));
    }
    std::sort(key.first.begin(), key.first.end());
    std::sort(key.second.begin(), key.second.end());
    return key;
  }

  // Every block whose bytes (and tested labels) all have images maps to a block.
  bool Consistent() const {
    std::vector<uint16_t> to(static_cast<size_t>(n_));
    for (int i = 0; i < n_; ++i) to[static_cast<size_t>(i)] = static_cast<uint16_t>(std::max(0, image_[static_cast<size_t>(i)]));
    for (int b = 0; b < moves_.block_count(); ++b) {
      const CompiledMoves::Block& block = moves_.block(b);
      bool known = true;
      for (int i = 0; i < n_ && known; ++i) {
        if (block.source[static_cast<size_t>(i)] != i) known = image_[static_cast<size_t>(i)] >= 0 && image_[block.source[static_cast<size_t>(i)]] >= 0;
      }
      for (const auto& t : block.tests) {
        known = known && image_[t.at] >= 0 && label_[static_cast<size_t>(set_of_[t.at])][t.value] >= 0;
      }
      if (known && !blocks_.contains(Key(b, to))) return false;
    }
    return true;
  }

  void Assign(size_t k) {
    if (static_cast<int>(found_.size()) >= most_ || steps_left_ == 0) return;
    // Each step checks every block, a byte at a time: the budget counts bytes.
    const auto cost = static_cast<uint64_t>(std::max(1, moves_.block_count())) * static_cast<uint64_t>(n_);
    steps_left_ = steps_left_ > cost ? steps_left_ - cost : 0;
    if (k == order_.size()) {
      Accept();
      return;
    }
    const int p = order_[k];
    const int s = set_of_[static_cast<size_t>(p)];
    const uint8_t from = d_.goals()[0][static_cast<size_t>(p)];
    for (int q = 0; q < n_; ++q) {
      if (used_[static_cast<size_t>(q)] || set_of_[static_cast<size_t>(q)] != s) continue;
      // The goal's label at p becomes the goal's at q: one label, one image.
      const uint8_t to = d_.goals()[0][static_cast<size_t>(q)];
      int& mapped = label_[static_cast<size_t>(s)][from];
      const bool fresh = mapped < 0;
      if (!fresh && mapped != to) continue;
      if (fresh && label_used_[static_cast<size_t>(s)][to] > 0) continue;
      if (fresh) {
        mapped = to;
        ++label_used_[static_cast<size_t>(s)][to];
      }
      image_[static_cast<size_t>(p)] = q;
      used_[static_cast<size_t>(q)] = true;
      if (Consistent()) Assign(k + 1);
      image_[static_cast<size_t>(p)] = -1;
      used_[static_cast<size_t>(q)] = false;
      if (fresh) {
        mapped = -1;
        --label_used_[static_cast<size_t>(s)][to];
      }
      if (static_cast<int>(found_.size()) >= most_ || steps_left_ == 0) return;
    }
  }

  // A complete map: not the identity, the goals to goals.
  void Accept() {
    DefinedSymmetry symmetry;
    bool identity = true;
    for (int i = 0; i < n_; ++i) {
      symmetry.position.push_back(static_cast<uint16_t>(image_[static_cast<size_t>(i)]));
      identity &= image_[static_cast<size_t>(i)] == i;
    }
    for (size_t s = 0; s < d_.sets().size(); ++s) {
      std::vector<uint8_t> map(256, 0);
      for (int l = 0; l < 256; ++l) {
        map[static_cast<size_t>(l)] = static_cast<uint8_t>(label_[s][static_cast<size_t>(l)] >= 0 ? label_[s][static_cast<size_t>(l)] : l);
        identity &= map[static_cast<size_t>(l)] == l;
      }
      symmetry.label.push_back(std::move(map));
    }
    if (identity) return;
    DefinedState image;
    for (const DefinedState& goal : d_.goals()) {
      symmetry.Apply(d_, goal, &image);
      if (!d_.IsGoal(image)) return;
    }
    found_.push_back(std::move(symmetry));
  }

  const Definition& d_;
  const CompiledMoves& moves_;
  const int most_;
  uint64_t steps_left_;
  const int n_;
  std::set<BlockKey> blocks_;
  std::vector<int> set_of_;  // by byte
  std::vector<int> order_;   // positions, in the order they get images
  std::vector<int> image_;
  std::vector<bool> used_;
  std::vector<std::vector<int>> label_;       // by set, by label: its image, or -1
  std::vector<std::vector<int>> label_used_;  // by set, by label: taken as an image
  std::vector<DefinedSymmetry> found_;
};

}  // namespace

std::vector<DefinedSymmetry> FindSymmetries(const Definition& definition, const CompiledMoves& moves,
                                            int most, uint64_t steps) {
  if (!definition.illegal().empty()) return {};  // not looked for: the finder reads no Illegal line
  return Finder(definition, moves, most, steps).Run();
}

}  // namespace puzzledb
