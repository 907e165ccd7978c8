# CARVE_FUZZ=ON instruments every target for libFuzzer with ASan and UBSan
# (clang only; configure a separate build dir, see docs/fuzzing.md) and adds
# the fuzz targets in fuzz/. The normal gcc build is untouched.
option(CARVE_FUZZ "Build the libFuzzer targets (clang; ASan + UBSan)" OFF)
if(CARVE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "CARVE_FUZZ needs clang: -DCMAKE_CXX_COMPILER=clang++-14")
  endif()
  if(CARVE_SANITIZE)
    message(FATAL_ERROR "CARVE_FUZZ already sanitizes; leave CARVE_SANITIZE off")
  endif()
  set(CARVE_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined
                       -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_compile_options(${CARVE_FUZZ_FLAGS})
  add_link_options(-fsanitize=address,undefined)
endif()

# The fuzz targets (fuzz/CMakeLists.txt) are built by CARVE_FUZZ, and by a
# clang CARVE_SANITIZE build too: there the libraries carry no coverage
# instrumentation, so a target only runs the inputs it is given (the seed
# corpora in `scripts/sanitize.sh --ci`), which is all CI needs.
set(CARVE_FUZZ_TARGETS ${CARVE_FUZZ})
if(CARVE_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(CARVE_FUZZ_TARGETS ON)
endif()
