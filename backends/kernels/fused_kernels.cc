#include "backends/kernels/fused_kernels.h"

#include <cmath>
#include <optional>

#include "backends/json/attr_codec.h"
#include "backends/kernels/epilogue.h"
#include "backends/kernels/fusion.h"
#include "backends/kernels/quant_epilogue.h"
#include "backends/kernels/ref_op.h"
#include "fmt/format.h"
#include "ir/op_rules.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// TVM's get_pad_tuple for `spatial` axes: 1 value (all sides), `spatial`
// values (before = after) or 2 * spatial values (befores, then afters).
std::optional<std::vector<int64_t>> NormalizePadding(const std::vector<int64_t>& p, size_t spatial) {
  if (p.size() == 2 * spatial) return p;
  std::vector<int64_t> out(2 * spatial);
  if (p.size() == 1 || p.size() == spatial) {
    for (size_t i = 0; i < spatial; ++i) out[i] = out[i + spatial] = p[p.size() == 1 ? 0 : i];
    return out;
  }
  return std::nullopt;
}

// The conv attributes with `pad_width` (of the data, in `layout`) added to
// their padding, or nullopt when the pad touches the batch or channel axes.
std::optional<const Attrs*> FoldPad(const Attrs* conv, std::string_view layout,
                                    const std::vector<int64_t>& pad_width) {
  std::optional<std::vector<int64_t>> padding = conv->GetInts("padding");
  if (!padding) return std::nullopt;
  std::vector<size_t> spatial_axes;
  for (size_t i = 0; i < layout.size(); ++i) {
    char c = layout[i];
    if (c == 'D' || c == 'H' || c == 'W') {
      spatial_axes.push_back(i);
    } else if (2 * i + 1 < pad_width.size() && (pad_width[2 * i] != 0 || pad_width[2 * i + 1] != 0)) {
      return std::nullopt;
    }
  }
  if (pad_width.size() != 2 * layout.size()) return std::nullopt;
  std::optional<std::vector<int64_t>> pads = NormalizePadding(*padding, spatial_axes.size());
  if (!pads) return std::nullopt;
  size_t n = spatial_axes.size();
  for (size_t k = 0; k < n; ++k) {
    (*pads)[k] += pad_width[2 * spatial_axes[k]];
    (*pads)[k + n] += pad_width[2 * spatial_axes[k] + 1];
  }
  std::vector<AttrValue> items;
  for (int64_t v : *pads) items.push_back(AttrValue::Int(v));
  return WithField(conv, "padding", AttrValue::Array(items));
}

// True when a tensor of `bias` shape, broadcast against an output of `rank`,
// varies only along `axis` (right-aligned numpy broadcasting).
bool BroadcastsAlongAxis(const std::vector<int64_t>& bias, size_t rank, int64_t axis) {
  if (bias.size() > rank) return false;
  size_t offset = rank - bias.size();
  for (size_t i = 0; i < bias.size(); ++i) {
    if (int64_t(i + offset) != axis && bias[i] != 1) return false;
  }
  return true;
}

bool IsZero(const NDArray& t) {
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (t.GetAsDouble(i) != 0) return false;
  }
  return t.defined();
}

class FusedKernel : public NodeKernel {
 public:
  static absl::StatusOr<std::unique_ptr<NodeKernel>> Build(const NodeBuildContext& ctx,
                                                           FusedKernelOptions options) {
    auto k = std::unique_ptr<FusedKernel>(new FusedKernel());
    CARVE_ASSIGN_OR_RETURN(k->spec_, DecodeFusion(ctx.node()));
    k->quant_.rounding = options.rounding;
    CARVE_RETURN_IF_ERROR(k->Prepare(ctx));
    return std::unique_ptr<NodeKernel>(std::move(k));
  }

