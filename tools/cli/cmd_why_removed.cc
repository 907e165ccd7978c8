#include "tools/cli/cmd_why_removed.h"

#include <memory>

#include "fmt/format.h"
#include "backends/partition.h"
#include "ir/visit.h"
#include "passes/byoc/placement_record.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"
#include "support/status_macros.h"

namespace carve::cli {
namespace {

// After each top-level pass: is a node with `node`'s span and kind still
// in the module? The first pass after which none is, is the one to name.
class SpanWatch : public PassInstrument {
 public:
  explicit SpanWatch(const Expr* node) : node_(node), key_(PrunedOps::Key(node)) {}

  absl::Status AfterPass(const Pass& pass, const Module& mod, int depth, bool changed) override {
    if (depth != 0) return absl::OkStatus();
    ++steps_;
    if (!gone_.empty() || !changed || Present(mod)) return absl::OkStatus();
    gone_ = pass.name();
    step_ = steps_;
    return absl::OkStatus();
  }

  const std::string& gone() const { return gone_; }
  int step() const { return step_; }
  int steps() const { return steps_; }

 private:
  bool Present(const Module& mod) const {
    bool found = false;
    for (const auto& entry : mod.Functions()) {
      PostOrderVisit(entry.second, [&](const Expr* e) {
        found = found || (e->kind() == node_->kind() && PrunedOps::Key(e) == key_);
      });
    }
    return found;
  }

  const Expr* node_;
  SpanKey key_;
  std::string gone_;
  int step_ = 0;
  int steps_ = 0;
};

}  // namespace

absl::StatusOr<std::string> RemovingPass(const Module& input, const Expr* node,
                                         const TargetSpec& spec) {
  const std::string& pipeline_text = spec.recipe().prep_pipeline;
  if (pipeline_text.empty() || !node->span().valid()) return std::string();
  CARVE_ASSIGN_OR_RETURN(PassPtr prep, ParsePipeline(pipeline_text));
  EnsureConstantEvaluator();
  Module mod = input;
  PassContext ctx;
  auto watch = std::make_shared<SpanWatch>(node);
  ctx.AddInstrument(watch);
  CARVE_RETURN_IF_ERROR(RunPipeline(*prep, mod, ctx).status());
  if (watch->gone().empty()) return std::string();
  const PassInfo* info = PassRegistry::Global().Find(watch->gone());
  return fmt::format("folded, simplified or rewritten away by {}'s preparation pass {} (step {} "
                     "of {}: {})",
                     spec.name(), watch->gone(), watch->step(), watch->steps(),
                     info != nullptr ? info->summary : "");
}

}  // namespace carve::cli
