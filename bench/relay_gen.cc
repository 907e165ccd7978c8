#include "bench/relay_gen.h"

#include "fmt/format.h"

namespace carve::bench {
namespace {

// Residual blocks of [conv, bias_add, relu, conv, bias_add, add, relu]
// (7 ops) at 64 channels, 56x56, padding keeping the spatial size.
std::string ResNet(int64_t num_ops) {
  int64_t blocks = std::max<int64_t>(1, num_ops / 7);
  std::string params = "%data: Tensor[(1, 64, 56, 56), float32]";
  std::string body;
  body.reserve(blocks * 7 * 80);
  int64_t n = 0;
  std::string x = "%data";
  auto conv = [&](int64_t layer) {
    params += fmt::format(", %w{}: Tensor[(64, 64, 3, 3), float32], %b{}: Tensor[(64), float32]",
                          layer, layer);
    body += fmt::format(
        "  %{} = nn.conv2d({}, %w{}, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]);\n",
        n, x, layer);
    body += fmt::format("  %{} = nn.bias_add(%{}, %b{});\n", n + 1, n, layer);
    n += 2;
  };
  for (int64_t b = 0; b < blocks; ++b) {
    std::string input = x;
    conv(2 * b);
    body += fmt::format("  %{} = nn.relu(%{});\n", n, n - 1);
    x = fmt::format("%{}", n++);
    conv(2 * b + 1);
    body += fmt::format("  %{} = add(%{}, {});\n", n, n - 1, input);
    ++n;
    if (b + 1 == blocks) {
      body += fmt::format("  nn.relu(%{})\n", n - 1);
    } else {
      body += fmt::format("  %{} = nn.relu(%{});\n", n, n - 1);
      x = fmt::format("%{}", n++);
    }
  }
  return fmt::format("#[version = \"0.0.5\"]\ndef @main({}) {{\n{}}}\n", params, body);
}

// Blocks of single-head attention + MLP on a (128, 256) activation:
// dense x3, reshape x3, batch_matmul, multiply, softmax, batch_matmul,
// reshape, dense, add, layer_norm, dense, relu, dense, add, layer_norm (19 ops).
std::string Transformer(int64_t num_ops) {
  int64_t blocks = std::max<int64_t>(1, num_ops / 19);
  std::string params = "%x: Tensor[(128, 256), float32]";
  std::string body;
  body.reserve(blocks * 19 * 90);
  int64_t n = 0;
  std::string x = "%x";
  auto next = [&]() { return fmt::format("%{}", n++); };
  for (int64_t b = 0; b < blocks; ++b) {
    params += fmt::format(
        ", %wq{0}: Tensor[(256, 256), float32], %wk{0}: Tensor[(256, 256), float32]"
        ", %wv{0}: Tensor[(256, 256), float32], %wo{0}: Tensor[(256, 256), float32]"
        ", %w1{0}: Tensor[(1024, 256), float32], %w2{0}: Tensor[(256, 1024), float32]"
        ", %g{0}: Tensor[(256), float32], %be{0}: Tensor[(256), float32]",
        b);
    std::string q = next(), k = next(), v = next();
    body += fmt::format("  {} = nn.dense({}, %wq{}, units=None);\n", q, x, b);
    body += fmt::format("  {} = nn.dense({}, %wk{}, units=None);\n", k, x, b);
    body += fmt::format("  {} = nn.dense({}, %wv{}, units=None);\n", v, x, b);
    std::string q3 = next(), k3 = next(), v3 = next();
    body += fmt::format("  {} = reshape({}, newshape=[1, 128, 256]);\n", q3, q);
    body += fmt::format("  {} = reshape({}, newshape=[1, 128, 256]);\n", k3, k);
    body += fmt::format("  {} = reshape({}, newshape=[1, 128, 256]);\n", v3, v);
    std::string s = next(), sc = next(), p = next();
    body += fmt::format("  {} = nn.batch_matmul({}, {}, transpose_b=True);\n", s, q3, k3);
    body += fmt::format("  {} = multiply({}, 0.0625f);\n", sc, s);
    body += fmt::format("  {} = nn.softmax({});\n", p, sc);
    std::string pv = next(), pv2 = next(), o = next(), r1 = next(), n1 = next();
    body += fmt::format("  {} = nn.batch_matmul({}, {});\n", pv, p, v3);
    body += fmt::format("  {} = reshape({}, newshape=[128, 256]);\n", pv2, pv);
    body += fmt::format("  {} = nn.dense({}, %wo{}, units=None);\n", o, pv2, b);
    body += fmt::format("  {} = add({}, {});\n", r1, o, x);
    body += fmt::format("  {} = nn.layer_norm({}, %g{}, %be{});\n", n1, r1, b, b);
    std::string h = next(), hr = next(), h2 = next(), r2 = next();
    body += fmt::format("  {} = nn.dense({}, %w1{}, units=None);\n", h, n1, b);
    body += fmt::format("  {} = nn.relu({});\n", hr, h);
    body += fmt::format("  {} = nn.dense({}, %w2{}, units=None);\n", h2, hr, b);
    body += fmt::format("  {} = add({}, {});\n", r2, h2, n1);
    if (b + 1 == blocks) {
      body += fmt::format("  nn.layer_norm({}, %g{}, %be{})\n", r2, b, b);
    } else {
      x = next();
      body += fmt::format("  {} = nn.layer_norm({}, %g{}, %be{});\n", x, r2, b, b);
    }
  }
  return fmt::format("#[version = \"0.0.5\"]\ndef @main({}) {{\n{}}}\n", params, body);
}

std::string Chain(int64_t num_ops) {
  std::string body;
  body.reserve(num_ops * 28);
  body += "  %0 = add(%x, %x);\n";
  for (int64_t i = 1; i + 1 < num_ops; ++i) {
    body += fmt::format("  %{} = add(%{}, %x);\n", i, i - 1);
  }
  body += fmt::format("  add(%{}, %x)\n", std::max<int64_t>(0, num_ops - 2));
  return fmt::format(
      "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(4), float32]) {{\n{}}}\n", body);
}

}  // namespace

std::string GenerateRelay(GraphKind kind, int64_t num_ops) {
  switch (kind) {
    case GraphKind::kResNet: return ResNet(num_ops);
    case GraphKind::kTransformer: return Transformer(num_ops);
    case GraphKind::kChain: return Chain(num_ops);
  }
  return "";
}

}  // namespace carve::bench
