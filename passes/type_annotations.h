// The last step of TVM's InferType (the Resolver's
// update_missing_type_annotation): a variable written without a type
// annotation gets its inferred type as annotation, a function without a
// return type gets its inferred one. TVM passes end with InferType, so their
// output prints composite parameters as `%FunctionVar_0_0: Tensor[...]` and
// composite functions with `-> Tensor[...]`; carve's passes do the same.
#pragma once

#include "absl/status/statusor.h"
#include "ir/module.h"

namespace carve {

// Fills the missing annotations of every function of the typed module `mod`
// (nodes without a checked type are left alone). Returns whether anything
// changed. Linear in the module size; rebuilds only functions that need it.
absl::StatusOr<bool> FillMissingTypeAnnotations(Module& mod);

// InferType followed by FillMissingTypeAnnotations: what TVM's InferType
// pass leaves behind. Returns whether annotations were added.
absl::StatusOr<bool> InferTypeAndAnnotate(Module& mod);

}  // namespace carve
