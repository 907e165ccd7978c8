# carve_flags: the usage requirements every carve library passes on to the
# code that includes carve's headers (C++20, the include directories, and the
# instruction set carve was compiled for), plus the variables that record how
# carve was built (written into the installed package, printed by
# `carve --version`).
#
# Why consumers get carve's instruction-set flags: carve's headers include
# Eigen and inline kernels. Eigen derives its alignment (EIGEN_MAX_ALIGN_BYTES:
# 16 for SSE, 32 for AVX, 64 for AVX-512) and its inline code from the
# -m flags of each translation unit, and Eigen documents that mixing
# vectorisation settings between translation units that share Eigen objects
# or inline functions is not supported (ODR: the linker keeps one of the
# differing copies). So a consumer compiles carve's headers with the flags
# carve was built with:
#   - in the build tree (add_subdirectory): the flags themselves
#     (-march=native, same compiler, same machine);
#   - in an installed package: -march=native resolved at configure time to the
#     exact -march=CPU and -m/-mno- feature flags it stood for, because
#     "native" would otherwise mean the consumer's machine.

# CARVE_ARCH_FLAGS: what carve's own targets are compiled with.
set(CARVE_ARCH_FLAGS "")
if(CARVE_NATIVE AND NOT CARVE_SANITIZE)
  set(CARVE_ARCH_FLAGS -march=native)
endif()

# CARVE_ARCH_FLAGS_RESOLVED: -march=native as the compiler expands it (GCC and
# Clang print the cc1 command line with -###). Tuning options (-mtune,
# --param) do not change the ABI and are left out. Falls back to the flags as
# given when the compiler cannot tell.
set(CARVE_ARCH_FLAGS_RESOLVED ${CARVE_ARCH_FLAGS})
if(CARVE_ARCH_FLAGS)
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} ${CARVE_ARCH_FLAGS} "-###" -E -x c++ /dev/null
    ERROR_VARIABLE _carve_cc1 OUTPUT_QUIET RESULT_VARIABLE _carve_rc)
  if(_carve_rc EQUAL 0)
    # GCC's cc1plus line: ... "-march=CPU" -mfeat -mno-feat ... "-mtune=CPU".
    # Clang's says -target-cpu CPU -target-feature +feat (no -march=): the
    # fallback.
    string(REGEX MATCH "[^\n]*cc1plus[^\n]*-march=[^\n]*" _carve_line "${_carve_cc1}")
    if(_carve_line)
      string(REPLACE "\"" "" _carve_line "${_carve_line}")
      separate_arguments(_carve_words UNIX_COMMAND "${_carve_line}")
      set(_carve_resolved "")
      foreach(w IN LISTS _carve_words)
        if(w MATCHES "^-march=" OR (w MATCHES "^-m" AND NOT w MATCHES "^-mtune="))
          list(APPEND _carve_resolved ${w})
        endif()
      endforeach()
      if(_carve_resolved)
        set(CARVE_ARCH_FLAGS_RESOLVED ${_carve_resolved})
      endif()
    endif()
  endif()
endif()

# The sanitizers must be linked into whatever links carve's objects.
set(CARVE_SANITIZE_FLAGS "")
if(CARVE_SANITIZE)
  set(CARVE_SANITIZE_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
                           -fno-sanitize-recover=undefined)
endif()

# Everything the package records about the build (carveConfig.cmake,
# `carve --version`).
string(TOUPPER "${CMAKE_BUILD_TYPE}" _carve_config)
string(JOIN " " CARVE_COMPILE_FLAGS ${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_carve_config}}
       ${CARVE_ARCH_FLAGS} ${CARVE_SANITIZE_FLAGS})
string(STRIP "${CARVE_COMPILE_FLAGS}" CARVE_COMPILE_FLAGS)

add_library(carve_flags INTERFACE)
target_compile_features(carve_flags INTERFACE cxx_std_20)
# Headers: carve's own code includes "ir/expr.h" (the project root on the
# path); users may write "carve/ir/expr.h" (the build tree's include/ holds
# carve/<folder> links to the source folders, the installed include/ holds
# carve/<folder>/*.h). Both roots are exported; see README "Embedding".
# carve's own libraries (CARVE_LIBRARY set by carve_library) do not get the
# build tree's include/: their compile commands then name no build folder,
# so a second build of the same sources (add_subdirectory from another
# project, scripts/test-package.sh) hits the compiler cache.
target_include_directories(carve_flags INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
  "$<BUILD_INTERFACE:$<$<NOT:$<BOOL:$<TARGET_PROPERTY:CARVE_LIBRARY>>>:${PROJECT_BINARY_DIR}/include>>"
  $<INSTALL_INTERFACE:include>
  $<INSTALL_INTERFACE:include/carve>)
target_compile_options(carve_flags INTERFACE
  "$<BUILD_INTERFACE:${CARVE_ARCH_FLAGS}>"
  "$<INSTALL_INTERFACE:${CARVE_ARCH_FLAGS_RESOLVED}>"
  ${CARVE_SANITIZE_FLAGS})
target_link_options(carve_flags INTERFACE ${CARVE_SANITIZE_FLAGS})
