#include "passes/pass.h"

#include <utility>

#include "fmt/format.h"
#include "passes/byoc/annotation.h"
#include "passes/infer/infer_type.h"
#include "passes/infer/type_annotations.h"
#include "support/cancellation.h"
#include "support/status_macros.h"

namespace carve {
namespace {

class ModulePass : public Pass {
 public:
  ModulePass(std::string name, std::string description, ModuleTransform fn)
      : name_(std::move(name)), description_(std::move(description)), fn_(std::move(fn)) {}
  const std::string& name() const override { return name_; }
  std::string Describe() const override { return description_.empty() ? name_ : description_; }
  absl::StatusOr<bool> Run(Module& mod, PassContext& ctx) const override { return fn_(mod, ctx); }

 private:
  std::string name_;
  std::string description_;
  ModuleTransform fn_;
};

class FunctionPass : public Pass {
 public:
  FunctionPass(std::string name, std::string description, FunctionTransform fn,
               bool require_types, bool keeps_types)
      : name_(std::move(name)),
        description_(std::move(description)),
        fn_(std::move(fn)),
        require_types_(require_types),
        keeps_types_(keeps_types) {}
  const std::string& name() const override { return name_; }
  std::string Describe() const override { return description_.empty() ? name_ : description_; }

  absl::StatusOr<bool> Run(Module& mod, PassContext& ctx) const override {
    if (require_types_) CARVE_RETURN_IF_ERROR(EnsureTyped(mod));
    ctx.TakeUntypedNodes();
    bool changed = false;
    for (const auto& [gv, fn] : mod.Functions()) {
      if (!IsOptimizableFunction(fn)) continue;
      CARVE_ASSIGN_OR_RETURN(const Function* updated, fn_(fn, mod, ctx));
      if (updated != fn) {
        mod.Add(gv, updated);
        changed = true;
      }
    }
    // TVM types the whole module after every function pass. Passes that keep
    // types give every node they build its type, so the module is re-typed
    // only when some node has none (MergeComposite's composites); then once
    // per pass, not per function.
    bool known = ctx.input_annotated();
    bool untyped = ctx.TakeUntypedNodes();
    if (changed && (!keeps_types_ || untyped)) {
      CARVE_RETURN_IF_ERROR(RetypeIfNeeded(mod).status());
    } else if (!known) {
      CARVE_RETURN_IF_ERROR(FillMissingTypeAnnotations(mod).status());
    }
    ctx.set_output_annotated();
    return changed;
  }

 private:
  std::string name_;
  std::string description_;
  FunctionTransform fn_;
  bool require_types_;
  bool keeps_types_;
};

class Sequential : public Pass {
 public:
  Sequential(std::string name, std::vector<PassPtr> passes)
      : name_(std::move(name)), passes_(std::move(passes)) {}
  const std::string& name() const override { return name_; }

  std::string Describe() const override {
    std::string out;
    for (const PassPtr& p : passes_) {
      if (!out.empty()) out += ",";
      out += p->Describe();
    }
    return out;
  }

  absl::StatusOr<bool> Run(Module& mod, PassContext& ctx) const override {
    bool changed = false;
    ctx.set_output_annotated(ctx.input_annotated());
    for (const PassPtr& p : passes_) {
      CARVE_ASSIGN_OR_RETURN(bool c, ctx.Run(*p, mod));
      changed |= c;
    }
    return changed;
  }

  const std::vector<PassPtr>& passes() const { return passes_; }

 private:
  std::string name_;
  std::vector<PassPtr> passes_;
};

}  // namespace

void PassContext::AddInstrument(std::shared_ptr<PassInstrument> instrument) {
  instruments_.push_back(std::move(instrument));
}

absl::StatusOr<bool> PassContext::Run(const Pass& pass, Module& mod) {
  // Ctrl-C in the REPL (support/cancellation.h): stop before the next pass.
  CARVE_RETURN_IF_ERROR(CheckCancellation());
  for (const auto& instrument : instruments_) {
    CARVE_RETURN_IF_ERROR(instrument->BeforePass(pass, mod, depth_));
  }
  ++depth_;
  bool outer_input = input_annotated_;
  input_annotated_ = annotated_;
  annotated_ = false;
  AnalysisManager::Marks outer_marks = analyses_.BeginPass();
  absl::StatusOr<bool> changed = pass.Run(mod, *this);
  analyses_.EndPass(std::move(outer_marks));
  input_annotated_ = outer_input;
  --depth_;
  // A pass stopped by Ctrl-C may have returned a partial result (walks stop
  // early, ir/visit.cc) or another error caused by stopping: either way it
  // is cancelled, and the outermost pass names itself in the message.
  if (CancellationRequested()) {
    if (depth_ > 0) return CheckCancellation();
    return absl::CancelledError(fmt::format("interrupted: {}", pass.Describe()));
  }
  if (!changed.ok()) return changed.status();
  for (const auto& instrument : instruments_) {
    CARVE_RETURN_IF_ERROR(instrument->AfterPass(pass, mod, depth_, *changed));
  }
  return changed;
}

absl::StatusOr<bool> RunPipeline(const Pass& pipeline, Module& mod, PassContext& ctx) {
  std::vector<PassPtr> members = SequenceMembers(pipeline);
  if (members.empty()) return ctx.Run(pipeline, mod);
  bool changed = false;
  for (const PassPtr& p : members) {
    CARVE_ASSIGN_OR_RETURN(bool c, ctx.Run(*p, mod));
    changed |= c;
  }
  return changed;
}

absl::StatusOr<bool> RunPass(const Pass& pass, Module& mod) {
  PassContext ctx;
  return ctx.Run(pass, mod);
}

PassPtr MakeModulePass(std::string name, std::string description, ModuleTransform fn) {
  return std::make_shared<ModulePass>(std::move(name), std::move(description), std::move(fn));
}

PassPtr MakeFunctionPass(std::string name, std::string description, FunctionTransform fn,
                         bool require_types, bool keeps_types) {
  return std::make_shared<FunctionPass>(std::move(name), std::move(description), std::move(fn),
                                        require_types, keeps_types);
}

PassPtr MakeSequential(std::string name, std::vector<PassPtr> passes) {
  return std::make_shared<Sequential>(std::move(name), std::move(passes));
}

std::vector<PassPtr> SequenceMembers(const Pass& pass) {
  const auto* seq = dynamic_cast<const Sequential*>(&pass);
  return seq == nullptr ? std::vector<PassPtr>{} : seq->passes();
}

absl::Status EnsureTyped(Module& mod) {
  for (const auto& [gv, fn] : mod.Functions()) {
    if (fn->body()->checked_type() == nullptr) return InferType(mod);
  }
  return absl::OkStatus();
}

}  // namespace carve
