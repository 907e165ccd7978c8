// carve as a library: parse a Relay module, carve it with a pattern table
// written with the C++ pattern builders (TVM's MergeComposite ->
// AnnotateTarget -> MergeCompilerRegions -> PartitionGraph), partition it for
// the built-in dnnl backend (TVM's partition_for_dnnl), and run all three
// forms: the plain module and our partition on carve's reference kernels, the
// dnnl partition on oneDNN. Each result is checked against a direct
// computation of conv2d + bias + relu + max_pool2d written out below.
// Exit 0 and a last line "embed: ok" when everything agrees.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "carve/backends/partition.h"
#include "carve/grammar/parser.h"
#include "carve/grammar/printer.h"
#include "carve/interpreter/evaluator.h"
#include "carve/passes/byoc/annotate_target.h"
#include "carve/passes/infer/infer_type.h"
#include "carve/passes/byoc/merge_compiler_regions.h"
#include "carve/passes/byoc/merge_composite.h"
#include "carve/passes/byoc/partition_graph.h"
#include "carve/passes/byoc/target.h"
#include "carve/patterns/builders.h"
#include "carve/support/diagnostics.h"
#include "carve/version.h"

namespace {

using namespace carve;

constexpr int C = 3, H = 8, W = 8, K = 4;  // input channels, height, width; filters

constexpr const char* kModel = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32],
          %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  nn.max_pool2d(%2, pool_size=[2, 2], strides=[2, 2])
}
)";

// Deterministic test data in [-1, 1).
NDArray Data(std::initializer_list<int64_t> shape, int seed) {
  NDArray a = NDArray::Empty(DataType::Float(32), shape);
  for (int64_t i = 0; i < a.num_elements(); ++i) a.data<float>()[i] = std::sin(0.37 * i + seed);
  return a;
}

// The model written out by hand: max_pool2d(relu(conv2d(x, w, pad 1) + b)).
std::vector<float> Expected(const NDArray& x, const NDArray& w, const NDArray& b) {
  auto X = [&](int c, int i, int j) {
    return i < 0 || j < 0 || i >= H || j >= W ? 0.0 : x.data<float>()[(c * H + i) * W + j];
  };
  std::vector<double> relu(K * H * W);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < H; ++i)
      for (int j = 0; j < W; ++j) {
        double s = b.data<float>()[k];
        for (int c = 0; c < C; ++c)
          for (int u = 0; u < 3; ++u)
            for (int v = 0; v < 3; ++v)
              s += X(c, i + u - 1, j + v - 1) * w.data<float>()[((k * C + c) * 3 + u) * 3 + v];
        relu[(k * H + i) * W + j] = std::max(s, 0.0);
      }
  std::vector<float> out;
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < H; i += 2)
      for (int j = 0; j < W; j += 2)
        out.push_back(float(std::max({relu[(k * H + i) * W + j], relu[(k * H + i) * W + j + 1],
                                      relu[(k * H + i + 1) * W + j],
                                      relu[(k * H + i + 1) * W + j + 1]})));
  return out;
}

// Our own backend, "embed": conv2d + bias_add + relu as one composite (TVM's
// is_op("nn.relu")(is_op("nn.bias_add")(is_op("nn.conv2d")(wildcard(),
// wildcard()), wildcard()))) and max_pool2d as a single op.
absl::StatusOr<TargetSpecPtr> EmbedTarget() {
  auto spec = std::make_shared<TargetSpec>("embed");
  Pattern conv = IsOp("nn.conv2d")(Wildcard(), Wildcard());
  Pattern fused = IsOp("nn.relu")(IsOp("nn.bias_add")(conv, Wildcard()));
  if (absl::Status s = fused.status(); !s.ok()) return s;
  spec->AddComposite(CompositeRule{"conv2d_bias_relu", fused, nullptr, ""});
  if (absl::Status s = spec->AddOp("nn.max_pool2d"); !s.ok()) return s;
  return spec;
}

