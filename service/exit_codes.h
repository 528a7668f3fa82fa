// The exit statuses of every puzzledb binary (docs/OPERATIONS.md).
#ifndef PUZZLEDB_SERVICE_EXIT_CODES_H_
#define PUZZLEDB_SERVICE_EXIT_CODES_H_

namespace puzzledb {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // the work could not be done (a case, a table, a server)
inline constexpr int kExitBadInput = 2;  // the input or the command line is wrong

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_EXIT_CODES_H_
