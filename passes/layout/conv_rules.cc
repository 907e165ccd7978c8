#include "passes/layout/conv_rules.h"

#include <array>
#include <optional>

#include "fmt/format.h"
#include "ir/layout.h"
#include "passes/layout/layout_names.h"
#include "passes/layout/layout_rewriter.h"

namespace carve::layout {
namespace {

// One row per TVM convert-op-layout function: its op and the kernel layout
// "default" stands for in the channels-first and the channels-last data
// layout (the op's default data layout is its channels-first one).
struct ConvertRow {
  std::string_view op;
  std::string_view channels_last;         // the channels-last data layout
  std::string_view kernel_first;          // default kernel, channels-first data
  std::string_view kernel_last;           // default kernel, channels-last data
  std::string_view depthwise_kernel_last; // depthwise conv2d, channels-last ("": kernel_last)
  std::string_view other_data = "";       // one more data layout with a default kernel
  std::string_view other_kernel = "";     // (convert_conv2d: HWNC -> HWOI)
  bool skippable = false;                 // counts for skip_layers (TVM's LayoutConfig)
  // nn.deformable_conv2d: its second argument is the offset, read in the
  // data layout (TVM's DeformableConvInferCorrectLayout), and the weight is
  // the third.
  bool offset = false;
  // convert_conv2d: a desired NCHW<n>c makes nn.contrib_conv2d_NCHWc.
  bool blocked = false;
};

constexpr std::array<ConvertRow, 7> kConvertRows = {{
    {"nn.conv2d", "NHWC", "OIHW", "HWIO", "HWOI", "HWNC", "HWOI", true, false, true},
    {"qnn.conv2d", "NHWC", "OIHW", "HWIO", "HWOI"},
    {"nn.conv2d_transpose", "NHWC", "IOHW", "HWIO", ""},
    {"qnn.conv2d_transpose", "NHWC", "IOHW", "HWIO", ""},
    {"nn.conv3d", "NDHWC", "OIDHW", "DHWIO", ""},
    {"nn.conv3d_transpose", "NDHWC", "IODHW", "DHWOI", ""},
    {"nn.deformable_conv2d", "NHWC", "OIHW", "HWIO", "", "", "", false, true},
}};

const ConvertRow* FindRow(const OpInfo& op) {
  for (const ConvertRow& row : kConvertRows) {
    if (row.op == op.name) return &row;
  }
  return nullptr;
}

std::string DefaultOf(const OpInfo& op, std::string_view field) {
  return std::string(DefaultAttrs(op.attrs)->GetString(field, ""));
}

// A data layout with a split axis: TVM v0.16's convert_conv2d turns
// nn.conv2d into nn.contrib_conv2d_NCHWc for NCHW<n>c (with a kernel layout
// it asserts is given); the other convert functions build their own op in
// that layout, which neither TVM's kernels nor carve's take.
absl::Status CheckBlocked(const OpInfo& op, std::string_view data_layout,
                          std::string_view kernel_layout) {
  std::optional<int64_t> block = NchwcBlock(data_layout);
  if (!FindRow(op)->blocked || !block.has_value() || *block < 1) {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: data layout '{}' of {} has a split axis; the one blocked conversion "
        "is nn.conv2d to NCHW<n>c (nn.contrib_conv2d_NCHWc, as in TVM)",
        data_layout, op.name));
  }
  if (kernel_layout == "default") {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: data layout '{}' of {} needs a kernel layout (e.g. OIHW{}i{}o), not "
        "'default'",
        data_layout, op.name, *block, *block));
  }
  std::string own_kernel = DefaultOf(op, "kernel_layout");
  absl::StatusOr<Layout> kernel = Layout::Parse(kernel_layout);
  if (!kernel.ok() || !BijectiveLayout::Make(own_kernel, kernel_layout).ok()) {
    return absl::InvalidArgumentError(
        fmt::format("ConvertLayout: kernel layout '{}' is not a layout of the axes of {} ({})",
                    kernel_layout, own_kernel, op.name));
  }
  return absl::OkStatus();
}

