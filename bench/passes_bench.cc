// The BYOC flow end to end on generated ResNet-like graphs: parse, InferType,
// MergeComposite -> AnnotateTarget -> MergeCompilerRegions -> PartitionGraph
// (each pass leaving the module typed and annotated as TVM's trailing
// InferType would), print. The CLI equivalent, with the .pat table:
//   carve opt r100k.relay --patterns bench/dnnl_like.pat --pass-timing -p
//     InferType,MergeComposite(dnnl),AnnotateTarget(dnnl),MergeCompilerRegions,PartitionGraph
//
//   BM_ByocFlow/N:         the dnnl_like table below (every op offloaded: one
//                          region)
//   BM_ByocFlowMixed/N:    only conv2d offloaded, so regions alternate with
//                          host ops all along the graph (MergeCompilerRegions'
//                          worst case for restriction sets)
// items_per_second is ops per second; the per-pass times of the last run are
// printed after the table (stderr).
#include <chrono>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"
#include "bench/relay_gen.h"
#include "fmt/format.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "passes/byoc/annotate_target.h"
#include "passes/infer/infer_type.h"
#include "passes/instruments.h"
#include "passes/byoc/merge_compiler_regions.h"
#include "passes/byoc/merge_composite.h"
#include "passes/byoc/partition_graph.h"
#include "passes/byoc/target.h"
#include "patterns/builders.h"

namespace carve {
namespace {

// Registers every op of `names` that the registry knows; an op missing from
// the registry is simply not offered.
void AddOps(TargetSpec& spec, const std::vector<std::string_view>& names) {
  for (std::string_view name : names) {
    if (FindOp(name) != nullptr) (void)spec.AddOp(name);
  }
}

// An activation that may end an anchor pattern, with the suffix it gives
// the composite's name (a table, so no name is derived from an op's name).
struct Activation {
  std::string_view op;  // "" for none
  std::string_view suffix;
};
constexpr Activation kActivations[] = {
    {"nn.relu", "_relu"}, {"tanh", "_tanh"}, {"sigmoid", "_sigmoid"}, {"", ""}};

// `anchor(x, w)` [-> (add | bias_add)(., b)] [-> act(.)], named
// `<base>[_bias][_<act>]`; nothing when the registry lacks the anchor.
void AddAnchorPatterns(TargetSpec& spec, std::string_view anchor, std::string_view base) {
  if (FindOp(anchor) == nullptr) return;
  for (bool with_bias : {true, false}) {
    for (const Activation& act : kActivations) {
      if (!with_bias && act.op.empty()) continue;
      if (!act.op.empty() && FindOp(act.op) == nullptr) continue;
      Pattern p = IsOp(anchor)(Wildcard(), Wildcard());
      std::string name(base);
      if (with_bias) {
        Pattern bias = Wildcard();
        p = IsOp("add")(p, bias) | IsOp("nn.bias_add")(p, bias);
        name += "_bias";
      }
      if (!act.op.empty()) p = IsOp(act.op)(p);
      name += act.suffix;
      spec.AddComposite(CompositeRule{name, p, nullptr, "", nullptr});
    }
  }
}

// `dnnl_like`, a DNNL-shaped spec: the DNNL single-op list (tvm-reference
// 4.3, without its int64 / ceil_mode guard) and a table of conv2d / dense
// patterns with optional bias (add or bias_add) and relu / tanh / sigmoid.
// A benchmark's table, not the dnnl backend's (backends/dnnl/dnnl.pat).
TargetSpecPtr DnnlLikeTarget() {
  static TargetSpecPtr spec = [] {
    auto s = std::make_shared<TargetSpec>("dnnl_like");
    AddOps(*s, {"nn.batch_norm", "nn.conv1d", "nn.conv2d", "nn.conv3d", "nn.conv2d_transpose",
                "nn.conv3d_transpose", "nn.dense", "nn.max_pool2d", "nn.avg_pool2d",
                "nn.global_avg_pool2d", "nn.max_pool3d", "nn.avg_pool3d", "abs", "clip", "exp",
                "log", "sqrt", "round", "nn.relu", "nn.leaky_relu", "tanh", "sigmoid",
                "nn.softmax", "add", "multiply", "nn.layer_norm", "nn.batch_matmul",
                "nn.bias_add"});
    AddAnchorPatterns(*s, "nn.conv2d", "conv2d");
    AddAnchorPatterns(*s, "nn.dense", "dense");
    TargetRegistry::Global().Register(s);
    return s;
  }();
  return spec;
}

TargetSpecPtr ConvOnlyTarget() {
  static TargetSpecPtr spec = [] {
    auto s = std::make_shared<TargetSpec>("conv_only");
    (void)s->AddOp("nn.conv2d");
    TargetRegistry::Global().Register(s);
    return s;
  }();
  return spec;
}

void RunFlow(benchmark::State& state, const TargetSpecPtr& target) {
  int64_t ops = state.range(0);
  std::string text = bench::GenerateRelay(bench::GraphKind::kResNet, ops);
  std::string timing;
  size_t printed = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    absl::StatusOr<Module> mod = ParseModule("resnet.relay", text);
    auto t1 = std::chrono::steady_clock::now();
    if (!mod.ok() || !InferType(*mod).ok()) {
      state.SkipWithError("parse or InferType failed");
      return;
    }
    auto t2 = std::chrono::steady_clock::now();
    PassContext ctx;
    auto timer = std::make_shared<TimingInstrument>();
    ctx.AddInstrument(timer);
    PassPtr pipeline = MakeSequential(
        "ByocFlow", {MergeComposite({target}), AnnotateTarget({target}), MergeCompilerRegions(),
                     PartitionGraph()});
    absl::StatusOr<bool> ran = RunPipeline(*pipeline, *mod, ctx);
    if (!ran.ok()) {
      state.SkipWithError(std::string(ran.status().message()).c_str());
      return;
    }
    auto t3 = std::chrono::steady_clock::now();
    std::string out = PrintModule(*mod);
    auto t4 = std::chrono::steady_clock::now();
    printed = out.size();
    benchmark::DoNotOptimize(out.data());
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    timing = fmt::format("parse {:.0f} ms, InferType {:.0f} ms, passes {:.0f} ms, print {:.0f} ms\n",
                         ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t3, t4)) +
             timer->Render();
  }
  state.SetItemsProcessed(state.iterations() * ops);
  state.counters["text_MB"] = static_cast<double>(text.size()) / 1e6;
  state.counters["out_MB"] = static_cast<double>(printed) / 1e6;
  std::cerr << "\n" << timing;
}

void BM_ByocFlow(benchmark::State& state) {
  RunFlow(state, DnnlLikeTarget());
}

void BM_ByocFlowMixed(benchmark::State& state) { RunFlow(state, ConvOnlyTarget()); }

BENCHMARK(BM_ByocFlow)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ByocFlowMixed)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace carve

BENCHMARK_MAIN();
