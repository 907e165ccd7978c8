// The passes `carve opt` pipelines can name, with TVM's signatures.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ir/op.h"
#include "passes/byoc/annotate_target.h"
#include "passes/simplify/cleanup_passes.h"
#include "passes/layout/alter_op_layout.h"
#include "passes/layout/conv_rules.h"
#include "passes/layout/convert_layout.h"
#include "passes/fold/fold_constant.h"
#include "passes/fold/fold_scale_axis.h"
#include "passes/simplify/a_normal_form.h"
#include "passes/simplify/graph_normal_form.h"
#include "passes/infer/infer_type.h"
#include "passes/infer/type_annotations.h"
#include "passes/byoc/merge_compiler_regions.h"
#include "passes/byoc/merge_composite.h"
#include "passes/byoc/partition_graph.h"
#include "passes/pass_registry.h"
#include "passes/rewrite/rewrite_pass.h"
#include "passes/simplify/simplify_expr.h"
#include "passes/simplify/simplify_inference.h"
#include "passes/byoc/target.h"
#include "support/status_macros.h"

namespace carve {
namespace {

PassParam Param(std::string name, PassParamKind kind, std::optional<std::string> def,
                std::string help) {
  return PassParam{std::move(name), kind, std::move(def), std::move(help)};
}

// A pass without arguments.
PassInfo Simple(std::string name, std::string summary, std::function<PassPtr()> make) {
  return PassInfo{std::move(name), std::move(summary), {},
                  [make](const PassArgs&) -> absl::StatusOr<PassPtr> { return make(); }};
}

// The targets of the list argument `param`; an unknown one is blamed.
absl::StatusOr<std::vector<TargetSpecPtr>> Targets(const std::vector<std::string>& names,
                                                   std::string_view param) {
  if (names.empty()) {
    return BlameArgument(absl::InvalidArgumentError("expected at least one target"), param);
  }
  std::vector<TargetSpecPtr> targets;
  for (size_t i = 0; i < names.size(); ++i) {
    absl::StatusOr<TargetSpecPtr> spec = TargetRegistry::Global().Get(names[i]);
    if (!spec.ok()) return BlameArgument(spec.status(), param, i);
    targets.push_back(*std::move(spec));
  }
  return targets;
}

PassInfo AnnotateTargetInfo() {
  return PassInfo{
      "AnnotateTarget",
      "wrap each op in compiler_begin/compiler_end for the first target that takes it",
      {Param("targets", PassParamKind::kStringList, std::nullopt, "target names, by priority"),
       Param("include_non_call_ops", PassParamKind::kBool, "True",
             "annotate tuples and projections too")},
      [](const PassArgs& args) -> absl::StatusOr<PassPtr> {
        CARVE_ASSIGN_OR_RETURN(std::vector<TargetSpecPtr> targets,
                               Targets(args.Strings("targets"), "targets"));
        return AnnotateTarget(std::move(targets), args.Bool("include_non_call_ops"));
      }};
}

PassInfo MergeCompositeInfo() {
  return PassInfo{
      "MergeComposite",
      "replace pattern-table matches by Composite functions",
      {Param("pattern_table", PassParamKind::kStringList, std::nullopt,
             "targets whose composite tables apply, in order")},
      [](const PassArgs& args) -> absl::StatusOr<PassPtr> {
        CARVE_ASSIGN_OR_RETURN(std::vector<TargetSpecPtr> targets,
                               Targets(args.Strings("pattern_table"), "pattern_table"));
        return MergeComposite(std::move(targets));
      }};
}

PassInfo PartitionGraphInfo() {
  return PassInfo{
      "PartitionGraph",
      "lift every annotated region into a global function for its target",
      {Param("mod_name", PassParamKind::kString, "default", "names are tvmgen_<mod_name>_..."),
       Param("bind_constants", PassParamKind::kBool, "True",
             "bind constant inputs into the partitioned functions")},
      [](const PassArgs& args) -> absl::StatusOr<PassPtr> {
        PartitionGraphOptions options{args.String("mod_name"), args.Bool("bind_constants")};
        CARVE_RETURN_IF_ERROR(BlameArgument(MangleModuleName(options.mod_name).status(), "mod_name"));
        return PartitionGraph(options);
      }};
}

PassInfo FoldConstantInfo() {
  return PassInfo{"FoldConstant",
                  "evaluate calls whose arguments are constants (kernels from the tool)",
                  {Param("fold_qnn", PassParamKind::kBool, "False", "fold qnn ops too")},
                  [](const PassArgs& args) -> absl::StatusOr<PassPtr> {
                    return FoldConstant(args.Bool("fold_qnn"));
                  }};
}

PassInfo DeadCodeEliminationInfo() {
  return PassInfo{"DeadCodeElimination",
                  "drop let bindings whose variable is unused",
                  {Param("inline_once", PassParamKind::kBool, "False",
                         "inline bindings used exactly once"),
                   Param("ignore_impurity", PassParamKind::kBool, "False",
                         "drop bindings of stateful values too")},
                  [](const PassArgs& args) -> absl::StatusOr<PassPtr> {
                    return DeadCodeElimination(args.Bool("ignore_impurity"),
                                               args.Bool("inline_once"));
                  }};
}

// Which argument of ConvertLayout `error` (of ConvertLayout(desired)) is
// about, found by checking each converted op alone: an unknown or repeated
// op in `ops` or `layouts`, a data layout the op cannot take, or its kernel
// layout; else skip_layers, the one check left.
absl::Status BlameConvertLayout(const DesiredLayout& desired, absl::Status error) {
  absl::flat_hash_set<std::string> seen;
  for (size_t i = 0; i < desired.ops.size(); ++i) {
    const std::string& name = desired.ops[i];
    const OpInfo* op = FindOp(name);
    if (op == nullptr || !layout::HasConvertFunction(*op) || !seen.insert(name).second) {
      return BlameArgument(error, "ops", i);
    }
    DesiredLayout one;
    one.data = desired.data;
    one.ops = {name};
    if (!ConvertLayout(one).ok()) return BlameArgument(error, "data_layout");
    one.kernel = desired.kernel;
    if (!ConvertLayout(one).ok()) return BlameArgument(error, "kernel_layout");
  }
  for (size_t i = 0; i < desired.per_op.size(); ++i) {
    DesiredLayout one;
    one.ops.clear();
    one.per_op = {desired.per_op[i]};
    if (!seen.insert(desired.per_op[i].op).second || !ConvertLayout(one).ok()) {
      return BlameArgument(error, "layouts", i);
    }
  }
  return desired.skip_layers.empty() ? error : BlameArgument(error, "skip_layers");
}

PassInfo ConvertLayoutInfo() {
  return PassInfo{"ConvertLayout",
                  "move convolutions (and pools, resize, roi ops) to a layout; ops after them follow",
                  {Param("data_layout", PassParamKind::kString, "",
                         "e.g. NCHW, NHWC, NDHWC, for every op in `ops`"),
                   Param("kernel_layout", PassParamKind::kString, "default",
                         "kernel layout (default: each op's TVM default, e.g. OIHW / HWIO)"),
                   Param("ops", PassParamKind::kStringList, "nn.conv2d",
                         "the ops converted to data_layout (TVM's desired_layouts keys)"),
                   Param("layouts", PassParamKind::kStringList, "",
                         "ops with a layout of their own, op:data[:kernel] "
                         "(e.g. nn.max_pool2d:NHWC)"),
                   Param("skip_layers", PassParamKind::kStringList, "",
                         "nn.conv2d calls left as they are, numbered from 0 "
                         "(TVM's LayoutConfig)")},
                  [](const PassArgs& args) -> absl::StatusOr<PassPtr> {
                    DesiredLayout desired;
                    desired.data = args.String("data_layout");
                    desired.kernel = args.String("kernel_layout");
                    desired.ops = args.Strings("ops");
                    const std::vector<std::string>& layers = args.Strings("skip_layers");
                    for (size_t i = 0; i < layers.size(); ++i) {
                      absl::StatusOr<int64_t> index = ParseSkipLayer(layers[i]);
                      if (!index.ok()) return BlameArgument(index.status(), "skip_layers", i);
                      desired.skip_layers.push_back(*index);
                    }
                    const std::vector<std::string>& entries = args.Strings("layouts");
                    for (size_t i = 0; i < entries.size(); ++i) {
                      absl::StatusOr<OpLayout> op = ParseOpLayout(entries[i]);
                      if (!op.ok()) return BlameArgument(op.status(), "layouts", i);
                      desired.per_op.push_back(*std::move(op));
                    }
                    if (desired.data.empty()) {
                      if (desired.per_op.empty()) {
                        return absl::InvalidArgumentError(
                            "ConvertLayout: give data_layout, layouts, or both");
                      }
                      const bool ops_given = desired.ops != std::vector<std::string>{"nn.conv2d"};
                      if (ops_given || desired.kernel != "default") {
                        return BlameArgument(
                            absl::InvalidArgumentError(
                                "ConvertLayout: ops and kernel_layout apply only with data_layout"),
                            ops_given ? "ops" : "kernel_layout");
                      }
                      desired.ops.clear();
                    }
                    absl::StatusOr<PassPtr> pass = ConvertLayout(desired);
                    if (!pass.ok()) return BlameConvertLayout(desired, pass.status());
                    return pass;
                  }};
}

// Which argument of Rewrite `error` (of RewritePass(options)) is about: a
// limit out of range, the rule file, or the first rule name that fails
// alone or repeats one before it.
absl::Status BlameRewrite(const RewritePassOptions& options, absl::Status error) {
  if (options.max_rewrites < 1) return BlameArgument(error, "max_rewrites");
  if (options.max_nodes < 0) return BlameArgument(error, "max_nodes");
  RewritePassOptions all_rules = options;
  all_rules.rules.clear();
  if (!RewritePass(all_rules).ok()) {
    return options.file.empty() ? error : BlameArgument(error, "file");
  }
  for (size_t i = 0; i < options.rules.size(); ++i) {
    RewritePassOptions one = options;
    one.rules = {options.rules[i]};
    const bool repeated = std::find(options.rules.begin(), options.rules.begin() + i,
                                    options.rules[i]) != options.rules.begin() + i;
    if (repeated || !RewritePass(one).ok()) return BlameArgument(error, "rules", i);
  }
  return error;
}

PassInfo RewriteInfo() {
  return PassInfo{
      "Rewrite",
      "apply the `rule` definitions of a .pat file (default: the --patterns files) to a fixpoint",
      {Param("file", PassParamKind::kString, "", "the .pat file (default: the --patterns files)"),
       Param("rules", PassParamKind::kStringList, "", "rule names, in order (default: all)"),
       Param("max_rounds", PassParamKind::kInt, "100", "fail after this many rounds"),
       Param("max_rewrites", PassParamKind::kInt, "16777216",
             "fail after this many rewrites in a function"),
       Param("max_nodes", PassParamKind::kInt, "0",
             "fail when a function's graph grows past this many nodes (0: 16 times its size, "
             "at least 65536)")},
      [](const PassArgs& args) -> absl::StatusOr<PassPtr> {
        RewritePassOptions options;
        options.file = args.String("file");
        options.rules = args.Strings("rules");
        int64_t rounds = args.Int("max_rounds");
        if (rounds < 1 || rounds > 1000000000) {
          return BlameArgument(
              absl::InvalidArgumentError(
                  fmt::format("max_rounds must be between 1 and 1000000000, got {}", rounds)),
              "max_rounds");
        }
        options.max_rounds = static_cast<int>(rounds);
        options.max_rewrites = args.Int("max_rewrites");
        options.max_nodes = args.Int("max_nodes");
        absl::StatusOr<PassPtr> pass = RewritePass(options);
        if (!pass.ok()) return BlameRewrite(options, pass.status());
        return pass;
      }};
}

PassPtr InferTypePass() {
  return MakeModulePass("InferType", "", [](Module& mod, PassContext& ctx) -> absl::StatusOr<bool> {
    ctx.set_output_annotated();
    // TVM's InferType also fills missing annotations, a visible change.
    // Modules reach passes typed (tools type what they load, passes type
    // what they build), so a module whose every node has its type is not
    // inferred again: re-inferring would give the same types.
    return RetypeIfNeeded(mod);
  });
}

// `info` at TVM's opt level `level`.
PassInfo At(int level, PassInfo info) {
  info.opt_level = level;
  return info;
}

}  // namespace

void RegisterBuiltinPasses(PassRegistry& registry) {
  registry.Register(Simple("InferType", "type-check the module", InferTypePass));
  registry.Register(MergeCompositeInfo());
  registry.Register(AnnotateTargetInfo());
  registry.Register(Simple("MergeCompilerRegions",
                           "merge adjacent regions of one target (never into a cycle)",
                           MergeCompilerRegions));
  registry.Register(PartitionGraphInfo());
  registry.Register(At(2, FoldConstantInfo()));
  registry.Register(At(1, DeadCodeEliminationInfo()));
  registry.Register(At(3, ConvertLayoutInfo()));
  registry.Register(At(3, Simple("AlterOpLayout",
                                  "TVM's layout rewriter with no target alteration: broadcast "
                                  "operands next to conv/dense/pool outputs take their rank",
                                  AlterOpLayout)));
  registry.Register(RewriteInfo());
  registry.Register(PassInfo{
      "SimplifyExpr",
      "algebraic simplifications as pattern rules",
      {Param("keep_clip_after", PassParamKind::kStringList, "",
             "ops whose result keeps a clip that changes no value (a backend's recipe sets it)")},
      [](const PassArgs& args) -> absl::StatusOr<PassPtr> {
        const std::vector<std::string>& ops = args.Strings("keep_clip_after");
        absl::StatusOr<SimplifyExprOptions> options = SimplifyExprOptionsFor(ops);
        if (!options.ok()) {
          // Blame the first op that fails alone.
          for (size_t i = 0; i < ops.size(); ++i) {
            if (!SimplifyExprOptionsFor({ops[i]}).ok()) {
              return BlameArgument(options.status(), "keep_clip_after", i);
            }
          }
          return BlameArgument(options.status(), "keep_clip_after");
        }
        return SimplifyExpr(*std::move(options));
      }});
  registry.Register(At(3, Simple("CanonicalizeOps", "bias_add -> add(x, expand_dims(bias))",
                                  CanonicalizeOps)));
  registry.Register(Simple("RemoveDropout", "nn.dropout(x).0 -> x", RemoveDropout));
  registry.Register(Simple("SimplifyInference", "norms -> arithmetic, no dropout",
                           SimplifyInference));
  registry.Register(At(3, Simple("BackwardFoldScaleAxis",
                                  "fold a multiply into the conv/dense before it",
                                  BackwardFoldScaleAxis)));
  registry.Register(At(3, Simple("ForwardFoldScaleAxis",
                                  "fold a multiply into the conv/dense after it",
                                  ForwardFoldScaleAxis)));
  // TVM's FoldScaleAxis is a Sequential of these three with its default
  // level (0): in a context below 3 only its FoldConstant runs.
  registry.Register(Simple("FoldScaleAxis",
                           "BackwardFoldScaleAxis, ForwardFoldScaleAxis, FoldConstant (TVM's sequence)",
                           [] {
                             return MakeSequential("FoldScaleAxis",
                                                   {BackwardFoldScaleAxis(), ForwardFoldScaleAxis(),
                                                    FoldConstant()});
                           }));
  registry.Register(Simple("FlattenNestedTuples",
                           "PartitionGraph's first step: compiler_end(tuple) -> tuple of ends",
                           FlattenNestedTuplesPass));
  registry.Register(At(1, Simple("ToANormalForm",
                                  "every compound expression let-bound once, in its innermost scope",
                                  ToANormalForm)));
  registry.Register(At(1, Simple("ToGraphNormalForm",
                                  "lets inlined (let-bound functions kept): a dataflow graph",
                                  ToGraphNormalForm)));
  registry.Register(Simple("RemoveDefaultAnnotations",
                           "PartitionGraph's second step: drop `default` annotations",
                           RemoveDefaultAnnotationsPass));
}

}  // namespace carve