// A tensor of `type` in layout `src` moves to `dst` and back unchanged:
// every block of dst divides its axis.
bool Divides(std::string_view src, std::string_view dst, const Type* type) {
  const auto* tensor = DynCast<TensorType>(type);
  absl::StatusOr<BijectiveLayout> map = BijectiveLayout::Make(src, dst);
  if (tensor == nullptr || !map.ok()) return false;
  absl::StatusOr<std::vector<Dim>> there = map->ForwardShape(tensor->shape());
  if (!there.ok()) return false;
  absl::StatusOr<std::vector<Dim>> back = map->BackwardShape(*there);
  if (!back.ok() || back->size() != tensor->rank()) return false;
  for (size_t i = 0; i < back->size(); ++i) {
    if ((*back)[i].value != tensor->shape()[i].value) return false;
  }
  return true;
}

}  // namespace

std::string DefaultKernelLayout(const OpInfo& op, std::string_view data_layout, bool depthwise) {
  const ConvertRow* row = FindRow(op);
  if (row == nullptr) return "";
  if (data_layout == DefaultOf(op, "data_layout")) return std::string(row->kernel_first);
  if (!row->other_data.empty() && data_layout == row->other_data) {
    return std::string(row->other_kernel);
  }
  if (data_layout != row->channels_last) return "";
  if (depthwise && !row->depthwise_kernel_last.empty()) {
    return std::string(row->depthwise_kernel_last);
  }
  return std::string(row->kernel_last);
}

absl::Status CheckConvertible(const OpInfo& op, std::string_view data_layout,
                              std::string_view kernel_layout) {
  if (FindRow(op) == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: '{}' is not an op whose layout ConvertLayout converts", op.name));
  }
  std::string own_data = DefaultOf(op, "data_layout");
  if (IsBlocked(data_layout)) return CheckBlocked(op, data_layout, kernel_layout);
  if (!IsPlainLayout(data_layout, own_data.size()) ||
      !BijectiveLayout::Make(own_data, data_layout).ok() ||
      (kernel_layout == "default" && DefaultKernelLayout(op, data_layout, false).empty())) {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: data layout '{}' is not supported for {} (with kernel_layout=default: "
        "{} or {}{}{})",
        data_layout, op.name, own_data, FindRow(op)->channels_last,
        FindRow(op)->other_data.empty() ? "" : " or ", FindRow(op)->other_data));
  }
  std::string own_kernel = DefaultOf(op, "kernel_layout");
  // A blocked kernel layout (OHWI32o) with a plain data layout: TVM's
  // convert_conv2d writes it into the nn.conv2d as given, which carve's
  // conv2d kernel runs; the other convolutions' kernels take plain ones.
  bool blocked_kernel = FindRow(op)->blocked && IsBlocked(kernel_layout) &&
                        BijectiveLayout::Make(own_kernel, kernel_layout).ok();
  if (kernel_layout != "default" && !blocked_kernel &&
      (!IsPlainLayout(kernel_layout, own_kernel.size()) ||
       !BijectiveLayout::Make(own_kernel, kernel_layout).ok())) {
    return absl::InvalidArgumentError(
        fmt::format("ConvertLayout: kernel layout '{}' is not a {}-d layout of the axes of {} ({})",
                    kernel_layout, own_kernel.size(), own_kernel, op.name));
  }
  return absl::OkStatus();
}

bool HasConvertFunction(const OpInfo& op) {
  return FindRow(op) != nullptr || ConvertsDataLayout(op);
}

bool CountsForSkipLayers(const OpInfo& op) {
  const ConvertRow* row = FindRow(op);
  return row != nullptr && row->skippable;
}

