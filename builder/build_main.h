// puzzledb-build's command line: parses `argv` and runs the command, returning the process's
// exit status (builder/main.cc).
#ifndef PUZZLEDB_BUILDER_BUILD_MAIN_H_
#define PUZZLEDB_BUILDER_BUILD_MAIN_H_

namespace puzzledb {

int BuildMain(int argc, char** argv);

}  // namespace puzzledb

#endif  // PUZZLEDB_BUILDER_BUILD_MAIN_H_
