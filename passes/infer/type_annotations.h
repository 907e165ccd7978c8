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

// What TVM's module InferType at the end of a pass leaves behind, at the
// cost of one scan when the pass typed every node it built: InferType runs
// only when some node of `mod` has no checked type (ops and global names
// aside), then missing annotations are filled. Returns whether annotations
// were added.
absl::StatusOr<bool> RetypeIfNeeded(Module& mod);

}  // namespace carve
