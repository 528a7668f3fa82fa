#include "service/db_requests.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/util/strings.h"
#include "core/util/text_input.h"

namespace puzzledb {
namespace {

constexpr std::string_view kRequestHeader = "puzzledb request 1";
constexpr std::string_view kServing = "SERVING";
constexpr std::string_view kServer = "puzzledb-server";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string RequestsDir(const std::string& db) { return (std::filesystem::path(db) / "requests").string(); }
std::string HandoverDir(const std::string& db) { return (std::filesystem::path(db) / "handover").string(); }

std::string FormatRequest(const DbRequest& request) {
  return Cat(kRequestHeader, "\n", request.kind == DbRequest::Kind::kImport ? "import " : "remove ",
             request.argument, "\n");
}

absl::StatusOr<DbRequest> ParseRequest(std::string_view text) {
  const size_t newline = text.find('\n');
  if (newline == std::string_view::npos || text.substr(0, newline) != kRequestHeader) {
    return absl::InvalidArgumentError(Cat("not a request: it does not start with '", kRequestHeader, "'"));
  }
  std::string_view line = text.substr(newline + 1);
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  DbRequest request;
  const size_t space = line.find(' ');
  const std::string_view verb = line.substr(0, space);
  if (verb == "import") {
    request.kind = DbRequest::Kind::kImport;
  } else if (verb == "remove") {
    request.kind = DbRequest::Kind::kRemove;
  } else {
    return absl::InvalidArgumentError(Cat("unknown request ", QuoteInput(verb), " (import or remove)"));
  }
  if (space == std::string_view::npos || space + 1 >= line.size()) {
    return absl::InvalidArgumentError(Cat(verb, " names nothing"));
  }
  request.argument = std::string(line.substr(space + 1));
  // One name: a folder under handover/ or a puzzle, never a path elsewhere.
  for (const char c : request.argument) {
    const bool good = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-';
    if (!good) return absl::InvalidArgumentError(Cat(verb, ": ", QuoteInput(request.argument), " is not a name"));
  }
  return request;
}

std::string FormatAnswer(const DbAnswer& answer) {
  return Cat(answer.ok ? "ok" : "failed", "\n", answer.message, "\n");
}

DbAnswer ParseAnswer(std::string_view text) {
  DbAnswer answer;
  const size_t newline = text.find('\n');
  answer.ok = text.substr(0, newline) == "ok";
  if (newline != std::string_view::npos) {
    std::string_view message = text.substr(newline + 1);
    while (!message.empty() && message.back() == '\n') message.remove_suffix(1);
    answer.message = std::string(message);
  }
  return answer;
}

absl::Status WriteWhole(const std::string& path, std::string_view text) {
  const std::string temporary = Cat(path, ".", ::getpid(), ".tmp");
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) return absl::FailedPreconditionError(Cat("cannot write ", temporary));
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    return absl::FailedPreconditionError(Cat("cannot write ", path, ": ", ec.message()));
  }
  return absl::OkStatus();
}

int ServingServer(const std::string& db) {
  const std::string text = ReadAll((std::filesystem::path(RequestsDir(db)) / kServing).string());
  std::istringstream in(text);
  std::string name;
  long pid = 0;
  if (!(in >> name >> pid) || name != kServer || pid <= 0) return 0;
  // A server that stopped without removing the file (killed) serves nothing; nor does
  // another program that has its number since.
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return 0;
  std::string command = ReadAll(Cat("/proc/", pid, "/comm"));
  while (!command.empty() && command.back() == '\n') command.pop_back();
  return command == kServer ? static_cast<int>(pid) : 0;
}

absl::Status NoteServing(const std::string& db) {
  std::error_code ec;
  std::filesystem::create_directories(RequestsDir(db), ec);
  if (ec) return absl::FailedPreconditionError(Cat("cannot create ", RequestsDir(db), ": ", ec.message()));
  return WriteWhole((std::filesystem::path(RequestsDir(db)) / kServing).string(),
                    Cat(kServer, " ", ::getpid(), "\n"));
}

void NoteNotServing(const std::string& db) {
  std::error_code ec;
  std::filesystem::remove(std::filesystem::path(RequestsDir(db)) / kServing, ec);
}

}  // namespace puzzledb
