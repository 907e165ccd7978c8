// TVM's PassContext opt_level and disabled_pass for pipelines: a member of
// a pipeline runs when its registered opt level (PassInfo::opt_level, TVM's
// value from where TVM creates the pass) is at most the gate's level and
// its name is not disabled (TVM's PassContext::PassEnabled, which TVM's
// Sequential asks before each member). A pass's own prerequisites (TVM's
// `required`, here InferType) still run inside it.
//
// TVM's default context has opt_level 2; the backends' flows set their own
// (BackendDescriptor::gate, documented per backend in docs/backends.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"

namespace carve {

struct PassGate {
  static constexpr int kDefaultOptLevel = 2;  // TVM's PassContext default
  int opt_level = kDefaultOptLevel;
  // Pass names that never run (TVM's disabled_pass).
  std::vector<std::string> disabled;
};

// The opt level `name` is registered with; 0 for a pass the registry does
// not know (TVM's BYOC passes, all 0, built directly by the backends' flow).
int RegisteredOptLevel(std::string_view name,
                       const PassRegistry& registry = PassRegistry::Global());

// TVM's PassEnabled: not disabled, and registered at most at the gate's level.
bool PassEnabled(const PassGate& gate, std::string_view name,
                 const PassRegistry& registry = PassRegistry::Global());

// The members of `pipeline` (a sequence; a single pass is a pipeline of
// one) that `gate` lets run, as a sequence of the same name.
PassPtr GatePipeline(const PassPtr& pipeline, const PassGate& gate,
                     const PassRegistry& registry = PassRegistry::Global());

// Parses `--opt-level` text: an integer 0..4 (TVM's levels).
absl::StatusOr<int> ParseOptLevel(std::string_view text);
// Parses `--disabled-pass` text: comma-separated pass names, carve's or TVM's;
// InvalidArgument naming an unknown one.
absl::StatusOr<std::vector<std::string>> ParseDisabledPasses(
    std::string_view text, const PassRegistry& registry = PassRegistry::Global());

// "opt_level=3, disabled_pass=[AlterOpLayout]", for listings and reports.
std::string DescribeGate(const PassGate& gate);

}  // namespace carve
