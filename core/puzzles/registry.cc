#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
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
  }
  std::array<const Puzzle*, kMaxPuzzles> list{};
  std::atomic<size_t> count{0};
  std::mutex adding;
  std::vector<std::shared_ptr<const Puzzle>> owned;  // those registered at run time
  std::map<std::string, std::string, std::less<>> not_served;  // guarded by `adding`
};

Registry& TheRegistry() {
  static Registry registry;
  return registry;
}

}  // namespace

std::span<const Puzzle* const> Puzzles() {
  Registry& r = TheRegistry();
  return {r.list.data(), r.count.load(std::memory_order_acquire)};
}

absl::Status RegisterPuzzle(std::shared_ptr<const Puzzle> puzzle) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.adding);
  const size_t n = r.count.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) {
    if (r.list[i]->name() == puzzle->name()) {
      return absl::AlreadyExistsError(Cat("a puzzle named ", puzzle->name(), " is registered already"));
    }
  }
  if (n == kMaxPuzzles) {
    return absl::ResourceExhaustedError(Cat("more than ", kMaxPuzzles, " puzzles"));
  }
  r.list[n] = puzzle.get();
  if (auto it = r.not_served.find(puzzle->name()); it != r.not_served.end()) r.not_served.erase(it);
  r.owned.push_back(std::move(puzzle));
  r.count.store(n + 1, std::memory_order_release);
  return absl::OkStatus();
}

const Puzzle* FindPuzzle(std::string_view name) {
  for (const Puzzle* puzzle : Puzzles()) {
    if (puzzle->name() == name) return puzzle;
  }
  return nullptr;
}

void NoteNotServed(std::string_view name, std::string_view why) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.adding);
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
