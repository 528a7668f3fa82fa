// Requests to the server that serves a database, made through the database's own folder:
// how puzzledb-build hands a running puzzledb-server the tables it built aside (the server
// holds the database, which has one writer at a time), or asks it to remove a puzzle given
// as a definition (docs/OPERATIONS.md, "Adding and removing puzzles while serving"). No
// port and no password: whoever may write the folder may ask, as whoever may write it may
// replace the database.
//
//   DIR/requests/SERVING          written by a server that serves DIR writable, removed when
//                                 it stops: "puzzledb-server <pid>"
//   DIR/requests/<id>.request     a request, written whole (renamed into place):
//                                 "puzzledb request 1", then "import <folder>" (a database
//                                 under DIR/handover/ whose tables the server takes) or
//                                 "remove <puzzle>"
//   DIR/requests/<id>.answer      the server's answer, written whole: "ok" or "failed", then
//                                 what it did or why, for people
//   DIR/handover/<id>/            the database a build wrote aside
#ifndef PUZZLEDB_SERVICE_DB_REQUESTS_H_
#define PUZZLEDB_SERVICE_DB_REQUESTS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace puzzledb {

struct DbRequest {
  enum class Kind { kImport, kRemove };
  Kind kind = Kind::kImport;
  std::string argument;  // the handover folder's name (import), or the puzzle's (remove)
};

struct DbAnswer {
  bool ok = false;
  std::string message;
};

std::string RequestsDir(const std::string& db);
std::string HandoverDir(const std::string& db);

std::string FormatRequest(const DbRequest& request);
// INVALID_ARGUMENT saying what is wrong with the text.
absl::StatusOr<DbRequest> ParseRequest(std::string_view text);
std::string FormatAnswer(const DbAnswer& answer);
DbAnswer ParseAnswer(std::string_view text);

// Writes `text` to `path` whole: to a temporary file beside it, then renamed, so that a
// reader sees all of it or nothing.
absl::Status WriteWhole(const std::string& path, std::string_view text);

// The process id of the puzzledb-server that serves `db` writable (its SERVING file, of a
// process that runs, under that name), or 0.
int ServingServer(const std::string& db);
// What a server writes, and removes when it stops.
absl::Status NoteServing(const std::string& db);
void NoteNotServing(const std::string& db);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_DB_REQUESTS_H_
