# Writes OUT, the nginx configuration, from IN (deploy/nginx/puzzledb.conf.in) with the ids
# of the default database's tables as `puzzledb-build default-tables` (BUILD) prints them,
# and EXTRA, the glob of the operator's own list. Run by the build (deploy/nginx/CMakeLists.txt).
execute_process(COMMAND ${BUILD} default-tables OUTPUT_VARIABLE ids RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR ids STREQUAL "")
  message(FATAL_ERROR "${BUILD} default-tables failed (${status})")
endif()
string(REGEX REPLACE "\n$" "" ids "${ids}")
string(REPLACE "\n" ";" ids "${ids}")
set(PUZZLEDB_NGINX_DEFAULT_TABLES "")
foreach(id ${ids})
  string(APPEND PUZZLEDB_NGINX_DEFAULT_TABLES "    ${id} 1;\n")
endforeach()
set(PUZZLEDB_NGINX_EXTRA_TABLES "${EXTRA}")
configure_file(${IN} ${OUT}.tmp @ONLY)
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
