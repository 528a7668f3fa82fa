# The Debian packages (scripts/package; docs/OPERATIONS.md, "The Debian packages"), made by
# CPack's DEB generator from the install components:
#   server      puzzledb-server         the three programs, the units, /etc/default/puzzledb
#   client      libpuzzledb-client0     libpuzzledb-client.so.0
#   client_dev  libpuzzledb-client-dev  its headers and CMake package (puzzledb::client)
#   core_dev    libpuzzledb-core-dev    the engine in-process (puzzledb::core)
# Versions come from project() alone. The libraries a package's programs load are found by
# dpkg-shlibdeps; the -dev packages' dependencies are the Debian packages that hold what
# this build found (the CMake packages and libraries of find_package/find_library), asked of
# dpkg here, never listed by hand.
option(PUZZLEDB_DEBIAN_PACKAGE
  "Install the Debian packages' own files too (/etc/default/puzzledb, the units' drop-ins, the docs' copyright and changelog): scripts/package"
  OFF)
set(PUZZLEDB_PACKAGE_MAINTAINER "puzzledb developers <puzzledb@example.org>" CACHE STRING
  "The Maintainer of the Debian packages")

# The Debian package holding `path` (a file this build found), or a fatal error.
function(puzzledb_debian_package_of path out)
  get_filename_component(real ${path} REALPATH)
  foreach(candidate ${path} ${real})
    execute_process(COMMAND dpkg-query -S ${candidate} OUTPUT_VARIABLE found
                    RESULT_VARIABLE status ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(status EQUAL 0)
      string(REGEX REPLACE ":.*" "" found "${found}")
      string(REGEX REPLACE ":[a-z0-9]+$" "" found "${found}")  # the architecture
      set(${out} ${found} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no Debian package holds ${path}: the packages need Debian's libraries")
endfunction()

# Debian's packages of the dependencies, as "a, b, c".
function(puzzledb_debian_depends out)
  set(packages "")
  foreach(path ${ARGN})
    puzzledb_debian_package_of(${path} package)
    list(APPEND packages ${package})
  endforeach()
  list(REMOVE_DUPLICATES packages)
  list(SORT packages)
  list(JOIN packages ", " joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

if(PUZZLEDB_DEBIAN_PACKAGE)
  execute_process(COMMAND git -C ${PROJECT_SOURCE_DIR} log -1 --format=%h
                  OUTPUT_VARIABLE PUZZLEDB_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND git -C ${PROJECT_SOURCE_DIR} log -1 --format=%aD
                  OUTPUT_VARIABLE PUZZLEDB_CHANGELOG_DATE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT PUZZLEDB_COMMIT)
    set(PUZZLEDB_COMMIT "(not a git checkout)")
    string(TIMESTAMP PUZZLEDB_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
  endif()
  set(PUZZLEDB_DEBIAN_VERSION ${PROJECT_VERSION})
  set(deb ${PROJECT_SOURCE_DIR}/deploy/debian)
  configure_file(${deb}/changelog.in ${CMAKE_BINARY_DIR}/debian/changelog @ONLY)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/debian/changelog.gz
    COMMAND gzip -9nc ${CMAKE_BINARY_DIR}/debian/changelog > ${CMAKE_BINARY_DIR}/debian/changelog.gz
    DEPENDS ${CMAKE_BINARY_DIR}/debian/changelog)
  add_custom_target(debian_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/debian/changelog.gz)
  foreach(pair server:puzzledb-server client:libpuzzledb-client0
               client_dev:libpuzzledb-client-dev core_dev:libpuzzledb-core-dev)
    string(REPLACE ":" ";" pair ${pair})
    list(GET pair 0 component)
    list(GET pair 1 package)
    install(FILES ${deb}/copyright ${CMAKE_BINARY_DIR}/debian/changelog.gz
      DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component})
  endforeach()
  install(FILES ${deb}/puzzledb.default DESTINATION /etc/default RENAME puzzledb
    COMPONENT server)
  foreach(unit puzzledb.service puzzledb-build.service)
    install(FILES ${deb}/systemd-static-user.conf
      DESTINATION ${PUZZLEDB_SYSTEMD_UNIT_DIR}/${unit}.d RENAME debian.conf COMPONENT server)
  endforeach()
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME puzzledb)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${PUZZLEDB_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL server client client_dev core_dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_SERVER_PACKAGE_NAME puzzledb-server)
set(CPACK_DEBIAN_SERVER_PACKAGE_SECTION misc)
# adduser: the postinst makes the system user with it.
set(CPACK_DEBIAN_SERVER_PACKAGE_DEPENDS adduser)
set(CPACK_DEBIAN_SERVER_PACKAGE_CONTROL_EXTRA
  ${PROJECT_SOURCE_DIR}/deploy/debian/postinst ${PROJECT_SOURCE_DIR}/deploy/debian/prerm
  ${PROJECT_SOURCE_DIR}/deploy/debian/postrm ${PROJECT_SOURCE_DIR}/deploy/debian/conffiles)
set(CPACK_COMPONENT_SERVER_DESCRIPTION "exact answers for combinatorial puzzles: the server
puzzledb precomputes exact answers for combinatorial puzzles (the knight swap,
the wired knobs, the rotation game, the 8- and 15-puzzle, the 2x2x2 cube, and
any puzzle given as a definition file) and serves them over gRPC and HTTP.
This package holds puzzledb-server, the builder puzzledb-build and the command
line puzzledb, and the systemd units that build the database in
/var/lib/puzzledb on first start and run the server as the user puzzledb.")

set(CPACK_DEBIAN_CLIENT_PACKAGE_NAME libpuzzledb-client0)
set(CPACK_DEBIAN_CLIENT_PACKAGE_SECTION libs)
# Its shlibs file (what packages linking it depend on), and ldconfig by a trigger (which
# lintian requires): its own postinst and postrm keep CPack from writing ones that call it.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/debian/library)
foreach(script postinst postrm)
  file(COPY_FILE ${PROJECT_SOURCE_DIR}/deploy/debian/library.${script}
       ${CMAKE_BINARY_DIR}/debian/library/${script})
endforeach()
set(CPACK_DEBIAN_CLIENT_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/deploy/debian/triggers
  ${CMAKE_BINARY_DIR}/debian/library/postinst ${CMAKE_BINARY_DIR}/debian/library/postrm)
set(CPACK_COMPONENT_CLIENT_DESCRIPTION "C++ client of the puzzledb server
The shared library of puzzledb's C++ client (puzzledb::Client): calls to
puzzledb-server over gRPC, with retries, balancing over replicas and TLS.")

set(CPACK_DEBIAN_CLIENT_DEV_PACKAGE_NAME libpuzzledb-client-dev)
set(CPACK_DEBIAN_CLIENT_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_CLIENT_DEV_DEPENDS client)
set(CPACK_COMPONENT_CLIENT_DEV_DESCRIPTION "C++ client of the puzzledb server (development files)
Headers and the CMake package of puzzledb's C++ client: find_package(puzzledb
CONFIG REQUIRED COMPONENTS client) gives puzzledb::client, which links gRPC,
protobuf and absl, and nothing of the engine.")

set(CPACK_DEBIAN_CORE_DEV_PACKAGE_NAME libpuzzledb-core-dev)
set(CPACK_DEBIAN_CORE_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_CORE_DEV_DEPENDS client_dev)
set(CPACK_COMPONENT_CORE_DEV_DESCRIPTION "puzzledb's engine, in-process (development files)
The component core of puzzledb's CMake package (puzzledb::core): answers from a
puzzledb database in the calling process (puzzledb::Engine) and answers checked
by the puzzles' rules (puzzledb::Verify). Static libraries; they link RocksDB
and its compression libraries.")

if(PUZZLEDB_DEBIAN_PACKAGE)
  # What the -dev packages' CMake packages find_dependency, and what their targets link.
  find_program(PUZZLEDB_GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
  # The libraries the client's targets link, by the name a link finds (lib<name>.so, which
  # the -dev packages hold; the imported locations are the versioned files of the runtime
  # packages).
  foreach(target gRPC::grpc++ protobuf::libprotobuf absl::status)
    get_target_property(location ${target} LOCATION)
    string(REGEX REPLACE "\\.so\\..*$" ".so" location "${location}")
    list(APPEND client_linked ${location})
  endforeach()
  puzzledb_debian_depends(client_dev_depends
    ${gRPC_DIR}/gRPCConfig.cmake ${absl_DIR}/abslConfig.cmake ${client_linked}
    # Debian's gRPCConfig.cmake checks that its plugins are there.
    ${PUZZLEDB_GRPC_CPP_PLUGIN})
  # The core's: RocksDB's CMake package, and the libraries core/CMakeLists.txt finds.
  puzzledb_debian_depends(core_dev_depends
    ${RocksDB_DIR}/RocksDBConfig.cmake ${ZLIB_INCLUDE_DIR}/zlib.h ${ZSTD_LIBRARY} ${DEFLATE_LIBRARY})
  set(CPACK_DEBIAN_CLIENT_DEV_PACKAGE_DEPENDS "${client_dev_depends}")
  set(CPACK_DEBIAN_CORE_DEV_PACKAGE_DEPENDS "${core_dev_depends}")
  message(STATUS "libpuzzledb-client-dev depends on ${client_dev_depends}")
  message(STATUS "libpuzzledb-core-dev depends on ${core_dev_depends}")
endif()

include(CPack)
