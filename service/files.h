// Whole small files (certificates, keys) read into memory.
#ifndef PUZZLEDB_SERVICE_FILES_H_
#define PUZZLEDB_SERVICE_FILES_H_

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace puzzledb {

// The file's bytes, or FAILED_PRECONDITION "cannot read the <what> <path>".
inline absl::StatusOr<std::string> ReadSmallFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string message = "cannot read the ";
    message.append(what).append(" ").append(path);
    return absl::FailedPreconditionError(message);
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_FILES_H_
