// The built-in target specs: the seed demo's target and a DNNL-shaped table
// for benchmarks. Real backends (bnns, dnnl, ...) come from `.pat` specs.
#include <string>
#include <string_view>
#include <vector>

#include "passes/byoc/target.h"
#include "patterns/builders.h"

namespace carve {
namespace {

// conv2d(data, weight) [-> bias_add(., bias)] -> relu, as the seed notebook's
// make_pattern.
Pattern DemoConvPattern(bool with_bias) {
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  Pattern out = with_bias ? IsOp("nn.bias_add")(conv, Wildcard()) : conv;
  return IsOp("nn.relu")(out);
}

// Registers every op of `names` that the registry knows. Built-in tables
// list ops by name; an op missing from the registry is simply not offered.
void AddOps(TargetSpec& spec, const std::vector<std::string_view>& names) {
  for (std::string_view name : names) {
    if (const OpInfo* op = FindOp(name)) spec.AddOp(OpRule{op, nullptr, nullptr, ""});
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
      spec.AddComposite(CompositeRule{name, p, nullptr, ""});
    }
  }
}

}  // namespace

TargetSpecPtr MakeByocDemoTarget(std::string name) {
  auto spec = std::make_shared<TargetSpec>(std::move(name));
  AddOps(*spec, {"reshape", "add"});
  spec->AddComposite(CompositeRule{"conv2d_relu_with_bias", DemoConvPattern(true), nullptr, ""});
  spec->AddComposite(CompositeRule{"conv2d_relu_wo_bias", DemoConvPattern(false), nullptr, ""});
  return spec;
}

TargetSpecPtr MakeDnnlLikeTarget(std::string name) {
  auto spec = std::make_shared<TargetSpec>(std::move(name));
  AddOps(*spec, {"nn.batch_norm", "nn.conv1d", "nn.conv2d", "nn.conv3d", "nn.conv2d_transpose",
                 "nn.conv3d_transpose", "nn.dense", "nn.max_pool2d", "nn.avg_pool2d",
                 "nn.global_avg_pool2d", "nn.max_pool3d", "nn.avg_pool3d", "abs", "clip", "exp",
                 "log", "sqrt", "round", "nn.relu", "nn.leaky_relu", "tanh", "sigmoid",
                 "nn.softmax", "add", "multiply", "nn.layer_norm", "nn.batch_matmul",
                 "nn.bias_add"});
  AddAnchorPatterns(*spec, "nn.conv2d", "conv2d");
  AddAnchorPatterns(*spec, "nn.dense", "dense");
  return spec;
}

}  // namespace carve
