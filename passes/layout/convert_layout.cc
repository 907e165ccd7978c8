#include "passes/layout/convert_layout.h"

#include "fmt/format.h"
#include "ir/layout.h"
#include "passes/layout/conv_rules.h"
#include "passes/layout/layout_rewriter.h"
#include "passes/simplify/cleanup_passes.h"
#include "support/status_macros.h"

namespace carve {

absl::StatusOr<const Function*> ConvertLayoutFunction(const Function* fn,
                                                      const DesiredLayout& desired, Arena* arena,
                                                      bool canonicalize) {
  // TVM's ConvertLayout requires CanonicalizeOps (bias_add -> add), which a
  // pass sequence runs first.
  const Function* canonical = fn;
  if (canonicalize) {
    CARVE_ASSIGN_OR_RETURN(canonical, CanonicalizeOpsFunction(fn, arena));
  }
  layout::LayoutRewriter rewriter(arena, desired);
  rewriter.ScanTupleUses(canonical);
  return Cast<Function>(rewriter.Mutate(canonical));
}

absl::StatusOr<PassPtr> ConvertLayout(DesiredLayout desired) {
  if (desired.ops.empty()) {
    return absl::InvalidArgumentError("ConvertLayout: no op to convert");
  }
  for (const std::string& name : desired.ops) {
    const OpInfo* op = FindOp(name);
    if (op == nullptr) {
      return absl::InvalidArgumentError(fmt::format(
          "ConvertLayout: '{}' is not an op whose layout ConvertLayout converts", name));
    }
    CARVE_RETURN_IF_ERROR(layout::CheckConvertible(*op, desired.data, desired.kernel));
  }
  std::string description = fmt::format("ConvertLayout({},{})", desired.data, desired.kernel);
  return MakeFunctionPass(
      "ConvertLayout", description,
      [desired](const Function* fn, const Module& mod,
                PassContext&) -> absl::StatusOr<const Function*> {
        return ConvertLayoutFunction(fn, desired, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