// TVM's convert function for a listed convolution: the data and kernel move
// to the desired layouts (an explicit out_layout stays). A convolution not
// listed is TVM's ConvInferCorrectLayout: it reads its inputs in its own
// layout (the caller transforms an alternated input back).
const Expr* LayoutRewriter::ConvertConv(const Call* call) {
  auto target = convert_ops_.find(call->op());
  if (call->attrs() == nullptr || target == convert_ops_.end()) return nullptr;
  const Target& desired = target->second;
  // TVM's LayoutConfig: convert_conv2d counts its calls and leaves the
  // listed ones as they are.
  if (FindRow(*call->op())->skippable && skip_layers_.contains(skip_counter_++)) return nullptr;
  const OpInfo& op = *call->op();
  std::string layout = AttrOrDefault(call, "data_layout");
  std::string kernel = AttrOrDefault(call, "kernel_layout");
  std::string out_layout = AttrOrDefault(call, "out_layout");
  size_t rank = RankOf(call->args()[0]);
  if (!IsPlainLayout(layout, rank) || (!out_layout.empty() && !IsPlainLayout(out_layout, rank))) {
    return nullptr;
  }
  const bool offset = FindRow(op)->offset;
  const size_t weight_index = offset ? 2 : 1;
  bool depthwise = !offset && Depthwise(call);
  if (IsBlocked(desired.data)) return ConvertConvBlocked(call, desired);
  std::string want_kernel = desired.kernel;
  if (!desired.depthwise_kernel.empty() && depthwise) want_kernel = desired.depthwise_kernel;
  if (want_kernel == "default") want_kernel = DefaultKernelLayout(op, desired.data, depthwise);
  if (want_kernel.empty() || !BijectiveLayout::Make(kernel, want_kernel).ok()) return nullptr;
  // As for a blocked data layout (ConvertConvBlocked): a block that does
  // not divide its kernel axis would drop weights.
  if (IsBlocked(want_kernel) && !Divides(kernel, want_kernel, call->args()[1]->checked_type())) {
    return nullptr;
  }
  const Expr* data = call->args()[0];
  const Expr* weight = call->args()[weight_index];
  const Alt* data_alt = FindAlt(data);
  const Alt* weight_alt = FindAlt(weight);
  const Alt* offset_alt = offset ? FindAlt(call->args()[1]) : nullptr;
  std::string offset_now = offset_alt != nullptr ? offset_alt->new_layout : layout;
  if (offset && !BijectiveLayout::Make(offset_now, desired.data).ok()) return nullptr;
  std::string data_now = data_alt != nullptr ? data_alt->new_layout : layout;
  std::string weight_now = weight_alt != nullptr ? weight_alt->new_layout : kernel;
  if (!BijectiveLayout::Make(data_now, desired.data).ok() ||
      !BijectiveLayout::Make(weight_now, want_kernel).ok()) {
    return nullptr;
  }
  if (data_alt == nullptr && weight_alt == nullptr && offset_alt == nullptr &&
      layout == desired.data && kernel == want_kernel) {
    return nullptr;  // already converted: rebuilt as is
  }
  std::vector<const Expr*> args = {TransformOnce(Mutated(data), data_now, desired.data)};
  if (offset) {
    args.push_back(TransformOnce(Mutated(call->args()[1]), offset_now, desired.data));
  }
  args.push_back(TransformOnce(Mutated(weight), weight_now, want_kernel));
  AppendRealized(call, weight_index + 1, args);
  const Attrs* attrs = WithField(call->attrs(), "data_layout", AttrValue::Str(desired.data));
  attrs = WithField(attrs, "kernel_layout", AttrValue::Str(want_kernel));
  std::string old_out = out_layout.empty() ? layout : out_layout;
  std::string new_out = out_layout.empty() ? desired.data : out_layout;
  return Record(call, Remake(call, std::move(args), attrs, old_out, new_out), old_out, new_out);
}