  absl::StatusOr<std::vector<NDArray>> Run(std::span<const NDArray> inputs) override {
    NDArray data = inputs[spec_.data];
    if (pad_) {
      NDArray args[] = {data, inputs[*spec_.pad_value]};
      CARVE_ASSIGN_OR_RETURN(data, pad_->RunOne(args));
    }
    std::vector<NDArray> args{data};
    if (spec_.weight) args.push_back(inputs[*spec_.weight]);
    for (size_t i : spec_.anchor_extra) args.push_back(inputs[i]);
    CARVE_ASSIGN_OR_RETURN(NDArray out, anchor_.RunOne(args));
    if (quantized_) {
      CARVE_ASSIGN_OR_RETURN(out, quant_.Apply(out, inputs, out_dtype_));
      return std::vector<NDArray>{out};
    }
    CARVE_RETURN_IF_ERROR(ApplyTail(out, inputs));
    return std::vector<NDArray>{out};
  }

 private:
  absl::Status Prepare(const NodeBuildContext& ctx) {
    const JsonNode& node = ctx.node();
    out_dtype_ = node.dtypes[0];
    CARVE_ASSIGN_OR_RETURN(const Attrs* anchor_attrs, DecodeOpAttrs(FindOp(spec_.anchor), node));
    const Type* data_type = TensorTypeOf(ctx.InputDType(spec_.data), ctx.InputShape(spec_.data));
    if (spec_.pad_value) {
      CARVE_ASSIGN_OR_RETURN(data_type, PreparePad(ctx, anchor_attrs, data_type));
    }
    std::vector<const Type*> arg_types{data_type};
    if (spec_.weight) arg_types.push_back(InputType(ctx, *spec_.weight));
    for (size_t i : spec_.anchor_extra) arg_types.push_back(InputType(ctx, i));
    CARVE_ASSIGN_OR_RETURN(anchor_, RefOp::Make(spec_.anchor, anchor_attrs, arg_types, ctx.device));
    const TensorType* acc = DynCast<TensorType>(anchor_.out_type());
    if (acc == nullptr) return absl::InvalidArgumentError("the anchor must have one output");
    device_ = ctx.device;
    CARVE_ASSIGN_OR_RETURN(int64_t axis, OutputChannelAxis(node, spec_));
    quantized_ = !spec_.requantize.empty();
    if (quantized_) return quant_.Prepare(spec_, node, axis);
    return PrepareTail(ctx, acc, axis);
  }

  static const Type* InputType(const NodeBuildContext& ctx, size_t i) {
    return TensorTypeOf(ctx.InputDType(i), ctx.InputShape(i));
  }

