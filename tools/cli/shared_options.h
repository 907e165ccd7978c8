// Options several commands share: `--patterns F.pat`, `--params DIR`,
// `--bind NAME,...`, `--input NAME=F.npy`, `--seed N` (opt, partition,
// codegen, run --compare), `--shape NAME=D1,...` (import, repl and its `load`). Names the user types are checked against the
// module: an unknown one is an error listing the known ones.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "ir/ndarray.h"
#include "passes/fold/bind_params.h"
#include "passes/rewrite/rewrite_pass.h"
#include "tools/cli/args.h"
#include "tools/cli/env.h"

namespace carve::cli {

// The inputs of `main` by parameter name, as `carve run` prepares them
// (--input, --params, --seed, --input-dist, validated by the command); also checks that every --bind name is a
// parameter of `main`.
absl::StatusOr<std::map<std::string, NDArray>> NamedInputs(const Function& main,
                                                           const ParsedArgs& args, Env& env);

// TVM's `partition_for_<backend>(mod, params)`: --params DIR and the inputs
// named by --bind (checked by NamedInputs) bound as constants.
ParamMap ParamsToBind(const ParsedArgs& args, const std::map<std::string, NDArray>& inputs,
                      const ParamMap& from_dir);

// Where the Rewrite pass finds rule files: read through `env` (so golden
// tests can name their virtual `%s`), defaulting to the --patterns files.
// Install with ScopedRuleFiles around a run of a user's pipeline.
RuleFiles RuleFilesFor(const ParsedArgs& args, Env& env);

// One `--shape NAME=D1,D2,...` ("NAME=" is a scalar) added to `shapes`; a
// malformed spec or a second shape for one name is InvalidArgument.
absl::Status ParseShapeOption(std::string_view text,
                              std::map<std::string, std::vector<int64_t>>& shapes);

}  // namespace carve::cli