// Runs @main of `mod` (with `external` dispatching offloaded functions, or
// nullptr for the reference kernels) and returns its single output.
absl::StatusOr<NDArray> Run(const Module& mod, std::vector<NDArray> inputs,
                            const ExternalRegistry* external) {
  InterpreterOptions options;
  options.external = external;
  Interpreter interpreter(mod, options);
  absl::StatusOr<std::vector<NDArray>> out = interpreter.RunFlat("main", inputs);
  if (!out.ok()) return out.status();
  if (out->size() != 1) return absl::InternalError("expected one output");
  return out->front();
}

int Offloaded(const Module& mod, std::string_view compiler) {
  int n = 0;
  for (const auto& [gv, fn] : mod.Functions()) n += fn->GetStringAttr("Compiler") == compiler;
  return n;
}

// Largest difference to the hand computation; < 0 when the shape is wrong.
double MaxDiff(const NDArray& got, const std::vector<float>& want) {
  if (got.num_elements() != int64_t(want.size())) return -1;
  double diff = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, std::abs(double(got.data<float>()[i]) - want[i]));
  }
  return diff;
}

absl::Status Main() {
  std::printf("carve %s\n", CARVE_VERSION_STRING);
  absl::StatusOr<Module> parsed = ParseModule("model.relay", kModel);
  if (!parsed.ok()) return parsed.status();
  Module mod = *std::move(parsed);
  if (absl::Status s = InferType(mod); !s.ok()) return s;

  NDArray x = Data({1, C, H, W}, 1), w = Data({K, C, 3, 3}, 2), b = Data({K}, 3);
  std::vector<float> want = Expected(x, w, b);
  bool ok = true;
  auto report = [&](const char* what, const absl::StatusOr<NDArray>& got) -> absl::Status {
    if (!got.ok()) return got.status();
    double diff = MaxDiff(*got, want);
    bool good = diff >= 0 && diff < 1e-4;
    ok = ok && good;
    std::printf("%-34s max |difference| = %.1e  %s\n", what, diff, good ? "ok" : "WRONG");
    return absl::OkStatus();
  };
  if (absl::Status s = report("plain module, reference kernels:", Run(mod, {x, w, b}, nullptr));
      !s.ok()) {
    return s;
  }

  // 1. The BYOC flow with a pattern table built in C++.
  absl::StatusOr<TargetSpecPtr> embed = EmbedTarget();
  if (!embed.ok()) return embed.status();
  Module ours = mod;
  PassPtr pipeline = MakeSequential(
      "EmbedFlow", {MergeComposite({*embed}), AnnotateTarget({*embed}), MergeCompilerRegions(),
                    PartitionGraph()});
  if (absl::StatusOr<bool> changed = RunPass(*pipeline, ours); !changed.ok()) {
    return changed.status();
  }
  std::printf("\n%s\n", PrintModule(ours).c_str());
  std::printf("offloaded to embed: %d function(s)\n", Offloaded(ours, "embed"));
  ok = ok && Offloaded(ours, "embed") == 1;
  if (absl::Status s = report("embed partition, reference kernels:", Run(ours, {x, w, b}, nullptr));
      !s.ok()) {
    return s;
  }

  // 2. The built-in dnnl backend, weights bound as constants (TVM's params).
  BackendPartitionOptions options;
  options.params = {{"w", w}, {"b", b}};
  absl::StatusOr<Module> dnnl = PartitionForBackend(mod, "dnnl", options);
  if (!dnnl.ok()) return dnnl.status();
  std::printf("offloaded to dnnl: %d function(s)\n", Offloaded(*dnnl, "dnnl"));
  ok = ok && Offloaded(*dnnl, "dnnl") == 1;
  if (absl::Status s = report("dnnl partition, oneDNN:", Run(*dnnl, {x}, &ExternalRegistry::Global()));
      !s.ok()) {
    return s;
  }

  if (!ok) return absl::InternalError("a result differs from the direct computation");
  std::printf("embed: ok\n");
  return absl::OkStatus();
}

}  // namespace

int main() {
  absl::Status status = Main();
  if (!status.ok()) {
    std::fputs(carve::RenderStatus(status, "embed").c_str(), stderr);
    return 1;
  }
  return 0;
}
