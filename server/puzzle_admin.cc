#include "server/puzzle_admin.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <vector>

#include "core/defined/defined_puzzle.h"
#include "core/puzzle.h"
#include "core/solver.h"
#include "core/table/table_store.h"
#include "core/util/strings.h"

namespace puzzledb {
namespace fs = std::filesystem;

PuzzleAdmin::PuzzleAdmin(TableStore* store, Solver* solver, std::function<void(std::string_view)> log)
    : store_(store), solver_(solver), log_(std::move(log)) {}

PuzzleAdmin::~PuzzleAdmin() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  NoteNotServing(store_->dir());
}

absl::Status PuzzleAdmin::Start(std::chrono::milliseconds every) {
  if (absl::Status noted = NoteServing(store_->dir()); !noted.ok()) return noted;
  thread_ = std::thread([this, every] { Loop(every); });
  return absl::OkStatus();
}

PuzzleAdmin::Stats PuzzleAdmin::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void PuzzleAdmin::Loop(std::chrono::milliseconds every) {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait_for(lock, every, [this] { return stopping_; });
      if (stopping_) return;
    }
    AnswerWaiting();
  }
}

void PuzzleAdmin::AnswerWaiting() {
  const fs::path folder = RequestsDir(store_->dir());
  std::error_code ec;
  std::vector<fs::path> waiting;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".request") waiting.push_back(entry.path());
  }
  std::sort(waiting.begin(), waiting.end());
  for (const fs::path& path : waiting) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    auto request = ParseRequest(text.str());
    DbAnswer answer;
    if (request.ok()) {
      answer = Answer(*request);
    } else {
      answer.message = std::string(Message(request.status()));
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.failed;
    }
    fs::path answered = path;
    answered.replace_extension(".answer");
    if (absl::Status written = WriteWhole(answered.string(), FormatAnswer(answer)); !written.ok() && log_) {
      log_(Cat("request ", path.filename().string(), ": ", Message(written)));
    }
    fs::remove(path, ec);
  }
}

DbAnswer PuzzleAdmin::Answer(const DbRequest& request) {
  std::lock_guard<std::mutex> one(answering_);
  const bool import = request.kind == DbRequest::Kind::kImport;
  auto done = import ? Import(request.argument) : Remove(request.argument);
  DbAnswer answer;
  answer.ok = done.ok();
  answer.message = done.ok() ? *done : std::string(Message(done.status()));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    (!done.ok() ? stats_.failed : import ? stats_.imported : stats_.removed)++;
  }
  if (log_) log_(Cat(import ? "import " : "remove ", request.argument, done.ok() ? ": " : ": FAILED: ", answer.message));
  return answer;
}

absl::StatusOr<std::string> PuzzleAdmin::Import(const std::string& folder) {
  const std::string side = (fs::path(HandoverDir(store_->dir())) / folder).string();
  auto from = TableStore::Open(side, TableStore::Mode::kReadOnly);
  if (!from.ok()) return from.status();
  auto tables = (*from)->List();
  if (!tables.ok()) return tables.status();
  if (tables->empty()) return absl::InvalidArgumentError(Cat(side, " holds no table"));
  // Every table's puzzle, made or found, before anything is taken.
  std::map<std::string, std::shared_ptr<const Puzzle>> defined;  // by name
  for (const TableMetadata& m : *tables) {
    auto puzzle = PuzzleOfStoredDefinition(m, store_->dir());
    if (!puzzle.ok()) {
      return absl::Status(puzzle.status().code(), Cat("table ", m.table_id(), ": ", Message(puzzle.status())));
    }
    if (*puzzle != nullptr) {
      defined[m.puzzle()] = *std::move(puzzle);
    } else if (const Puzzle* known = FindPuzzle(m.puzzle()); known == nullptr || known->identity() != nullptr) {
      return absl::InvalidArgumentError(
          Cat("table ", m.table_id(), " is of puzzle ", QuoteInput(m.puzzle()),
              ", neither built in nor given as a definition"));
    }
  }
  std::set<std::string> imported;
  std::vector<std::string> said;
  for (const TableMetadata& m : *tables) {
    auto taken = store_->Import(**from, m.table_id());
    if (!taken.ok()) {
      return absl::Status(taken.status().code(),
                          Cat("table ", m.table_id(), ": ", Message(taken.status()),
                              imported.empty() ? "" : Cat(" (taken before it: ", Join(said, ", "), ")")));
    }
    imported.insert(m.table_id());
    said.push_back(Cat(m.table_id(), " (generation ", taken->generation(), ", ", Thousands(taken->state_count()),
                       " entries)"));
  }
  // A definition's tables of the other kind (a complete table where pattern tables come,
  // or the other way round) go, as a build in place removes them.
  std::set<std::string> forget = imported;
  auto held = store_->List();
  if (!held.ok()) return held.status();
  for (const TableMetadata& m : *held) {
    if (defined.count(m.puzzle()) == 0 || imported.count(m.table_id()) != 0) continue;
    if (absl::Status removed = store_->Remove(m.table_id()); !removed.ok()) return removed;
    forget.insert(m.table_id());
    said.push_back(Cat("removed ", m.table_id()));
  }
  // The new puzzles served in place of the old: a call in flight keeps the puzzle it has,
  // and what it kept of its tables (the solver keys them by puzzle).
  std::vector<std::string> names;
  for (auto& [name, puzzle] : defined) {
    if (absl::Status served = ReplacePuzzle(puzzle); !served.ok()) return served;
    names.push_back(name);
  }
  for (const std::string& id : forget) solver_->Forget(id);
  return Cat(names.empty() ? std::string("tables") : Cat("serving ", Join(names, ", "), ": tables"), " ",
             Join(said, "; "));
}

absl::StatusOr<std::string> PuzzleAdmin::Remove(const std::string& name) {
  const Puzzle* puzzle = FindPuzzle(name);
  auto removed = RemoveDefinitionTables(*store_, name);
  if (!removed.ok()) return removed.status();
  if (puzzle == nullptr && removed->empty()) {
    return absl::NotFoundError(Cat("no puzzle named ", QuoteInput(name), " is served or stored"));
  }
  // Withdrawn: calls in flight keep it, new ones are told it is unknown.
  if (puzzle != nullptr) {
    if (absl::Status withdrawn = WithdrawPuzzle(name); !withdrawn.ok() && !absl::IsNotFound(withdrawn)) {
      return withdrawn;
    }
  }
  NoteNotServed(name, "");
  for (const std::string& id : *removed) solver_->Forget(id);
  return Cat("removed ", name, removed->empty() ? std::string() : Cat(" and its tables ", Join(*removed, ", ")));
}

}  // namespace puzzledb
