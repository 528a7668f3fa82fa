# Run after a GoogleTest executable is linked (cmake -P): lists its tests and writes a ctest
# file with one test per suite, `<suite>` running `<exe> --gtest_filter=<suite>.*`.
#
# One process per suite rather than per test: many suites build their tables once in
# SetUpTestSuite (a knobs wiring, a partial knight table), and one process per test paid
# that again for every test, about 9 s a test under AddressSanitizer (docs/PERFORMANCE.md,
# "The test suite"). A failure still names its test in the output.
#
# Arguments: EXE, OUT (the ctest file to write), WORKING_DIRECTORY, PROPERTIES (the tests'
# properties, as `set_tests_properties` takes them, with "|" in place of the ";" between them
# and "^" in place of the ";" inside a value that is a list, as LABELS "sanitized^sanitized_only").
execute_process(COMMAND "${EXE}" --gtest_list_tests
  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 120)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${status}): ${errors}")
endif()
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
foreach(line IN LISTS lines)
  # A suite line starts in the first column and ends in '.', maybe with a "# TypeParam" note.
  if(line MATCHES "^([^ #][^ ]*)\\.( *#.*)?$")
    list(APPEND suites "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(REMOVE_DUPLICATES suites)
string(REPLACE "|" ";" properties "${PROPERTIES}")
set(text "")
foreach(suite IN LISTS suites)
  string(APPEND text "add_test([=[${suite}]=] [=[${EXE}]=] [=[--gtest_filter=${suite}.*]=])\n")
  string(APPEND text "set_tests_properties([=[${suite}]=] PROPERTIES WORKING_DIRECTORY [=[${WORKING_DIRECTORY}]=]")
  foreach(item IN LISTS properties)
    string(REPLACE "^" ";" item "${item}")
    string(APPEND text " [=[${item}]=]")
  endforeach()
  string(APPEND text ")\n")
endforeach()
file(WRITE "${OUT}" "${text}")
