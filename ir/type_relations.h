// Type relations of the registered ops (see ir/ops.def), one function per
// relation family, listed in ir/type_relations.inc and implemented in
// ir/rel_*.cc.
//
// A relation receives the call's resolved argument types (TensorType, or
// TupleType for concatenate/stack) and its attrs (a full schema instance;
// a field it cannot find reads as the schema default). It returns the
// interned output type, or an InvalidArgument error whose message names the
// problem without the op name ("cannot broadcast (1, 3) and (4,)"); the
// caller prefixes "<op>: " and attaches the call's span. Where TVM would
// "assign" a type to an input (bias, gamma, a conv weight given channels and
// kernel_size), the relation checks the input against that type instead.
#pragma once

#include "ir/op.h"

namespace carve::rel {

#define CARVE_TYPE_REL(name) absl::StatusOr<const Type*> name(const TypeRelCall& call);
#include "ir/type_relations.inc"
#undef CARVE_TYPE_REL

}  // namespace carve::rel
