#include "passes/pass_gate.h"

#include <algorithm>

#include "fmt/format.h"
#include "support/edit_distance.h"

namespace carve {
namespace {

// The names TVM v0.16 creates Relay passes under (src/relay: CreateFunctionPass,
// CreateModulePass and named Sequentials). TVM's disabled_pass takes any
// name; carve accepts these too, so a context written for TVM (BNNS's
// disabled_pass=["DynamicToStatic"]) works although carve lacks the pass.
constexpr std::string_view kTvmPassNames[] = {
    "AOTLowerMain", "AlterOpLayout", "AnnotateMemoryScope", "AnnotateSpans", "AnnotateTarget",
    "AnnotateTargetFunc", "AnnotateUsedMemory", "AutoSchedulerLayoutRewrite",
    "BackwardFoldScaleAxis", "CCompilerImpl", "CMSISNNFusePads", "CanonicalizeCast",
    "CanonicalizeOps", "CapturePostDfsIndexInSpans", "CollagePartition",
    "CombineParallelBatchMatmul", "CombineParallelConv2d", "CombineParallelDense",
    "CombineParallelOpBatch", "CompileForCutlass", "CompileForTensorRT", "Conv2dToSparse",
    "Conv2dToSparse2", "ConvertLayout", "DeadCodeElimination", "DefuseOps", "DenseToSparse",
    "DivToMul", "DynamicToStatic", "EliminateCommonSubexpr", "EtaExpand", "ExpandMetaRefs",
    "ExtractConstantsFromPartitionedFunction", "ExtractFusedFunctions",
    "FakeQuantizationToInteger", "FastMath", "FirstOrderGradient", "FlattenAtrousConv",
    "FlattenNestedTuples", "FoldConstant", "FoldScaleAxis", "ForwardFoldScaleAxis", "FuseOps",
    "GenerateCMSISNNConstants", "InferType", "InlineCompilerFunctionsBoundTo", "InlineGlobals",
    "LabelOps", "LambdaLift", "LazyGradientInit", "Legalize", "LowerTE", "LowerTensorExpr",
    "ManifestAlloc", "ManifestAllocImpl", "ManifestAllocImportStorage", "ManifestLifetimes",
    "MarkCompilerFunctionsAsExtern", "MergeCompilerRegions", "MergeComposite",
    "MetaScheduleLayoutRewrite", "NameMangleExtFuncs", "OutlineCompilerFunctions", "PartialEval",
    "PartitionForTesting", "PartitionGraph", "PlanDevices", "PlanDevicesRewrite",
    "PreprocessExternalFuncIO", "QnnCanonicalize", "QnnLegalize", "QuantizeAnnotate",
    "QuantizePartition", "QuantizeRealize", "RelayToTIR", "RelayToTIRTargetHook",
    "RemoveDefaultAnnotations", "RemoveStandaloneReshapes", "RemoveUnusedFunctions",
    "ScalarToTensorConstant", "SimplifyExpr", "SimplifyExprPostAlterOp", "SimplifyFCTranspose",
    "SimplifyInference", "SplitArgs", "ToANormalForm", "ToBasicBlockNormalForm", "ToCPS",
    "ToGraphNormalForm", "ToMixedPrecision", "UnCPS"
};

bool IsTvmPassName(std::string_view name) {
  return std::find(std::begin(kTvmPassNames), std::end(kTvmPassNames), name) !=
         std::end(kTvmPassNames);
}

}  // namespace

int RegisteredOptLevel(std::string_view name, const PassRegistry& registry) {
  const PassInfo* info = registry.Find(name);
  return info == nullptr ? 0 : info->opt_level;
}

bool PassEnabled(const PassGate& gate, std::string_view name, const PassRegistry& registry) {
  if (std::find(gate.disabled.begin(), gate.disabled.end(), name) != gate.disabled.end()) {
    return false;
  }
  return RegisteredOptLevel(name, registry) <= gate.opt_level;
}

PassPtr GatePipeline(const PassPtr& pipeline, const PassGate& gate,
                     const PassRegistry& registry) {
  std::vector<PassPtr> members = SequenceMembers(*pipeline);
  if (members.empty()) members.push_back(pipeline);
  std::vector<PassPtr> kept;
  for (const PassPtr& member : members) {
    if (!PassEnabled(gate, member->name(), registry)) continue;
    // A nested Sequential asks the same context for its own members, as TVM's does.
    kept.push_back(SequenceMembers(*member).empty() ? member
                                                    : GatePipeline(member, gate, registry));
  }
  return MakeSequential(pipeline->name(), std::move(kept));
}

absl::StatusOr<int> ParseOptLevel(std::string_view text) {
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '4') return text[0] - '0';
  return absl::InvalidArgumentError(
      fmt::format("--opt-level expects 0, 1, 2, 3 or 4 (TVM's levels), got '{}'", text));
}

absl::StatusOr<std::vector<std::string>> ParseDisabledPasses(std::string_view text,
                                                             const PassRegistry& registry) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string name(text.substr(start, comma - start));
    start = comma + 1;
    if (name.empty()) continue;
    if (registry.Find(name) == nullptr && !IsTvmPassName(name)) {
      std::vector<std::string> known(std::begin(kTvmPassNames), std::end(kTvmPassNames));
      for (const PassInfo* info : registry.All()) known.push_back(info->name);
      std::string near = NearestName(name, known);
      return absl::InvalidArgumentError(fmt::format(
          "disabled pass '{}' is neither a carve pass (carve opt --list-passes) nor one of TVM "
          "v0.16's{}",
          name, near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
    }
    names.push_back(std::move(name));
  }
  return names;
}

std::string DescribeGate(const PassGate& gate) {
  std::string disabled;
  for (const std::string& name : gate.disabled) {
    disabled += (disabled.empty() ? "" : ",") + name;
  }
  return fmt::format("opt_level={}, disabled_pass=[{}]", gate.opt_level, disabled);
}

}  // namespace carve
