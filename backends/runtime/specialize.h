// Shapes from the actual inputs: an offloaded function whose parameters have
// `?` dims is specialised, per call, to the shapes of its arguments before
// the JSON codegen sees it, so every node of the graph a backend runtime
// builds has the static shapes its kernels are prepared for (TVM's runtimes
// take static graphs only; carve's `--compare` runs such modules anyway).
#pragma once

#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "interpreter/value.h"
#include "ir/expr.h"
#include "ir/module.h"
#include "support/arena.h"

namespace carve {

// Whether a parameter annotation of `fn` has a `?` dim.
bool HasDynamicParams(const Function* fn);

// A key naming the shapes `args` give the `?` dims of `fn`'s parameters
// (equal keys specialise alike).
std::string SpecializationKey(const Function* fn, std::span<const Value> args);

// A copy of `fn` (every node that reaches a variable rebuilt, in `arena`)
// whose parameters have the static types of `args`, typed again; globals
// resolve in `mod` (may be null). InvalidArgument when an argument does not
// fit its parameter's annotation or the specialised body does not type.
absl::StatusOr<const Function*> SpecializeToArgs(const Function* fn, std::span<const Value> args,
                                                 Arena* arena, const Module* mod);

}  // namespace carve
