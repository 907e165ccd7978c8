#include "backends/dnnl/dnnl_checks.h"

#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "ir/expr.h"
#include "ir/type.h"

namespace carve {
namespace {

// Each check returns why it rejects the root ("" when it accepts), with the
// values it saw.

const Call* OpCall(const Expr* e, std::string_view op) {
  return IsOpCall(e, op) ? Cast<Call>(e) : nullptr;
}

// The static shape of `e`'s tensor type, or nullopt.
std::optional<std::vector<int64_t>> StaticShape(const Expr* e) {
  const TensorType* t = e != nullptr ? DynCast<TensorType>(e->checked_type()) : nullptr;
  if (t == nullptr) return std::nullopt;
  std::vector<int64_t> dims;
  for (const Dim& d : t->shape()) {
    if (d.is_any()) return std::nullopt;
    dims.push_back(d.value);
  }
  return dims;
}

std::string TypeOf(const Expr* e) { return TypeToString(e->checked_type()); }

// add_checker(..., "bias_add") on `add`: an nn.conv2d first argument whose
// `channels` (None fails) is the product of the second argument's shape.
std::string BiasRefusal(const Expr* e) {
  const Call* add = OpCall(e, "add");
  if (add == nullptr || add->args().size() != 2) return "the bias is not an add";
  const Call* conv = OpCall(add->args()[0], "nn.conv2d");
  if (conv == nullptr || conv->attrs() == nullptr) {
    return "the bias add's first argument is not an nn.conv2d";
  }
  const AttrValue* channels = conv->attrs()->Find("channels");
  if (channels == nullptr || channels->is_null()) {
    return "the conv2d's channels attribute is not set (the bias check compares it with the "
           "bias's size)";
  }
  std::optional<std::vector<int64_t>> bias = StaticShape(add->args()[1]);
  if (!bias) return fmt::format("the bias's shape is not static ({})", TypeOf(add->args()[1]));
  if (bias->empty()) return "the bias is a scalar";  // TVM's reduce fails on it
  int64_t product = 1;
  for (int64_t d : *bias) product *= d;
  if (channels->as_int() == product) return "";
  return fmt::format("the bias {} has {} element{}, the conv2d {} channels",
                     TypeOf(add->args()[1]), product, product == 1 ? "" : "s",
                     channels->as_int());
}

const Expr* SkipRelu(const Expr* root) {
  const Call* relu = OpCall(root, "nn.relu");
  return relu != nullptr && !relu->args().empty() ? relu->args()[0] : root;
}

// make_bias_add_pattren_predicate: only an `add` root (through nn.relu) is
// checked; GELU, swish, mish, tanh, sigmoid and clip roots pass.
std::string BiasAddRefusal(const Expr* root) {
  const Expr* e = SkipRelu(root);
  return OpCall(e, "add") == nullptr ? "" : BiasRefusal(e);
}

// make_sum_pattren_predicate.
std::string SumRefusal(const Expr* root) {
  const Call* sum = OpCall(SkipRelu(root), "add");
  if (sum == nullptr || sum->args().size() != 2) return "the sum is not an add";
  if (OpCall(sum->args()[0], "add") == nullptr) {
    return "the sum's first argument is not the bias add";
  }
  std::optional<std::vector<int64_t>> lhs = StaticShape(sum->args()[0]);
  std::optional<std::vector<int64_t>> rhs = StaticShape(sum->args()[1]);
  if (!lhs || !rhs || *lhs != *rhs) {
    return fmt::format("the sum's operands differ in shape ({} and {})", TypeOf(sum->args()[0]),
                       TypeOf(sum->args()[1]));
  }
  return BiasRefusal(sum->args()[0]);
}

}  // namespace

RootRefusal DnnlCompositeCheck(std::string_view name) {
  if (name.starts_with("dnnl.")) name.remove_prefix(5);
  if (name == "conv2d_bias_sum" || name == "conv2d_bias_sum_relu") return SumRefusal;
  // TVM attaches the bias predicate to every generated conv / deconv entry.
  bool conv = name.starts_with("conv") || name.starts_with("deconv");
  return conv ? RootRefusal(BiasAddRefusal) : RootRefusal();
}

}  // namespace carve
