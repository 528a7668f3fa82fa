#include "builder/handover.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/defined/defined_puzzle.h"
#include "core/util/strings.h"
#include "service/db_requests.h"
#include "service/exit_codes.h"

namespace puzzledb {
namespace fs = std::filesystem;
namespace {

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A request's name: this process's, and a moment's, so that two builds never share one.
std::string NewRequestName() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return Cat(::getpid(), "-", std::chrono::duration_cast<std::chrono::microseconds>(now).count());
}

// The handover folders of builds that no longer run (killed before they handed over).
void RemoveAbandoned(const std::string& db) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(HandoverDir(db), ec)) {
    const std::string name = entry.path().filename().string();
    const long pid = std::atol(name.substr(0, name.find('-')).c_str());
    if (pid > 0 && pid != ::getpid() && !fs::exists(Cat("/proc/", pid), ec)) fs::remove_all(entry.path(), ec);
  }
}

// Sends `request` to the server `server` serving `db` and waits up to `timeout` for its
// answer. UNAVAILABLE if the server stops before it answers (the request is withdrawn),
// DEADLINE_EXCEEDED if it does not answer in time.
absl::StatusOr<DbAnswer> Ask(const std::string& db, int server, const std::string& name,
                             const DbRequest& request, std::chrono::seconds timeout) {
  const fs::path folder = RequestsDir(db);
  const fs::path asked = folder / Cat(name, ".request");
  const fs::path answered = folder / Cat(name, ".answer");
  if (absl::Status written = WriteWhole(asked.string(), FormatRequest(request)); !written.ok()) return written;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::error_code ec;
  while (true) {
    if (fs::exists(answered, ec)) {
      const DbAnswer answer = ParseAnswer(ReadAll(answered));
      fs::remove(answered, ec);
      return answer;
    }
    if (ServingServer(db) != server) {
      // Stopped (or killed) before it took the request: asked again of nobody.
      if (fs::remove(asked, ec) || !fs::exists(answered, ec)) {
        return absl::UnavailableError(Cat("the puzzledb-server (pid ", server, ") serving ", db,
                                          " stopped before it answered"));
      }
      continue;  // it answered as it stopped
    }
    if (std::chrono::steady_clock::now() > deadline) {
      fs::remove(asked, ec);
      return absl::DeadlineExceededError(
          Cat("the puzzledb-server (pid ", server, ") serving ", db, " did not answer within ",
              timeout.count(), " s (--handover-timeout)"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Takes the tables of the database aside into `db` here (its server has stopped).
int TakeHere(const std::string& db, const std::string& side, std::ostream& out, std::ostream& err) {
  auto store = TableStore::Open(db, TableStore::Mode::kReadWrite);
  auto from = TableStore::Open(side, TableStore::Mode::kReadOnly);
  if (!store.ok() || !from.ok()) {
    err << "puzzledb-build: " << Message(!store.ok() ? store.status() : from.status()) << "\n";
    return kExitFailure;
  }
  auto tables = (*from)->List();
  if (!tables.ok()) {
    err << "puzzledb-build: " << Message(tables.status()) << "\n";
    return kExitFailure;
  }
  for (const TableMetadata& m : *tables) {
    auto taken = (*store)->Import(**from, m.table_id());
    if (!taken.ok()) {
      err << "puzzledb-build: " << m.table_id() << ": " << Message(taken.status()) << "\n";
      return kExitFailure;
    }
    out << m.table_id() << ": taken into " << db << " (generation " << taken->generation() << ")\n";
  }
  return kExitOk;
}

}  // namespace

absl::StatusOr<BuildTarget> OpenBuildTarget(const std::string& db, bool quiet, std::ostream& err) {
  BuildTarget target;
  target.db = db;
  auto store = TableStore::Open(db, TableStore::Mode::kReadWrite);
  if (store.ok()) {
    target.store = std::move(*store);
    return target;
  }
  target.server = ServingServer(db);
  if (target.server == 0) return store.status();
  RemoveAbandoned(db);
  target.handover = NewRequestName();
  const std::string side = (fs::path(HandoverDir(db)) / target.handover).string();
  auto aside = TableStore::Open(side, TableStore::Mode::kReadWrite);
  if (!aside.ok()) return aside.status();
  target.store = std::move(*aside);
  if (!quiet) {
    err << "puzzledb-build: a puzzledb-server (pid " << target.server << ") serves " << db
        << ": building into " << side << ", then handing the tables over to it\n";
  }
  return target;
}

int FinishBuildTarget(BuildTarget& target, int status, std::chrono::seconds timeout, std::ostream& out,
                      std::ostream& err) {
  if (target.handover.empty()) return status;
  const std::string side = (fs::path(HandoverDir(target.db)) / target.handover).string();
  target.store.reset();  // closed: the server opens it
  std::error_code ec;
  if (status != kExitOk) {
    fs::remove_all(side, ec);
    return status;
  }
  DbRequest request;
  request.kind = DbRequest::Kind::kImport;
  request.argument = target.handover;
  auto answer = Ask(target.db, target.server, target.handover, request, timeout);
  int result = kExitOk;
  if (answer.ok()) {
    if (answer->ok) {
      out << "handed over to the puzzledb-server (pid " << target.server << "): " << answer->message << "\n";
    } else {
      err << "puzzledb-build: the puzzledb-server (pid " << target.server << ") did not take the tables: "
          << answer->message << "\n";
      result = kExitFailure;
    }
  } else if (absl::IsUnavailable(answer.status()) && ServingServer(target.db) == 0) {
    err << "puzzledb-build: " << Message(answer.status()) << "; taking the tables here\n";
    result = TakeHere(target.db, side, out, err);
  } else {
    err << "puzzledb-build: " << Message(answer.status()) << "\n";
    result = kExitFailure;
  }
  fs::remove_all(side, ec);
  return result;
}

int RunRemove(const std::string& db, const std::string& puzzle, std::chrono::seconds timeout,
              std::ostream& out, std::ostream& err) {
  if (absl::Status name = CheckDefinedName(puzzle); !name.ok()) {
    err << "puzzledb-build remove: --puzzle: " << Message(name) << "\n";
    return kExitBadInput;
  }
  auto store = TableStore::Open(db, TableStore::Mode::kReadWriteExisting);
  if (store.ok()) {
    auto removed = RemoveDefinitionTables(**store, puzzle);
    if (!removed.ok()) {
      err << "puzzledb-build remove: " << Message(removed.status()) << "\n";
      return absl::IsFailedPrecondition(removed.status()) ? kExitBadInput : kExitFailure;
    }
    if (removed->empty()) {
      err << "puzzledb-build remove: " << db << " holds no table of a puzzle named '" << puzzle << "'\n";
      return kExitBadInput;
    }
    out << "removed " << puzzle << " and its tables " << Join(*removed, ", ") << "\n";
    return kExitOk;
  }
  const int server = ServingServer(db);
  if (server == 0) {
    err << "puzzledb-build remove: " << Message(store.status()) << "\n";
    return kExitFailure;
  }
  DbRequest request;
  request.kind = DbRequest::Kind::kRemove;
  request.argument = puzzle;
  auto answer = Ask(db, server, NewRequestName(), request, timeout);
  if (!answer.ok()) {
    err << "puzzledb-build remove: " << Message(answer.status()) << "\n";
    return kExitFailure;
  }
  if (!answer->ok) {
    err << "puzzledb-build remove: the puzzledb-server (pid " << server << "): " << answer->message << "\n";
    return kExitFailure;
  }
  out << "the puzzledb-server (pid " << server << ") " << answer->message << "\n";
  return kExitOk;
}

}  // namespace puzzledb
