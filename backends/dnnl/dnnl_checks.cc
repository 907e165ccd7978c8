#include "backends/dnnl/dnnl_checks.h"

#include <optional>

#include "ir/expr.h"
#include "ir/type.h"

namespace carve {
namespace {

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

// add_checker(..., "bias_add") on `add`: an nn.conv2d first argument whose
// `channels` (None fails) is the product of the second argument's shape.
bool BiasCheck(const Expr* e) {
  const Call* add = OpCall(e, "add");
  if (add == nullptr || add->args().size() != 2) return false;
  const Call* conv = OpCall(add->args()[0], "nn.conv2d");
  if (conv == nullptr || conv->attrs() == nullptr) return false;
  const AttrValue* channels = conv->attrs()->Find("channels");
  if (channels == nullptr || channels->is_null()) return false;
  std::optional<std::vector<int64_t>> bias = StaticShape(add->args()[1]);
  if (!bias || bias->empty()) return false;  // TVM's reduce fails on a scalar
  int64_t product = 1;
  for (int64_t d : *bias) product *= d;
  return channels->as_int() == product;
}

const Expr* SkipRelu(const Expr* root) {
  const Call* relu = OpCall(root, "nn.relu");
  return relu != nullptr && !relu->args().empty() ? relu->args()[0] : root;
}

// make_bias_add_pattren_predicate: only an `add` root (through nn.relu) is
// checked; GELU, swish, mish, tanh, sigmoid and clip roots pass.
bool BiasAddPredicate(const Expr* root) {
  const Expr* e = SkipRelu(root);
  return OpCall(e, "add") == nullptr || BiasCheck(e);
}

// make_sum_pattren_predicate.
bool SumPredicate(const Expr* root) {
  const Call* sum = OpCall(SkipRelu(root), "add");
  if (sum == nullptr || sum->args().size() != 2) return false;
  if (OpCall(sum->args()[0], "add") == nullptr) return false;
  std::optional<std::vector<int64_t>> lhs = StaticShape(sum->args()[0]);
  std::optional<std::vector<int64_t>> rhs = StaticShape(sum->args()[1]);
  if (!lhs || !rhs || *lhs != *rhs) return false;
  return BiasCheck(sum->args()[0]);
}

}  // namespace

RootCheck DnnlCompositeCheck(std::string_view name) {
  if (name.starts_with("dnnl.")) name.remove_prefix(5);
  if (name == "conv2d_bias_sum" || name == "conv2d_bias_sum_relu") return SumPredicate;
  // TVM attaches the bias predicate to every generated conv / deconv entry.
  bool conv = name.starts_with("conv") || name.starts_with("deconv");
  return conv ? RootCheck(BiasAddPredicate) : RootCheck();
}

}  // namespace carve
