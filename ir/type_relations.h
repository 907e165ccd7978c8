// Type relations of the registered ops (see ir/ops.def). Each returns the
// call's output type or an error message without the op name.
#pragma once

#include "ir/op.h"

namespace carve::rel {

#define CARVE_TYPE_REL(name) absl::StatusOr<const Type*> name(const TypeRelCall& call);
#include "ir/type_relations.inc"
#undef CARVE_TYPE_REL

}  // namespace carve::rel
