// The ops other than convolutions that ConvertLayout converts when they are
// in the desired-layouts map: TVM v0.16's convert-op-layout registrations
// that move only a data layout (python/tvm/relay/op/nn/_nn.py
// convert_max_pool2d, convert_avg_pool2d, convert_global_max_pool2d,
// convert_global_avg_pool2d; op/image/_image.py convert_image_resize1d /
// 2d; op/vision/_rcnn.py convert_roi_align / convert_roi_pool).
#include <array>

#include "fmt/format.h"
#include "ir/layout.h"
#include "passes/layout/conv_rules.h"
#include "passes/layout/layout_names.h"
#include "passes/layout/layout_rewriter.h"

namespace carve::layout {
namespace {

struct DataConvertRow {
  std::string_view op;
  bool sets_out_layout;  // the pools: layout and out_layout both become the desired layout
  bool nchw_nhwc_only;   // roi_align / roi_pool: TVM raises for other layouts
};

constexpr std::array<DataConvertRow, 8> kDataConvertRows = {{
    {"nn.max_pool2d", true, false},
    {"nn.avg_pool2d", true, false},
    {"nn.global_max_pool2d", true, false},
    {"nn.global_avg_pool2d", true, false},
    {"image.resize1d", false, false},
    {"image.resize2d", false, false},
    {"vision.roi_align", false, true},
    {"vision.roi_pool", false, true},
}};

const DataConvertRow* FindDataRow(const OpInfo& op) {
  for (const DataConvertRow& row : kDataConvertRows) {
    if (row.op == op.name) return &row;
  }
  return nullptr;
}

}  // namespace

bool ConvertsDataLayout(const OpInfo& op) { return FindDataRow(op) != nullptr; }

absl::Status CheckDataConvertible(const OpInfo& op, std::string_view data_layout,
                                  std::string_view kernel_layout) {
  const DataConvertRow* row = FindDataRow(op);
  if (row == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: '{}' is not an op whose layout ConvertLayout converts", op.name));
  }
  if (kernel_layout != "default") {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: {} takes a data layout only, not a kernel layout ('{}')", op.name,
        kernel_layout));
  }
  std::string own = std::string(DefaultAttrs(op.attrs)->GetString("layout", ""));
  bool known = !row->nchw_nhwc_only || data_layout == "NCHW" || data_layout == "NHWC";
  if (!known || !IsPlainLayout(data_layout, own.size()) ||
      !BijectiveLayout::Make(own, data_layout).ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: data layout '{}' is not supported for {} ({})", data_layout, op.name,
        row->nchw_nhwc_only ? "NCHW or NHWC" : fmt::format("a layout of the axes of {}", own)));
  }
  return absl::OkStatus();
}

// TVM's convert function for a listed pool / resize / roi op: `layout`
// (and a pool's out_layout) become the desired layout; the data input is
// transformed to it from its current layout, the other inputs (rois) are
// read as they are; the result moves from the old layout to the desired
// one (also when they are equal: the attributes are rewritten).
const Expr* LayoutRewriter::ConvertDataLayout(const Call* call) {
  const DataConvertRow* row = FindDataRow(*call->op());
  if (row == nullptr || call->attrs() == nullptr) return nullptr;
  const std::string desired = convert_ops_.at(call->op()).data;
  std::string layout = AttrOrDefault(call, "layout");
  std::string out_layout = row->sets_out_layout ? AttrOrDefault(call, "out_layout") : "";
  size_t rank = RankOf(call->args()[0]);
  if ((!out_layout.empty() && out_layout != layout) || !IsPlainLayout(layout, rank) ||
      !IsPlainLayout(desired, rank) || !BijectiveLayout::Make(layout, desired).ok()) {
    return nullptr;
  }
  const Expr* data = call->args()[0];
  const Alt* alt = FindAlt(data);
  bool follows = alt != nullptr && alt->old_layout == layout;
  const std::string now = follows ? alt->new_layout : layout;
  const Expr* value = follows ? Mutated(data) : Realize(data);
  std::vector<const Expr*> args = {TransformOnce(value, now, desired)};
  AppendRealized(call, 1, args);
  const Attrs* attrs = WithField(call->attrs(), "layout", AttrValue::Str(desired));
  if (row->sets_out_layout) attrs = WithField(attrs, "out_layout", AttrValue::Str(desired));
  return Record(call, Remake(call, std::move(args), attrs, layout, desired), layout, desired);
}

}  // namespace carve::layout
