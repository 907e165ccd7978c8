# Build-time generator (cmake -P): configures support/build_info.cc.in into
# OUT with the git revision of ROOT, rewriting OUT only when it changes (so a
# build without a new commit relinks nothing). The other values come from the
# configure step:
#   cmake -DROOT=... -DIN=... -DOUT=... -DGIT_REVISION=<override or empty>
#         -DBUILD_TYPE=... -DCOMPILER=... -DCOMPILE_FLAGS=... -DARCH_FLAGS=<list> -P BuildInfo.cmake
cmake_minimum_required(VERSION 3.24)
if(GIT_REVISION)
  set(CARVE_GIT_REVISION "${GIT_REVISION}")
else()
  set(CARVE_GIT_REVISION "unknown (not built from a git checkout)")
  find_program(GIT git)
  if(GIT)
    # -c safe.directory: a CI checkout owned by another user is still read.
    execute_process(
      COMMAND ${GIT} -c safe.directory=${ROOT} -C ${ROOT} describe --always --dirty --abbrev=12
      OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND rev)
      set(CARVE_GIT_REVISION "${rev}")
    endif()
  endif()
endif()
set(CARVE_BUILD_TYPE "${BUILD_TYPE}")
set(CARVE_COMPILER "${COMPILER}")
set(CARVE_COMPILE_FLAGS "${COMPILE_FLAGS}")
# The target CPU of the resolved -march (the -m feature flags that follow it
# are summarised by the feature list build_info.cc reads from the macros).
set(CARVE_TARGET_ARCH "default (no -march)")
foreach(flag IN LISTS ARCH_FLAGS)
  if(flag MATCHES "^-march=(.*)")
    set(CARVE_TARGET_ARCH "${CMAKE_MATCH_1}")
  endif()
endforeach()
configure_file(${IN} ${OUT} @ONLY)
