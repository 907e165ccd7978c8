// bind_params_by_name (TVM python/tvm/relay/build_module.py): replaces the
// parameters of a function named in `params` by constants and drops them from
// the signature. Names the function does not have are ignored (as in TVM);
// a name two parameters share is an error; so is a tensor whose dtype or
// shape differs from the parameter's annotation (TVM would only fail later,
// in type inference).
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "ir/ndarray.h"

namespace carve {

using ParamMap = std::map<std::string, NDArray, std::less<>>;

absl::StatusOr<const Function*> BindParamsByName(const Function* fn, const ParamMap& params,
                                                 Arena* arena);

// Binds into `@function` of `mod` and re-types the module. Returns whether
// any parameter was bound.
absl::StatusOr<bool> BindParams(Module& mod, const ParamMap& params,
                                std::string_view function = "main");

}  // namespace carve
