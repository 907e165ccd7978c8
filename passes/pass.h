// The pass manager: module passes, function passes and sequences, run through
// a PassContext that calls instruments (IR printing, timing, verification)
// around every pass.
//
// A pass transforms a Module in place and reports whether it changed it
// (`absl::StatusOr<bool>`); it fails with FailedPrecondition on IR it cannot
// take. Passes are immutable once built, so one pipeline can run on many
// modules. Pass names are TVM's ("MergeComposite", "PartitionGraph").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/module.h"
#include "passes/analysis_manager.h"

namespace carve {

class PassContext;

class Pass {
 public:
  virtual ~Pass() = default;
  // TVM's name of the pass ("AnnotateTarget").
  virtual const std::string& name() const = 0;
  // The pass as pipeline text, with its arguments
  // ("AnnotateTarget(dnnl,include_non_call_ops=False)").
  virtual std::string Describe() const { return name(); }
  // Transforms `mod` in place and returns whether it changed. Run passes
  // through PassContext::Run so that instruments see them.
  virtual absl::StatusOr<bool> Run(Module& mod, PassContext& ctx) const = 0;
};

using PassPtr = std::shared_ptr<const Pass>;

// Hooks around every pass a PassContext runs. `depth` is 0 for the passes of
// the top-level pipeline, 1 for the passes inside them, and so on.
class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  virtual absl::Status BeforePass(const Pass& pass, const Module& mod, int depth) {
    return absl::OkStatus();
  }
  virtual absl::Status AfterPass(const Pass& pass, const Module& mod, int depth, bool changed) {
    return absl::OkStatus();
  }
};

// Runs passes with instruments. Not thread-safe; one per pipeline run.
class PassContext {
 public:
  void AddInstrument(std::shared_ptr<PassInstrument> instrument);
  // Runs `pass` on `mod` between the instruments' hooks. An instrument's
  // error (a failed verification) stops the run.
  absl::StatusOr<bool> Run(const Pass& pass, Module& mod);

  // Whether the module the running pass received is known to carry every
  // annotation TVM's InferType fills (see type_annotations.h). A pass whose
  // output is known to carry them says so with set_output_annotated(); for
  // any other pass the knowledge is lost. Lets passes skip a scan.
  // (A sequence passes the knowledge along its members.)
  bool input_annotated() const { return input_annotated_; }
  void set_output_annotated(bool annotated = true) { annotated_ = annotated; }

  // A function pass that keeps types (MakeFunctionPass's `keeps_types`)
  // calls this when it built a node it could not type (MergeComposite's
  // composites, in rare cases): the module is then re-typed after the pass.
  void NoteUntypedNodes() { untyped_nodes_ = true; }
  bool TakeUntypedNodes() { return std::exchange(untyped_nodes_, false); }

  // The analyses the passes of this run share (analysis_manager.h); after
  // each pass, those it did not mark preserved are dropped.
  AnalysisManager& analyses() { return analyses_; }

 private:
  AnalysisManager analyses_;
  std::vector<std::shared_ptr<PassInstrument>> instruments_;
  int depth_ = 0;
  bool input_annotated_ = false;  // of the running pass
  bool annotated_ = false;        // of the module as it is now
  bool untyped_nodes_ = false;    // see NoteUntypedNodes
};

// Runs a pipeline: the members of a sequence one by one as top-level passes
// of `ctx` (so instruments see them at depth 0), or `pass` itself.
absl::StatusOr<bool> RunPipeline(const Pass& pipeline, Module& mod, PassContext& ctx);

// Runs `pass` in a fresh context without instruments.
absl::StatusOr<bool> RunPass(const Pass& pass, Module& mod);

// A module-level pass from a function.
using ModuleTransform = std::function<absl::StatusOr<bool>(Module& mod, PassContext& ctx)>;
PassPtr MakeModulePass(std::string name, std::string description, ModuleTransform fn);

// A function-level transformation: returns the new function (or `fn` itself
// when nothing changed).
using FunctionTransform = std::function<absl::StatusOr<const Function*>(
    const Function* fn, const Module& mod, PassContext& ctx)>;

// TVM's CreateFunctionPass: applies `fn` to every global function a Relay
// function pass may optimize (see IsOptimizableFunction), in name order, then
// types the whole module once (TVM re-types after every function pass).
// With `require_types`, the module is typed first when a function lacks
// types (TVM's `required = {"InferType"}`). With `keeps_types`, the
// transform promises to give every node it builds its checked type and to
// build no unannotated variable or function, so the module is left as the
// InferType would leave it without even a scan.
PassPtr MakeFunctionPass(std::string name, std::string description, FunctionTransform fn,
                         bool require_types = false, bool keeps_types = false);

// TVM's Sequential: runs `passes` in order; changed when any pass changed.
PassPtr MakeSequential(std::string name, std::vector<PassPtr> passes);

// The passes of a sequence (empty for other passes), for tools that list a
// pipeline.
std::vector<PassPtr> SequenceMembers(const Pass& pass);

// Types `mod` when some function body has no checked type yet.
absl::Status EnsureTyped(Module& mod);

}  // namespace carve
