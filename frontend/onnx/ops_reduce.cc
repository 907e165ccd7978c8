// Reductions (TVM v0.16 onnx.py: Reduce and its subclasses, ReduceL1/L2,
// ReduceSumSquare, ReduceLogSum, ReduceLogSumExp, ArgMax / ArgMin).
#include "fmt/format.h"
#include "frontend/onnx/converter.h"

namespace carve::onnx_import {
namespace {

absl::StatusOr<Outputs> One(absl::StatusOr<TValue> v) {
  if (!v.ok()) return v.status();
  return Outputs{*std::move(v)};
}

// The reduced axes: the `axes` attribute, or (ReduceSum from opset 13) the
// second input; all axes when none are given (or the input itself when
// noop_with_empty_axes says so: nullopt).
absl::StatusOr<std::optional<std::vector<int64_t>>> ReduceAxes(NodeCall& c, const TValue& x) {
  std::vector<int64_t> axes;
  bool given = false;
  if (c.HasInput(1)) {
    CARVE_ASSIGN_OR_RETURN(axes, c.StaticInts(1));
    given = !axes.empty();
  } else if (auto a = c.attrs.Ints("axes")) {
    axes = *a;
    given = !axes.empty();
  }
  if (!given) {
    if (c.attrs.Int("noop_with_empty_axes", 0) != 0) return std::optional<std::vector<int64_t>>();
    axes.clear();
    for (int64_t i = 0; i < x.rank(); ++i) axes.push_back(i);
  }
  for (int64_t& a : axes) {
    CARVE_ASSIGN_OR_RETURN(a, NormalizeAxis(a, x.rank()));
  }
  return std::optional<std::vector<int64_t>>(axes);
}

// Scalars are promoted to 1-D first, as TVM does.
absl::StatusOr<TValue> Promote(NodeCall& c) {
  if (c.In(0).rank() > 0) return c.In(0);
  return c.Op("expand_dims", {c.In(0)}, {{"axis", IntAttr(0)}});
}

// reduce_op(pre(x)) then post: the shape of every Reduce* converter.
absl::StatusOr<Outputs> Reduce(NodeCall& c, std::string_view pre, std::string_view op,
                               std::string_view post) {
  CARVE_ASSIGN_OR_RETURN(TValue x, Promote(c));
  CARVE_ASSIGN_OR_RETURN(auto axes, ReduceAxes(c, x));
  if (!axes) return Outputs{x};
  if (pre == "square") {
    CARVE_ASSIGN_OR_RETURN(x, c.Op("multiply", {x, x}));
  } else if (!pre.empty()) {
    CARVE_ASSIGN_OR_RETURN(x, c.Op(pre, {x}));
  }
  bool keep = c.attrs.Int("keepdims", 1) != 0;
  CARVE_ASSIGN_OR_RETURN(TValue r, c.Op(op, {x}, {{"axis", IntsAttr(*axes)},
                                                  {"keepdims", BoolAttr(keep)}}));
  if (post.empty()) return Outputs{r};
  return One(c.Op(post, {r}));
}

absl::StatusOr<Outputs> ConvertReduceMax(NodeCall& c) { return Reduce(c, "", "max", ""); }
absl::StatusOr<Outputs> ConvertReduceMin(NodeCall& c) { return Reduce(c, "", "min", ""); }
absl::StatusOr<Outputs> ConvertReduceSum(NodeCall& c) { return Reduce(c, "", "sum", ""); }
absl::StatusOr<Outputs> ConvertReduceMean(NodeCall& c) { return Reduce(c, "", "mean", ""); }
absl::StatusOr<Outputs> ConvertReduceProd(NodeCall& c) { return Reduce(c, "", "prod", ""); }
absl::StatusOr<Outputs> ConvertReduceL1(NodeCall& c) { return Reduce(c, "abs", "sum", ""); }
absl::StatusOr<Outputs> ConvertReduceL2(NodeCall& c) { return Reduce(c, "square", "sum", "sqrt"); }
absl::StatusOr<Outputs> ConvertReduceSumSquare(NodeCall& c) {
  return Reduce(c, "square", "sum", "");
}
absl::StatusOr<Outputs> ConvertReduceLogSum(NodeCall& c) { return Reduce(c, "", "sum", "log"); }

// log(sum(exp(x - max))) + max, as TVM's logsumexp.
absl::StatusOr<Outputs> ConvertReduceLogSumExp(NodeCall& c) {
  CARVE_ASSIGN_OR_RETURN(TValue x, Promote(c));
  CARVE_ASSIGN_OR_RETURN(auto axes, ReduceAxes(c, x));
  if (!axes) return Outputs{x};
  bool keep = c.attrs.Int("keepdims", 1) != 0;
  CARVE_ASSIGN_OR_RETURN(TValue mx, c.Op("max", {x}, {{"axis", IntsAttr(*axes)},
                                                      {"keepdims", BoolAttr(true)}}));
  CARVE_ASSIGN_OR_RETURN(TValue d, c.Op("subtract", {x, mx}));
  CARVE_ASSIGN_OR_RETURN(TValue e, c.Op("exp", {d}));
  CARVE_ASSIGN_OR_RETURN(TValue s, c.Op("sum", {e}, {{"axis", IntsAttr(*axes)},
                                                     {"keepdims", BoolAttr(keep)}}));
  CARVE_ASSIGN_OR_RETURN(TValue l, c.Op("log", {s}));
  if (!keep) {
    CARVE_ASSIGN_OR_RETURN(mx, c.Op("squeeze", {mx}, {{"axis", IntsAttr(*axes)}}));
  }
  return One(c.Op("add", {l, mx}));
}

absl::StatusOr<Outputs> ArgReduce(NodeCall& c, std::string_view op) {
  const TValue& x = c.In(0);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c.attrs.Int("axis", 0), x.rank()));
  int64_t ax[] = {axis};
  CARVE_ASSIGN_OR_RETURN(
      TValue r, c.Op(op, {x}, {{"axis", IntsAttr(ax)},
                               {"keepdims", BoolAttr(c.attrs.Int("keepdims", 1) != 0)},
                               {"select_last_index",
                                BoolAttr(c.attrs.Int("select_last_index", 0) != 0)}}));
  return One(c.ctx.CastTo(r, DataType::Int(64)));
}
absl::StatusOr<Outputs> ConvertArgMax(NodeCall& c) { return ArgReduce(c, "argmax"); }
absl::StatusOr<Outputs> ConvertArgMin(NodeCall& c) { return ArgReduce(c, "argmin"); }

