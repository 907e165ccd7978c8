#include "passes/byoc/merge_composite.h"

#include <string>
#include <utility>

#include "fmt/format.h"
#include "passes/byoc/annotation.h"
#include "passes/infer/type_annotations.h"
#include "patterns/partition.h"
#include "support/status_macros.h"

namespace carve {

namespace {

// MergeCompositeFunction; `untyped` is set when some composite was left
// untyped (an argument or its root had no type).
absl::StatusOr<const Function*> MergeComposites(const Function* fn,
                                                std::span<const CompositeRule> table, Arena* arena,
                                                bool& untyped) {
  std::vector<CompositeEntry> entries;
  entries.reserve(table.size());
  for (const CompositeRule& rule : table) {
    entries.push_back(CompositeEntry{rule.name, rule.pattern, rule.check});
  }
  // Composites are built typed (PartitionOptions::typed), as the module
  // InferType TVM runs after the pass would type them, so no re-typing walk
  // over the function follows.
  PartitionStats stats;
  absl::StatusOr<const Expr*> result =
      PartitionComposites(entries, fn, arena, /*typed=*/true, &stats);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        fmt::format("MergeComposite: {}", std::string(result.status().message())));
  }
  untyped = untyped || stats.untyped > 0;
  return Cast<Function>(*result);
}

}  // namespace

absl::StatusOr<const Function*> MergeCompositeFunction(const Function* fn,
                                                       std::span<const CompositeRule> table,
                                                       Arena* arena) {
  bool untyped = false;
  return MergeComposites(fn, table, arena, untyped);
}

PassPtr MergeComposite(std::vector<TargetSpecPtr> targets) {
  std::vector<CompositeRule> table;
  std::string description = "MergeComposite(";
  for (size_t i = 0; i < targets.size(); ++i) {
    const TargetSpecPtr& t = targets[i];
    table.insert(table.end(), t->composites().begin(), t->composites().end());
    description += (i == 0 ? "" : ",") + t->name();
  }
  description += ")";
  // Every node it builds keeps its original's type; a composite left
  // untyped is reported, so the scan for untyped nodes after the pass
  // (RetypeIfNeeded: a walk over every node) runs only then.
  return MakeFunctionPass(
      "MergeComposite", description,
      [table = std::move(table)](const Function* fn, const Module& mod,
                                 PassContext& ctx) -> absl::StatusOr<const Function*> {
        bool untyped = false;
        CARVE_ASSIGN_OR_RETURN(const Function* updated,
                               MergeComposites(fn, table, mod.arena(), untyped));
        if (untyped) ctx.NoteUntypedNodes();
        return updated;
      },
      /*require_types=*/true, /*keeps_types=*/true);
}

}  // namespace carve
