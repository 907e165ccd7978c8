#include "passes/layout/alter_op_layout.h"

#include "passes/layout/convert_layout.h"

namespace carve {

absl::StatusOr<const Function*> AlterOpLayoutFunction(const Function* fn, Arena* arena) {
  // ConvertLayout's rewriter converting no op: every layout stays, and the
  // broadcast rule still applies. AlterOpLayout requires only InferType.
  DesiredLayout none;
  none.ops.clear();
  return ConvertLayoutFunction(fn, none, arena, /*canonicalize=*/false);
}

PassPtr AlterOpLayout() {
  return MakeFunctionPass(
      "AlterOpLayout", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return AlterOpLayoutFunction(fn, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
