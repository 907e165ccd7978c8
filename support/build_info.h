// How this copy of carve was built: what `carve --version` prints.
//
// GetBuildInfo() lives in its own library, carve_build_info (carve::build_info),
// generated at every build from build_info.cc.in (cmake/BuildInfo.cmake) so
// that the git revision is that of the sources built; link it only where the
// information is shown.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace carve {

struct BuildInfo {
  std::string_view version;       // "0.1.0" (carve/version.h)
  std::string_view git_revision;  // `git describe --always --dirty`, or "unknown (...)"
  std::string_view build_type;    // CMAKE_BUILD_TYPE
  std::string_view compiler;      // "GNU 12.2.0"
  std::string_view flags;         // the C++ flags of the build type and carve's own
  std::string_view target_arch;   // -march=native resolved at configure time ("znver3")
  // The instruction-set extensions the code was compiled for, read from the
  // compiler's predefined macros (__AVX2__, __AVX512F__, ...).
  std::vector<std::string_view> cpu_features;
};

const BuildInfo& GetBuildInfo();

// Those of GetBuildInfo().cpu_features the running CPU lacks (x86-64 only;
// empty elsewhere): carve would stop on an illegal instruction.
std::vector<std::string_view> MissingCpuFeatures();

// The text of `carve --version`: one "name: value" line each.
std::string BuildInfoText();

}  // namespace carve
