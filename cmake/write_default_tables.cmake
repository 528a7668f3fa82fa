# Writes OUT from the template IN with @PUZZLEDB_DEFAULT_TABLES@ replaced by a line per id of
# the default database's tables, as `puzzledb-build` (BUILD) `default-tables` prints them, in
# FORMAT `nginx` (a map entry), `python` (a string in a set) or `cxx` (a string in an array), and
# @PUZZLEDB_NGINX_EXTRA_TABLES@ by EXTRA. Run by the build for the nginx configuration
# (deploy/nginx/), the Python client (clients/python/) and the C++ client (client/), so that neither list can drift
# from the tables the builder makes.
execute_process(COMMAND ${BUILD} default-tables OUTPUT_VARIABLE ids RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR ids STREQUAL "")
  message(FATAL_ERROR "${BUILD} default-tables failed (${status})")
endif()
string(REGEX REPLACE "\n$" "" ids "${ids}")
string(REPLACE "\n" ";" ids "${ids}")
set(PUZZLEDB_DEFAULT_TABLES "")
foreach(id ${ids})
  if(FORMAT STREQUAL "nginx")
    string(APPEND PUZZLEDB_DEFAULT_TABLES "    ${id} 1;\n")
  elseif(FORMAT STREQUAL "python" OR FORMAT STREQUAL "cxx")
    string(APPEND PUZZLEDB_DEFAULT_TABLES "    \"${id}\",\n")
  else()
    message(FATAL_ERROR "FORMAT ${FORMAT}: nginx, python or cxx")
  endif()
endforeach()
set(PUZZLEDB_NGINX_EXTRA_TABLES "${EXTRA}")
configure_file(${IN} ${OUT}.tmp @ONLY)
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
