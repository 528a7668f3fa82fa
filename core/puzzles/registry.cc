#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/puzzle.h"
#include "core/util/strings.h"
#include "core/util/text_input.h"

namespace puzzledb {

// The one list of puzzles: one line each, in the order they are shown to users. Each
// model's .cc registers its puzzle (PUZZLEDB_REGISTER_PUZZLE, core/puzzles/model_puzzle.h).
#define PUZZLEDB_PUZZLES(X) \
  X(KnightPuzzle)           \
  X(KnobsPuzzle)            \
  X(RotationPuzzle)         \
  X(EightPuzzle)            \
  X(FifteenPuzzle)          \
  X(Cube2Puzzle)

#define PUZZLEDB_DECLARE_(P) const Puzzle& Registered##P();
PUZZLEDB_PUZZLES(PUZZLEDB_DECLARE_)
#undef PUZZLEDB_DECLARE_

namespace {

// The list: slots that are written once, before the count that publishes them, so that
// readers need no lock; writers take the mutex.
struct Registry {
  Registry() {
#define PUZZLEDB_ENTRY_(P) &Registered##P(),
    for (const Puzzle* puzzle : {PUZZLEDB_PUZZLES(PUZZLEDB_ENTRY_)}) list[count++] = puzzle;
#undef PUZZLEDB_ENTRY_
    built_in = count;
  }
  // The slot of the puzzle of that name served now (the newest: a replacement is published
  // before its predecessor is withdrawn), or -1.
  int Served(std::string_view name, size_t n) const {
    for (size_t i = n; i-- > 0;) {
      if (!withdrawn[i].load(std::memory_order_acquire) && list[i]->name() == name) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }
  std::array<const Puzzle*, kMaxPuzzles> list{};
  std::array<std::atomic<bool>, kMaxPuzzles> withdrawn{};
  std::atomic<size_t> count{0};
  size_t built_in = 0;
  std::mutex adding;
  std::vector<std::shared_ptr<const Puzzle>> owned;  // those registered at run time
  std::map<std::string, std::string, std::less<>> not_served;  // guarded by `adding`
};

Registry& TheRegistry() {
  static Registry registry;
  return registry;
}

}  // namespace

PuzzleList Puzzles() {
  Registry& r = TheRegistry();
  const size_t n = r.count.load(std::memory_order_acquire);
  // Newest first, so that a puzzle replaced a moment ago, whose successor is published
  // already, is left out.
  std::vector<const Puzzle*> served;
  std::set<std::string_view> names;
  for (size_t i = n; i-- > 0;) {
    if (r.withdrawn[i].load(std::memory_order_acquire)) continue;
    if (names.insert(r.list[i]->name()).second) served.push_back(r.list[i]);
  }
  std::reverse(served.begin(), served.end());
  return PuzzleList(std::move(served));
}

namespace {

// Publishes `puzzle` in a new slot. REQUIRES: r.adding held.
absl::Status AddLocked(Registry& r, std::shared_ptr<const Puzzle> puzzle) {
  const size_t n = r.count.load(std::memory_order_relaxed);
  if (n == kMaxPuzzles) {
    return absl::ResourceExhaustedError(
        Cat("more than ", kMaxPuzzles, " puzzles registered in this program's life; restart it"));
  }
  r.list[n] = puzzle.get();
  if (auto it = r.not_served.find(puzzle->name()); it != r.not_served.end()) r.not_served.erase(it);
  r.owned.push_back(std::move(puzzle));
  r.count.store(n + 1, std::memory_order_release);
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterPuzzle(std::shared_ptr<const Puzzle> puzzle) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.adding);
  if (r.Served(puzzle->name(), r.count.load(std::memory_order_relaxed)) >= 0) {
    return absl::AlreadyExistsError(Cat("a puzzle named ", puzzle->name(), " is registered already"));
  }
  return AddLocked(r, std::move(puzzle));
}

absl::Status ReplacePuzzle(std::shared_ptr<const Puzzle> puzzle) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.adding);
  const int old = r.Served(puzzle->name(), r.count.load(std::memory_order_relaxed));
  if (old >= 0 && static_cast<size_t>(old) < r.built_in) {
    return absl::FailedPreconditionError(Cat("the name ", puzzle->name(), " is a built-in puzzle's"));
  }
  // The new one first: a reader finds one puzzle of the name or the other, never none.
  if (absl::Status added = AddLocked(r, std::move(puzzle)); !added.ok()) return added;
  if (old >= 0) r.withdrawn[static_cast<size_t>(old)].store(true, std::memory_order_release);
  return absl::OkStatus();
}

absl::Status WithdrawPuzzle(std::string_view name) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.adding);
  const int at = r.Served(name, r.count.load(std::memory_order_relaxed));
  if (at < 0) return absl::NotFoundError(Cat("no puzzle named ", QuoteInput(name), " is served"));
  if (static_cast<size_t>(at) < r.built_in) {
    return absl::FailedPreconditionError(Cat("the ", name, " puzzle is built in"));
  }
  r.withdrawn[static_cast<size_t>(at)].store(true, std::memory_order_release);
  return absl::OkStatus();
}

bool IdentityServed(const void* identity) {
  if (identity == nullptr) return true;
  Registry& r = TheRegistry();
  const size_t n = r.count.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i) {
    if (!r.withdrawn[i].load(std::memory_order_acquire) && r.list[i]->identity() == identity) return true;
  }
  return false;
}

const Puzzle* FindPuzzle(std::string_view name) {
  Registry& r = TheRegistry();
  const int at = r.Served(name, r.count.load(std::memory_order_acquire));
  return at < 0 ? nullptr : r.list[static_cast<size_t>(at)];
}

void NoteNotServed(std::string_view name, std::string_view why) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.adding);
  if (why.empty()) {
    if (auto it = r.not_served.find(name); it != r.not_served.end()) r.not_served.erase(it);
    return;
  }
  r.not_served[std::string(name)] = std::string(why);
}

std::string NotServedWhy(std::string_view name) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.adding);
  const auto it = r.not_served.find(name);
  return it == r.not_served.end() ? "" : it->second;
}

std::string UnknownPuzzleText(std::string_view name) {
  const std::string why = NotServedWhy(name);
  return why.empty() ? Cat("unknown puzzle ", QuoteInput(name))
                     : Cat("unknown puzzle ", QuoteInput(name), " (the database holds it, not served: ",
                           why, ")");
}

std::string PuzzleNames(std::string_view separator) {
  std::string names;
  for (const Puzzle* puzzle : Puzzles()) {
    if (!names.empty()) names += separator;
    names += puzzle->name();
  }
  return names;
}

std::vector<std::string> PuzzleNameList() {
  std::vector<std::string> names;
  for (const Puzzle* puzzle : Puzzles()) names.emplace_back(puzzle->name());
  return names;
}

}  // namespace puzzledb