// TVM's convert_conv2d for a desired NCHW<n>c: nn.contrib_conv2d_NCHWc in
// that data layout and the given kernel layout (out_layout as it was),
// except when the data is a parameter whose dimension 1 the block does not
// divide: then the conv2d stays as written (TVM rebuilds it with its own
// attributes) and its inputs are read in its layouts.
const Expr* LayoutRewriter::ConvertConvBlocked(const Call* call, const Target& desired) {
  std::string layout = AttrOrDefault(call, "data_layout");
  std::string kernel = AttrOrDefault(call, "kernel_layout");
  std::string out_layout = AttrOrDefault(call, "out_layout");
  const Expr* data = call->args()[0];
  const Expr* weight = call->args()[1];
  const auto* data_type = DynCast<TensorType>(Mutated(data)->checked_type());
  int64_t block = NchwcBlock(desired.data).value_or(1);
  if (Isa<Var>(Mutated(data)) && data_type != nullptr && data_type->rank() > 1 &&
      data_type->shape()[1].value % block != 0) {
    return nullptr;
  }
  const Alt* data_alt = FindAlt(data);
  const Alt* weight_alt = FindAlt(weight);
  std::string data_now = data_alt != nullptr ? data_alt->new_layout : layout;
  std::string weight_now = weight_alt != nullptr ? weight_alt->new_layout : kernel;
  std::string old_out = out_layout.empty() ? layout : out_layout;
  std::string new_out = out_layout.empty() ? desired.data : out_layout;
  // Where a block does not divide an axis (6 output channels in NCHW4c),
  // TVM's module computes a shape that drops channels; the conv2d stays.
  if (!BijectiveLayout::Make(data_now, desired.data).ok() ||
      !BijectiveLayout::Make(weight_now, desired.kernel).ok() ||
      !Divides(layout, desired.data, data->checked_type()) ||
      !Divides(kernel, desired.kernel, weight->checked_type()) ||
      !Divides(old_out, new_out, call->checked_type())) {
    return nullptr;
  }
  std::vector<const Expr*> args = {TransformOnce(Mutated(data), data_now, desired.data),
                                   TransformOnce(Mutated(weight), weight_now, desired.kernel)};
  AppendRealized(call, 2, args);
  const Attrs* attrs = WithField(call->attrs(), "data_layout", AttrValue::Str(desired.data));
  attrs = WithField(attrs, "kernel_layout", AttrValue::Str(desired.kernel));
  const Call* out =
      builder().MakeCall(GetOp("nn.contrib_conv2d_NCHWc"), args, attrs, call->span());
  if (const auto* type = DynCast<TensorType>(call->checked_type())) {
    absl::StatusOr<BijectiveLayout> map = BijectiveLayout::Make(old_out, new_out);
    absl::StatusOr<std::vector<Dim>> shape =
        map.ok() ? map->ForwardShape(type->shape()) : absl::StatusOr<std::vector<Dim>>(map.status());
    if (shape.ok()) out->set_checked_type(TensorTy(type->dtype(), *shape));
  }
  return Record(call, out, old_out, new_out);
}

// TVM's is_depthwise_conv2d: groups == input channels == output channels
// (of a 4-d convolution; the others have no depthwise default).
bool LayoutRewriter::Depthwise(const Call* call) const {
  int64_t groups = call->attrs()->GetInt("groups", 1);
  const auto* data = DynCast<TensorType>(call->args()[0]->checked_type());
  const auto* weight = DynCast<TensorType>(call->args()[1]->checked_type());
  if (data == nullptr || weight == nullptr || data->rank() != 4 || weight->rank() != 4) {
    return false;
  }
  std::string layout = AttrOrDefault(call, "data_layout");
  std::string kernel = AttrOrDefault(call, "kernel_layout");
  size_t c = layout.find('C');
  size_t o = kernel.find('O');
  if (c == std::string::npos || o == std::string::npos) return false;
  return data->shape()[c].value == groups && weight->shape()[o].value == groups;
}

}  // namespace carve::layout
