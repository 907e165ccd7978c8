// DnnlLegalize: dnnl.legalize_group_conv applied to every grouped conv2d /
// conv2d_transpose, as TVM's Legalize does under partition_for_dnnl.
#include "backends/dnnl/dnnl_legalize.h"

#include <algorithm>
#include <span>
#include <string_view>
#include <vector>

#include "passes/rewrite/rewrite_util.h"

namespace carve {
namespace {

// True when `conv` (groups > 1, an OIHW weight of `shape`) is TVM's
// depthwise convolution with a channel multiplier M = weight I > 1:
// groups == data C == weight O (Conv2DRel's depthwise rule).
bool IsDepthwiseMultiplierWeight(const Call* conv, int64_t groups, std::span<const Dim> shape) {
  const auto* data = DynCast<TensorType>(conv->args()[0]->checked_type());
  std::string_view layout = conv->attrs()->GetString("data_layout", "NCHW");
  size_t c = layout.find('C');
  if (data == nullptr || layout.find('c') != std::string_view::npos || c >= data->rank()) {
    return false;
  }
  const Dim& channels = data->shape()[c];
  return !channels.is_any() && channels.value == groups && shape[0].value == groups &&
         shape[1].value > 1;
}

class GroupConvLegalizer : public TypedMutator {
 public:
  using TypedMutator::TypedMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = RebuildTyped(e);
    bool conv = IsOpCall(post, "nn.conv2d");
    if (!conv && !IsOpCall(post, "nn.conv2d_transpose")) return post;
    const Call* call = Cast<Call>(post);
    int64_t groups = call->attrs()->GetInt("groups", 1);
    if (groups <= 1 || call->args().size() != 2) return post;
    // dnnl.py reshapes the weight as if it were OIHW (IOHW for a transposed
    // conv) whatever its kernel_layout says: a grouped HWIO or OHWI weight
    // then fails to reshape, or (when I == H == W) silently computes
    // something else. Only the layout it assumes is legalized; others stay
    // as they are (docs/tvm-deviations.md).
    if (call->attrs()->GetString("kernel_layout", conv ? "OIHW" : "IOHW") !=
        (conv ? "OIHW" : "IOHW")) {
      return post;
    }
    // dnnl.py reads the weight's shape from its (pre-rewrite) type.
    const auto* weight_type = DynCast<TensorType>(Cast<Call>(e)->args()[1]->checked_type());
    if (weight_type == nullptr || weight_type->rank() != 4 || !weight_type->is_static()) {
      return post;
    }
    auto shape = weight_type->shape();
    // Python's floor division of two non-negative dims.
    std::vector<AttrValue> newshape = {
        AttrValue::Int(groups), AttrValue::Int(shape[0].value / groups),
        AttrValue::Int(shape[1].value), AttrValue::Int(shape[2].value),
        AttrValue::Int(shape[3].value)};
    if (conv && IsDepthwiseMultiplierWeight(Cast<Call>(e), groups, shape)) {
      // TVM's depthwise weight (C, M, kh, kw) holds output channel c * M + m
      // at (c, m): as GOIHW it is (C, M, 1, kh, kw). dnnl.py's reshape to
      // (C, 1, M, kh, kw) types in no conv (docs/tvm-deviations.md).
      newshape[1] = AttrValue::Int(shape[1].value);
      newshape[2] = AttrValue::Int(1);
    }
    const Attrs* reshape_attrs =
        WithField(DefaultAttrs(FindOp("reshape")->attrs), "newshape", AttrValue::Array(newshape));
    // A 0 here is an empty axis, not "copy the input dim" (cf. F-4).
    if (std::any_of(shape.begin(), shape.end(), [](const Dim& d) { return d.value == 0; })) {
      reshape_attrs = WithField(reshape_attrs, "allowzero", AttrValue::Bool(true));
    }
    const Expr* weight = builder().MakeCall(GetOp("reshape"), {call->args()[1]}, reshape_attrs);
    const Attrs* attrs =
        WithField(call->attrs(), "kernel_layout", AttrValue::Str(conv ? "GOIHW" : "GIOHW"));
    return builder().MakeCall(call->callee(), {call->args()[0], weight}, attrs, call->span());
  }
};

}  // namespace

absl::StatusOr<const Function*> DnnlLegalizeFunction(const Function* fn, Arena* arena) {
  GroupConvLegalizer legalizer(arena);
  return Cast<Function>(legalizer.Mutate(fn));
}

PassPtr DnnlLegalize() {
  return MakeFunctionPass(
      "DnnlLegalize", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return DnnlLegalizeFunction(fn, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
