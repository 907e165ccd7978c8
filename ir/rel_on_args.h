// Applying one relation to some of a call's arguments: how the relations of
// wrapper ops (qnn.*, the specialised conv forms) reuse the float op's
// relation with the call's own attributes.
#pragma once

#include <initializer_list>

#include "ir/op.h"

namespace carve::rel {

// `rel` applied to the arguments at `positions` of `call`, with its attrs;
// an error when the call has fewer arguments.
absl::StatusOr<const Type*> OnArgs(const TypeRelCall& call, std::initializer_list<size_t> positions,
                                   TypeRelation rel);

}  // namespace carve::rel
