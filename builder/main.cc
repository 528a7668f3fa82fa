// puzzledb-build (builder/build_main.h).
#include "builder/build_main.h"

int main(int argc, char** argv) { return puzzledb::BuildMain(argc, argv); }
