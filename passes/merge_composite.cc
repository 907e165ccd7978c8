#include "passes/merge_composite.h"

#include <string>
#include <utility>

#include "fmt/format.h"
#include "patterns/partition.h"

namespace carve {

absl::StatusOr<const Function*> MergeCompositeFunction(const Function* fn,
                                                       std::span<const CompositeRule> table,
                                                       Arena* arena) {
  std::vector<CompositeEntry> entries;
  entries.reserve(table.size());
  for (const CompositeRule& rule : table) {
    entries.push_back(CompositeEntry{rule.name, rule.pattern, rule.check});
  }
  // Composites are built typed (PartitionOptions::typed), as the module
  // InferType TVM runs after the pass would type them, so no re-typing walk
  // over the function follows.
  absl::StatusOr<const Expr*> result = PartitionComposites(entries, fn, arena, /*typed=*/true);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        fmt::format("MergeComposite: {}", std::string(result.status().message())));
  }
  return Cast<Function>(*result);
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
  return MakeFunctionPass(
      "MergeComposite", description,
      [table = std::move(table)](const Function* fn, const Module& mod,
                                 PassContext&) -> absl::StatusOr<const Function*> {
        return MergeCompositeFunction(fn, table, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