  // nn.pad before the anchor: folded into a conv's padding when it pads the
  // spatial axes with the value padding already means (0, or the data zero
  // point of a qnn conv), else run as its own op. Returns the anchor's data
  // type.
  absl::StatusOr<const Type*> PreparePad(const NodeBuildContext& ctx, const Attrs*& anchor_attrs,
                                         const Type* data_type) {
    const JsonNode& node = ctx.node();
    const std::string& pad_op = spec_.pad_op;
    CARVE_ASSIGN_OR_RETURN(const Attrs* pad_attrs,
                           DecodeOpAttrs(FindOp(pad_op), node, fmt::format("{}.", pad_op)));
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> width,
                           NodeInts(node, fmt::format("{}.pad_width", pad_op)));
    const NDArray& value = ctx.const_inputs[*spec_.pad_value];
    const NDArray* expected_value = nullptr;
    NDArray zero;
    if (const OpInfo* anchor = FindOp(spec_.anchor); anchor != nullptr && IsQnnOp(*anchor)) {
      expected_value = &ctx.const_inputs[spec_.anchor_extra.at(0)];  // input zero point
    }
    bool value_ok = value.defined() && value.num_elements() == 1 &&
                    (expected_value == nullptr ? IsZero(value)
                                               : expected_value->defined() &&
                                                     expected_value->num_elements() == 1 &&
                                                     value.GetAsDouble(0) ==
                                                         expected_value->GetAsDouble(0));
    std::string_view layout = anchor_attrs->GetString("data_layout");
    if (value_ok && pad_attrs->GetString("pad_mode") == "constant" && !layout.empty()) {
      if (std::optional<const Attrs*> folded = FoldPad(anchor_attrs, layout, width)) {
        anchor_attrs = *folded;
        return data_type;
      }
    }
    const Type* pad_args[] = {data_type, InputType(ctx, *spec_.pad_value)};
    CARVE_ASSIGN_OR_RETURN(RefOp pad, RefOp::Make(pad_op, pad_attrs, pad_args, ctx.device));
    pad_ = pad;
    return pad_->out_type();
  }

  // Bias and sum go into the one-pass epilogue when they broadcast along the
  // channel axis only (bias) or match the output (sum); otherwise they run
  // as reference ops before the activation pass.
  absl::Status PrepareTail(const NodeBuildContext& ctx, const TensorType* acc, int64_t axis) {
    const JsonNode& node = ctx.node();
    std::vector<int64_t> out_shape = ShapeOf(acc);
    epilogue_.channel_axis = axis;
    epilogue_.activation = spec_.activation.kind;
    epilogue_.lo = spec_.activation.lo;
    epilogue_.hi = spec_.activation.hi;
    if (spec_.bias) {
      std::vector<int64_t> bias_shape = ctx.InputShape(*spec_.bias);
      bool along = BroadcastsAlongAxis(bias_shape, out_shape.size(), axis);
      if (BiasAlongAxisAttr(spec_)) {
        int64_t bias_axis = NodeInt(node, fmt::format("{}.axis", spec_.bias_op)).value_or(1);
        if (bias_axis < 0) bias_axis += int64_t(out_shape.size());
        along = bias_axis == axis && bias_shape.size() == 1;
      }
      fast_bias_ = along && ctx.InputDType(*spec_.bias) == acc->dtype();
      if (!fast_bias_) {
        const Type* types[] = {acc, InputType(ctx, *spec_.bias)};
        const Attrs* attrs = nullptr;
        if (BiasAlongAxisAttr(spec_)) {
          CARVE_ASSIGN_OR_RETURN(attrs, DecodeOpAttrs(FindOp(spec_.bias_op), node,
                                                      fmt::format("{}.", spec_.bias_op)));
        }
        CARVE_ASSIGN_OR_RETURN(RefOp op, RefOp::Make(spec_.bias_op, attrs, types, ctx.device));
        bias_op_ = op;
      }
    }
    if (spec_.sum) {
      fast_sum_ = ctx.InputShape(*spec_.sum) == out_shape && ctx.InputDType(*spec_.sum) == acc->dtype();
      if (!fast_sum_) {
        const Type* types[] = {acc, InputType(ctx, *spec_.sum)};
        CARVE_ASSIGN_OR_RETURN(RefOp op, RefOp::Make("add", nullptr, types, ctx.device));
        sum_op_ = op;
      }
    }
    if (!CanApplyEpilogue(epilogue_, out_shape, acc->dtype())) {
      return absl::UnimplementedError(fmt::format(
          "fused kernels compute float32 or float64, not {}", acc->dtype().ToString()));
    }
    return absl::OkStatus();
  }

  absl::Status ApplyTail(NDArray& out, std::span<const NDArray> inputs) {
    Epilogue e = epilogue_;
    CARVE_RETURN_IF_ERROR(ReadActivationScalars(spec_.activation, inputs, e));
    if (spec_.bias) {
      if (fast_bias_) {
        e.bias = inputs[*spec_.bias];
      } else {
        NDArray args[] = {out, inputs[*spec_.bias]};
        CARVE_ASSIGN_OR_RETURN(out, bias_op_->RunOne(args));
      }
    }
    if (spec_.sum) {
      if (fast_sum_) {
        e.sum = inputs[*spec_.sum];
      } else {
        NDArray args[] = {out, inputs[*spec_.sum]};
        CARVE_ASSIGN_OR_RETURN(out, sum_op_->RunOne(args));
      }
    }
    return ApplyEpilogue(e, out, device_);
  }

  FusionSpec spec_;
  std::optional<RefOp> pad_;
  RefOp anchor_;
  std::optional<RefOp> bias_op_, sum_op_;
  bool fast_bias_ = false, fast_sum_ = false, quantized_ = false;
  Epilogue epilogue_;
  QuantEpilogue quant_;
  DataType out_dtype_;
  const Eigen::ThreadPoolDevice* device_ = nullptr;
};

}  // namespace

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeFusedKernel(const NodeBuildContext& ctx,
                                                            FusedKernelOptions options) {
  return FusedKernel::Build(ctx, options);
}

}  // namespace carve
