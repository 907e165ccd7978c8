# carve_build_info (carve::build_info): GetBuildInfo() of support/build_info.h,
# generated at every build by cmake/BuildInfo.cmake so that the git revision
# is that of the sources built, not of the last configure. A library of its
# own: a new commit recompiles one file and relinks only what prints it
# (the carve tool), never the other libraries or the tests.
set(CARVE_GIT_REVISION "" CACHE STRING
    "Revision `carve --version` reports (default: git describe of the source tree)")
set(CARVE_BUILD_INFO_CC ${PROJECT_BINARY_DIR}/generated/build_info.cc)
if(CMAKE_BUILD_TYPE)
  set(_carve_build_type ${CMAKE_BUILD_TYPE})
else()
  set(_carve_build_type "(none)")
endif()
add_custom_target(carve_build_info_gen
  COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR}
          -DIN=${PROJECT_SOURCE_DIR}/support/build_info.cc.in -DOUT=${CARVE_BUILD_INFO_CC}
          "-DGIT_REVISION=${CARVE_GIT_REVISION}" "-DBUILD_TYPE=${_carve_build_type}"
          "-DCOMPILER=${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}"
          "-DCOMPILE_FLAGS=${CARVE_COMPILE_FLAGS}" "-DARCH_FLAGS=${CARVE_ARCH_FLAGS_RESOLVED}"
          -P ${PROJECT_SOURCE_DIR}/cmake/BuildInfo.cmake
  BYPRODUCTS ${CARVE_BUILD_INFO_CC}
  COMMENT "Recording the build (git revision)"
  VERBATIM)
add_library(carve_build_info ${CARVE_BUILD_INFO_CC})
set_target_properties(carve_build_info PROPERTIES POSITION_INDEPENDENT_CODE ON)  # see carve_library
add_dependencies(carve_build_info carve_build_info_gen)
target_link_libraries(carve_build_info PUBLIC carve_support)
target_include_directories(carve_build_info PRIVATE ${PROJECT_BINARY_DIR}/include)  # carve/version.h
carve_export(carve_build_info)