// TopK -> topk(k, axis, is_ascend = !largest, dtype int64), both outputs.
absl::StatusOr<Outputs> ConvertTopK(NodeCall& c) {
  const TValue& x = c.In(0);
  int64_t k;
  if (c.opset < 10) {
    k = c.attrs.Int("k", 1);
  } else {
    CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> kv, c.StaticInts(1));
    if (kv.size() != 1) return absl::InvalidArgumentError("K must hold one value");
    k = kv[0];
  }
  if (c.attrs.Int("sorted", 1) == 0) return c.Unsupported("sorted=0");
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(c.attrs.Int("axis", -1), x.rank()));
  CARVE_ASSIGN_OR_RETURN(
      TValue both, c.Op("topk", {x}, {{"k", IntAttr(k)}, {"axis", IntAttr(axis)},
                                      {"is_ascend", BoolAttr(c.attrs.Int("largest", 1) == 0)},
                                      {"dtype", StrAttr("int64")}}));
  CARVE_ASSIGN_OR_RETURN(TValue values, c.ctx.GetItem(both, 0));
  CARVE_ASSIGN_OR_RETURN(TValue indices, c.ctx.GetItem(both, 1));
  return Outputs{values, indices};
}

}  // namespace

std::vector<ConverterEntry> ReduceConverters() {
  return {
      {"ReduceMax", ConvertReduceMax},
      {"ReduceMin", ConvertReduceMin},
      {"ReduceSum", ConvertReduceSum},
      {"ReduceMean", ConvertReduceMean},
      {"ReduceProd", ConvertReduceProd},
      {"ReduceL1", ConvertReduceL1},
      {"ReduceL2", ConvertReduceL2},
      {"ReduceSumSquare", ConvertReduceSumSquare},
      {"ReduceLogSum", ConvertReduceLogSum},
      {"ReduceLogSumExp", ConvertReduceLogSumExp},
      {"ArgMax", ConvertArgMax},
      {"ArgMin", ConvertArgMin},
      {"TopK", ConvertTopK},
  };
}

}  // namespace carve::onnx_import
