// The built-in target spec: the seed demo's target. Real backends (bnns,
// dnnl, ...) come from the `.pat` specs in their folders under backends/;
// the benchmarks' DNNL-shaped table is bench/passes_bench.cc's.
#include <string>
#include <string_view>

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

}  // namespace

TargetSpecPtr MakeByocDemoTarget(std::string name) {
  auto spec = std::make_shared<TargetSpec>(std::move(name));
  for (std::string_view op : {"reshape", "add"}) (void)spec->AddOp(op);
  spec->AddComposite(
      CompositeRule{"conv2d_relu_with_bias", DemoConvPattern(true), nullptr, "", nullptr});
  spec->AddComposite(
      CompositeRule{"conv2d_relu_wo_bias", DemoConvPattern(false), nullptr, "", nullptr});
  return spec;
}

}  // namespace carve
