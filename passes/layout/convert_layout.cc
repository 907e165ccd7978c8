#include "passes/layout/convert_layout.h"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

#include "fmt/format.h"
#include "ir/layout.h"
#include "ir/op_rules.h"
#include "passes/rewrite/rewrite_util.h"
#include "passes/simplify/cleanup_passes.h"
#include "patterns/rebuild.h"
#include "support/status_macros.h"

namespace carve {
namespace {

const Attrs* TransformAttrs(std::string_view src, std::string_view dst) {
  const Attrs* attrs = DefaultAttrs(FindOp("layout_transform")->attrs);
  attrs = WithField(attrs, "src_layout", AttrValue::Str(src));
  return WithField(attrs, "dst_layout", AttrValue::Str(dst));
}

// layout_transform(e, src -> dst), typed when e's shape maps.
const Expr* Transform(IRBuilder& b, const Expr* e, std::string_view src, std::string_view dst) {
  const Call* call = b.MakeCall(GetOp("layout_transform"), {e}, TransformAttrs(src, dst));
  const auto* type = DynCast<TensorType>(e->checked_type());
  absl::StatusOr<BijectiveLayout> map = BijectiveLayout::Make(src, dst);
  if (type != nullptr && map.ok()) {
    absl::StatusOr<std::vector<Dim>> shape = map->ForwardShape(type->shape());
    if (shape.ok()) call->set_checked_type(TensorTy(type->dtype(), *shape));
  }
  return call;
}

// TVM's default kernel layout for a desired data layout (convert_conv2d):
// OIHW for NCHW; HWIO for NHWC, HWOI for a depthwise convolution.
std::string DefaultKernelLayout(std::string_view data_layout, bool depthwise) {
  if (data_layout != "NHWC") return "OIHW";
  return depthwise ? "HWOI" : "HWIO";
}

bool IsPlain4d(std::string_view layout) { return layout == "NCHW" || layout == "NHWC"; }

// The last `rank` axes of `layout` (TVM's Layout::SubLayout for the shape
// of a broadcast operand of lower rank): "C" for NHWC and rank 1.
std::string Suffix(const std::string& layout, size_t rank) {
  return layout.substr(layout.size() - rank);
}

// TVM's Layout::ExpandPrimal: the axes of `dst` missing from `src`, in dst's
// order, then src ("C" expanded for NCHW is "NHWC").
std::string ExpandPrimal(const std::string& src, const std::string& dst) {
  std::string out;
  for (char a : dst) {
    if (src.find(a) == std::string::npos) out += a;
  }
  return out + src;
}

// TVM's TryTransformLike for layouts without split axes: `old` (the layout
// of a broadcast operand of lower rank) renamed so that it moves as
// `ref_old` moves to `ref_new`. Axes of `ref_old` are matched to `old`'s
// from the right; an axis of `ref_old` without a partner takes its own
// letter when `old` does not use it, else the first unused letter. The
// result has `ref_new`'s rank: "C" with NHWC -> NHWC gives "NHWC", "NC"
// with NCHW -> NCHW gives "ABNC".
std::string TryTransformLike(const std::string& old, const std::string& ref_old,
                             const std::string& ref_new) {
  if (old.empty()) return old;  // a rank-0 operand broadcasts as it is
  std::map<char, char> mapping;
  std::string used;
  for (size_t k = 0; k < old.size(); ++k) {
    mapping[ref_old[ref_old.size() - 1 - k]] = old[old.size() - 1 - k];
    used += old[old.size() - 1 - k];
  }
  for (size_t k = ref_old.size(); k-- > 0;) {
    char axis = ref_old[k];
    if (mapping.contains(axis)) continue;
    char pick = axis;
    if (used.find(pick) != std::string::npos) {
      for (pick = 'A'; used.find(pick) != std::string::npos; ++pick) {
      }
    }
    mapping[axis] = pick;
    used += pick;
  }
  std::string out;
  for (char axis : ref_new) out += mapping[axis];
  return out;
}

// A layout of `rank` distinct primal axes (no split axes such as NCHW16c):
// the layouts this pass reasons about.
bool IsPlainLayout(std::string_view layout, size_t rank) {
  if (layout.size() != rank) return false;
  for (size_t i = 0; i < layout.size(); ++i) {
    if (layout[i] < 'A' || layout[i] > 'Z' || layout.find(layout[i]) != i) return false;
  }
  return true;
}

size_t RankOf(const Expr* e) {
  const auto* type = DynCast<TensorType>(e->checked_type());
  return type == nullptr ? 0 : type->rank();
}

// Every extent is 1 (TVM's IsScalar in the layout rewriter: such an operand
// broadcasts in any layout and is never transformed).
bool AllOnes(const TensorType* t) {
  for (const Dim& d : t->shape()) {
    if (d.value != 1) return false;
  }
  return true;
}

// TVM's ConvertLayout: a forward rewrite in which each node's result is in
// its original layout or, "alternated", in a new one. An op's LayoutRule
// (ir/op.h) says what happens to it: conv2d is converted to the desired
// layout; 2-d pools, concatenate, batch_norm, pad and reductions follow
// their inputs' new layout, as do unary elementwise ops and numpy-style
// broadcasts;
// any other consumer reads an alternated input through a layout_transform
// back (one per value and direction, shared, as TVM's transform memo).
class LayoutConverter : public TypedMutator {
 public:
  LayoutConverter(Arena* arena, const DesiredLayout& desired)
      : TypedMutator(arena), desired_(desired) {
    for (const std::string& name : desired.ops) {
      if (const OpInfo* op = FindOp(name)) convert_ops_.insert(op);
    }
  }

  // Records the batch_norm calls that some node other than a projection
  // reads (they keep their layout).
  void ScanBatchNormUses(const Expr* root) {
    PostOrderVisit(root, [this](const Expr* e) {
      if (Isa<TupleGetItem>(e)) return;
      ForEachChild(e, [this](const Expr* c) {
        if (LayoutRuleOf(c) == LayoutRule::kBatchNorm) blocked_.insert(c);
      });
    });
  }

 protected:
  const Expr* Rewrite(const Expr* e) override {
    if (const Call* call = DynCast<Call>(e); call != nullptr && call->op() != nullptr) {
      const Expr* out = RewriteCall(call);
      if (out != nullptr) return out;
    }
    if (const TupleGetItem* item = DynCast<TupleGetItem>(e)) {
      auto it = tuple_alt_.find(item->tuple());
      if (it != tuple_alt_.end()) {
        // A field of a batch_norm that follows its input: field 0 (the data)
        // is in the new layout, the per-channel fields are unchanged.
        Alt copy = it->second;
        const TupleGetItem* field =
            builder().MakeTupleGetItem(Mutated(item->tuple()), item->index(), item->span());
        if (item->index() != 0) {
          field->set_checked_type(item->checked_type());
          return field;
        }
        return Record(item, field, copy.old_layout, copy.new_layout);
      }
    }
    const Expr* post = RebuildNode(
        e, [this](const Expr* c) { return Realize(c); }, builder());
    if (post != e) post->set_checked_type(e->checked_type());
    if (const Call* call = DynCast<Call>(e); call != nullptr && call->op() != nullptr) {
      NoteKnownLayout(call);
    }
    return post;
  }

 private:
  struct Alt {
    std::string old_layout;
    std::string new_layout;
  };

  const Alt* FindAlt(const Expr* e) const {
    auto it = alt_.find(e);
    return it == alt_.end() ? nullptr : &it->second;
  }

  // The layout TVM's rules give `e`: alternated (old -> new), or defined
  // and unchanged (old == new); nullopt when no rule defines it.
  std::optional<Alt> FindLayout(const Expr* e) const {
    if (const Alt* alt = FindAlt(e)) return *alt;
    auto it = known_.find(e);
    if (it == known_.end()) return std::nullopt;
    return Alt{it->second, it->second};
  }

  // The inputs of `call` from `first` on, each back in its original layout
  // (a qnn op's scales and zero points).
  void AppendRealized(const Call* call, size_t first, std::vector<const Expr*>& args) {
    for (size_t i = first; i < call->args().size(); ++i) args.push_back(Realize(call->args()[i]));
  }

  // Records the layout TVM's FInferCorrectLayout defines for the output of
  // `call`, which this pass left in its layout: a conv2d / pool / dense
  // output, and ops that follow their data input's defined layout.
  void NoteKnownLayout(const Call* call) {
    if (alt_.contains(call) || known_.contains(call)) return;
    const OpInfo& op = *call->op();
    size_t rank = RankOf(call);
    const Attrs* attrs = call->attrs();
    std::string layout;
    switch (LayoutRuleOf(op)) {
      case LayoutRule::kConv:
        if (attrs == nullptr) return;
        layout = attrs->GetString("out_layout", "");
        if (layout.empty()) layout = attrs->GetString("data_layout", "NCHW");
        break;
      case LayoutRule::kPool:
        if (attrs == nullptr) return;
        layout = attrs->GetString("out_layout", "");
        if (layout.empty()) layout = attrs->GetString("layout", "NCHW");
        break;
      case LayoutRule::kDense: layout = "NC"; break;
      case LayoutRule::kPad:
      case LayoutRule::kAxis: layout = KnownInput(call->args()[0]); break;
      case LayoutRule::kConcat: layout = KnownFields(call->args()[0]); break;
      case LayoutRule::kNone:
        if (call->args().size() == 1 && op.pattern == OpPattern::kElemWise) {
          layout = KnownInput(call->args()[0]);
        }
        break;
      default: break;
    }
    if (IsPlainLayout(layout, rank)) known_[call] = layout;
  }

  std::string KnownInput(const Expr* e) const {
    auto it = known_.find(e);
    return it == known_.end() ? "" : it->second;
  }

  // The one defined, unchanged layout of every field of a tuple, or "".
  std::string KnownFields(const Expr* e) const {
    const Tuple* tuple = DynCast<Tuple>(e);
    if (tuple == nullptr || tuple->fields().empty()) return "";
    std::string first = KnownInput(tuple->fields()[0]);
    for (const Expr* f : tuple->fields()) {
      if (KnownInput(f) != first) return "";
    }
    return first;
  }

  // The mutated child, back in its original layout.
  const Expr* Realize(const Expr* c) {
    const Alt* alt = FindAlt(c);
    if (alt == nullptr) return Mutated(c);
    return TransformOnce(Mutated(c), alt->new_layout, alt->old_layout);
  }

  const Expr* TransformOnce(const Expr* value, const std::string& src, const std::string& dst) {
    if (src == dst) return value;
    auto key = std::make_tuple(value, src, dst);
    auto it = transforms_.find(key);
    if (it != transforms_.end()) return it->second;
    const Expr* t = Transform(builder(), value, src, dst);
    transforms_.emplace(key, t);
    return t;
  }

  // TVM's TransformHelper: a lower-rank operand is first expanded with
  // leading axes (expand_dims), unless every extent is 1.
  const Expr* TransformBroadcastOperand(const Expr* value, const TensorType* type,
                                        const std::string& src, const std::string& dst) {
    if (src == dst) return value;
    if (src.size() >= dst.size()) return TransformOnce(value, src, dst);
    if (AllOnes(type)) return value;
    auto key = std::make_tuple(value, src, dst);
    auto it = transforms_.find(key);
    if (it != transforms_.end()) return it->second;
    int64_t extra = static_cast<int64_t>(dst.size() - src.size());
    const OpInfo* op = FindOp("expand_dims");
    const Attrs* attrs = WithField(DefaultAttrs(op->attrs), "axis", AttrValue::Int(0));
    attrs = WithField(attrs, "num_newaxis", AttrValue::Int(extra));
    const Call* expanded = builder().MakeCall(GetOp(op), {value}, attrs);
    std::vector<Dim> shape(static_cast<size_t>(extra), Dim{1, false});
    shape.insert(shape.end(), type->shape().begin(), type->shape().end());
    expanded->set_checked_type(TensorTy(type->dtype(), shape));
    std::string expanded_layout = ExpandPrimal(src, dst);
    const Expr* out = expanded_layout == dst
                          ? static_cast<const Expr*>(expanded)
                          : Transform(builder(), expanded, expanded_layout, dst);
    transforms_.emplace(key, out);
    return out;
  }

  // `call` rebuilt over `args`, typed from the original's type written in
  // `layout` (which is `from` in the original).
  const Call* Remake(const Call* call, std::vector<const Expr*> args, const Attrs* attrs,
                     const std::string& from, const std::string& layout) {
    const Call* out = builder().MakeCall(call->callee(), args, attrs, call->span());
    const auto* type = DynCast<TensorType>(call->checked_type());
    if (type == nullptr) return out;
    if (from == layout) {
      out->set_checked_type(type);
      return out;
    }
    absl::StatusOr<BijectiveLayout> map = BijectiveLayout::Make(from, layout);
    if (!map.ok()) return out;
    absl::StatusOr<std::vector<Dim>> shape = map->ForwardShape(type->shape());
    if (shape.ok()) out->set_checked_type(TensorTy(type->dtype(), *shape));
    return out;
  }

  const Expr* Record(const Expr* original, const Expr* value, std::string old_layout,
                     std::string new_layout) {
    if (old_layout != new_layout) {
      alt_[original] = Alt{std::move(old_layout), std::move(new_layout)};
    } else if (IsPlainLayout(old_layout, RankOf(original))) {
      known_[original] = std::move(old_layout);
    }
    return value;
  }

  // nullptr: no layout rule applies (the caller realizes the inputs).
  const Expr* RewriteCall(const Call* call) {
    const OpInfo* op = call->op();
    switch (LayoutRuleOf(*op)) {
      case LayoutRule::kConv: return ConvertConv(call);
      case LayoutRule::kPool: return AdaptPool(call);
      case LayoutRule::kConcat: return AdaptConcat(call);
      case LayoutRule::kBatchNorm: return AdaptBatchNorm(call);
      case LayoutRule::kPad: return AdaptPad(call);
      case LayoutRule::kReduce: return AdaptReduce(call);
      case LayoutRule::kAxis: return AdaptAxis(call);
      case LayoutRule::kBroadcast: return AdaptBroadcast(call);
      case LayoutRule::kDense:  // reads "NC": an alternated input goes back
      case LayoutRule::kNone: break;
    }
    if (call->args().size() == 1 && op->pattern == OpPattern::kElemWise) {
      const Alt* alt = FindAlt(call->args()[0]);
      if (alt == nullptr) return nullptr;
      Alt copy = *alt;
      return Record(call,
                    Remake(call, {Mutated(call->args()[0])}, call->attrs(), copy.old_layout,
                           copy.new_layout),
                    copy.old_layout, copy.new_layout);
    }
    // Ops that broadcast along an axis attribute (nn.prelu, nn.bias_add),
    // not numpy-style, have no rule here.
    if (call->args().size() == 2 && op->pattern == OpPattern::kBroadcast &&
        !BroadcastsAlongAxis(*op)) {
      return AdaptBroadcast(call);
    }
    return nullptr;
  }

  const Expr* ConvertConv(const Call* call) {
    const Attrs* attrs = call->attrs();
    if (attrs == nullptr || !convert_ops_.contains(call->op())) return nullptr;
    std::string layout(attrs->GetString("data_layout", "NCHW"));
    std::string kernel(attrs->GetString("kernel_layout", "OIHW"));
    std::string out_layout(attrs->GetString("out_layout", ""));
    if (!IsPlain4d(layout) || (!out_layout.empty() && !IsPlain4d(out_layout))) return nullptr;
    std::string want_kernel = desired_.kernel;
    if (!desired_.depthwise_kernel.empty() && Depthwise(call)) want_kernel = desired_.depthwise_kernel;
    if (want_kernel == "default") want_kernel = DefaultKernelLayout(desired_.data, Depthwise(call));
    if (!BijectiveLayout::Make(kernel, want_kernel).ok()) return nullptr;
    const Expr* data = call->args()[0];
    const Expr* weight = call->args()[1];
    const Alt* data_alt = FindAlt(data);
    const Alt* weight_alt = FindAlt(weight);
    std::string data_now = data_alt != nullptr ? data_alt->new_layout : layout;
    std::string weight_now = weight_alt != nullptr ? weight_alt->new_layout : kernel;
    if (!BijectiveLayout::Make(data_now, desired_.data).ok() ||
        !BijectiveLayout::Make(weight_now, want_kernel).ok()) {
      return nullptr;
    }
    if (data_alt == nullptr && weight_alt == nullptr && layout == desired_.data &&
        kernel == want_kernel) {
      return nullptr;  // already converted: rebuilt as is
    }
    const Expr* new_data = TransformOnce(Mutated(data), data_now, desired_.data);
    const Expr* new_weight = TransformOnce(Mutated(weight), weight_now, want_kernel);
    std::vector<const Expr*> args = {new_data, new_weight};
    AppendRealized(call, 2, args);
    const Attrs* new_attrs = WithField(attrs, "data_layout", AttrValue::Str(desired_.data));
    new_attrs = WithField(new_attrs, "kernel_layout", AttrValue::Str(want_kernel));
    std::string old_out = out_layout.empty() ? layout : out_layout;
    std::string new_out = out_layout.empty() ? desired_.data : out_layout;
    return Record(call, Remake(call, std::move(args), new_attrs, old_out, new_out), old_out,
                  new_out);
  }

  // groups == input channels == output channels.
  bool Depthwise(const Call* call) const {
    int64_t groups = call->attrs()->GetInt("groups", 1);
    const auto* data = DynCast<TensorType>(call->args()[0]->checked_type());
    const auto* weight = DynCast<TensorType>(call->args()[1]->checked_type());
    if (data == nullptr || weight == nullptr || data->rank() != 4 || weight->rank() != 4) {
      return false;
    }
    std::string layout(call->attrs()->GetString("data_layout", "NCHW"));
    std::string kernel(call->attrs()->GetString("kernel_layout", "OIHW"));
    size_t c = layout.find('C');
    size_t o = kernel.find('O');
    if (c == std::string::npos || o == std::string::npos) return false;
    return data->shape()[c].value == groups && weight->shape()[o].value == groups;
  }

  // TVM's PoolInferCorrectLayout: a pool without out_layout takes its
  // input's new layout.
  const Expr* AdaptPool(const Call* call) {
    const Alt* alt = FindAlt(call->args()[0]);
    if (alt == nullptr || call->attrs() == nullptr) return nullptr;
    std::string layout(call->attrs()->GetString("layout", "NCHW"));
    if (!call->attrs()->GetString("out_layout", "").empty() || layout != alt->old_layout ||
        !IsPlain4d(alt->new_layout)) {
      return nullptr;
    }
    Alt copy = *alt;
    const Attrs* attrs = WithField(call->attrs(), "layout", AttrValue::Str(copy.new_layout));
    return Record(call, Remake(call, {Mutated(call->args()[0])}, attrs, layout, copy.new_layout),
                  layout, copy.new_layout);
  }

  // TVM's BinaryBroadcastLayout with the rewriter's transforms, on inputs
  // 0 and 1 (a qnn op's other inputs are read as they are). An operand
  // without a defined layout takes the other's trailing axes; the result
  // takes the new layout of the operand of larger rank, and the other
  // operand is renamed like it (TryTransformLike), expanded with
  // expand_dims and transformed to that.
  const Expr* AdaptBroadcast(const Call* call) {
    const Expr* a[2] = {call->args()[0], call->args()[1]};
    std::optional<Alt> lay[2] = {FindLayout(a[0]), FindLayout(a[1])};
    if (!lay[0].has_value() && !lay[1].has_value()) return nullptr;
    const TensorType* type[2];
    std::string old_l[2], now[2];
    const Alt known = lay[0].has_value() ? *lay[0] : *lay[1];
    for (int i = 0; i < 2; ++i) {
      type[i] = DynCast<TensorType>(a[i]->checked_type());
      if (type[i] == nullptr) return nullptr;
      if (lay[i].has_value()) {
        old_l[i] = lay[i]->old_layout;
        now[i] = lay[i]->new_layout;
        continue;
      }
      if (type[i]->rank() > known.old_layout.size()) return nullptr;
      old_l[i] = now[i] = Suffix(known.old_layout, type[i]->rank());
    }
    int large = now[0].size() >= now[1].size() ? 0 : 1;
    int old_large = old_l[0].size() >= old_l[1].size() ? 0 : 1;
    int small = 1 - large;
    if (old_l[small].size() > old_l[large].size()) return nullptr;
    std::string ret = now[old_large];
    std::string target = TryTransformLike(old_l[small], old_l[large], now[large]);
    std::vector<const Expr*> args(2);
    args[large] = Mutated(a[large]);
    args[small] = TransformBroadcastOperand(Mutated(a[small]), type[small], now[small], target);
    std::string old_out = old_l[old_large];
    if (args[small] == Mutated(a[small]) && ret == old_out) {
      // Nothing moves: the call is rebuilt as it is, its layout defined.
      if (IsPlainLayout(ret, RankOf(call))) known_[call] = ret;
      return nullptr;
    }
    AppendRealized(call, 2, args);
    return Record(call, Remake(call, args, call->attrs(), old_out, ret), old_out, ret);
  }

  // TVM's RequantizeInferCorrectLayout: the op follows its data's new
  // layout, its `axis` (-1: the last) renumbered to the same axis letter.
  const Expr* AdaptAxis(const Call* call) {
    const Alt* alt = FindAlt(call->args()[0]);
    if (alt == nullptr || call->attrs() == nullptr) return nullptr;
    Alt copy = *alt;
    int64_t axis = call->attrs()->GetInt("axis", -1);
    if (axis < 0) axis += static_cast<int64_t>(copy.old_layout.size());
    if (axis < 0 || axis >= static_cast<int64_t>(copy.old_layout.size())) return nullptr;
    size_t new_axis = copy.new_layout.find(copy.old_layout[static_cast<size_t>(axis)]);
    if (new_axis == std::string::npos) return nullptr;
    std::vector<const Expr*> args = {Mutated(call->args()[0])};
    AppendRealized(call, 1, args);
    const Attrs* attrs =
        WithField(call->attrs(), "axis", AttrValue::Int(static_cast<int64_t>(new_axis)));
    return Record(call, Remake(call, std::move(args), attrs, copy.old_layout, copy.new_layout),
                  copy.old_layout, copy.new_layout);
  }

  // TVM's BatchNormLayout: batch_norm follows its data's new layout (axis
  // renumbered); its fields are read through projections (a batch_norm used
  // otherwise keeps its layout: a tuple cannot be transformed back).
  const Expr* AdaptBatchNorm(const Call* call) {
    const Alt* alt = FindAlt(call->args()[0]);
    if (alt == nullptr || call->attrs() == nullptr || !IsPlain4d(alt->new_layout) ||
        blocked_.contains(call)) {
      return nullptr;
    }
    for (size_t i = 1; i < call->args().size(); ++i) {
      if (FindAlt(call->args()[i]) != nullptr) return nullptr;
    }
    Alt copy = *alt;
    int64_t axis = call->attrs()->GetInt("axis", 1);
    if (axis < 0) axis += static_cast<int64_t>(copy.old_layout.size());
    if (axis < 0 || axis >= static_cast<int64_t>(copy.old_layout.size())) return nullptr;
    size_t new_axis = copy.new_layout.find(copy.old_layout[static_cast<size_t>(axis)]);
    if (new_axis == std::string::npos) return nullptr;
    std::vector<const Expr*> args;
    for (const Expr* a : call->args()) args.push_back(Mutated(a));
    const Attrs* attrs =
        WithField(call->attrs(), "axis", AttrValue::Int(static_cast<int64_t>(new_axis)));
    const Call* out = builder().MakeCall(call->callee(), args, attrs, call->span());
    tuple_alt_[call] = copy;
    return out;
  }

  // TVM's ReduceInferCorrectLayout: the reduced axes are renumbered in the
  // input's new layout (in that layout's order; an axis of None becomes the
  // explicit list); the result keeps the axes that are not reduced (all of
  // them with keepdims), so it stays alternated only when those differ.
  const Expr* AdaptReduce(const Call* call) {
    const Alt* alt = FindAlt(call->args()[0]);
    if (alt == nullptr || call->attrs() == nullptr) return nullptr;
    Alt copy = *alt;
    const Attrs* attrs = call->attrs();
    bool keepdims = attrs->GetInt("keepdims", 0) != 0;
    bool exclude = attrs->GetInt("exclude", 0) != 0;
    int64_t rank = static_cast<int64_t>(copy.old_layout.size());
    std::vector<bool> listed(static_cast<size_t>(rank), false);
    std::optional<std::vector<int64_t>> axes = attrs->GetInts("axis");
    for (int64_t a = 0; a < rank; ++a) listed[static_cast<size_t>(a)] = !axes.has_value();
    if (axes.has_value()) {
      for (int64_t a : *axes) {
        if (a < 0) a += rank;
        if (a < 0 || a >= rank) return nullptr;
        listed[static_cast<size_t>(a)] = true;
      }
    }
    std::string reduced;  // letters of the reduced axes
    for (int64_t a = 0; a < rank; ++a) {
      bool r = axes.has_value() && exclude ? !listed[static_cast<size_t>(a)] : listed[static_cast<size_t>(a)];
      if (r) reduced += copy.old_layout[static_cast<size_t>(a)];
    }
    auto out_layout = [&](const std::string& layout) {
      std::string out;
      for (char c : layout) {
        if (keepdims || reduced.find(c) == std::string::npos) out += c;
      }
      return out;
    };
    std::vector<AttrValue> new_axes;
    for (size_t i = 0; i < copy.new_layout.size(); ++i) {
      bool r = reduced.find(copy.new_layout[i]) != std::string::npos;
      if (r != (axes.has_value() && exclude)) new_axes.push_back(AttrValue::Int(static_cast<int64_t>(i)));
    }
    const Attrs* new_attrs = WithField(attrs, "axis", AttrValue::Array(new_axes));
    std::string old_out = out_layout(copy.old_layout);
    std::string new_out = out_layout(copy.new_layout);
    return Record(call,
                  Remake(call, {Mutated(call->args()[0])}, new_attrs, old_out, new_out),
                  old_out, new_out);
  }

  // TVM's PadInferCorrectLayout: pad follows its data's new layout, its
  // pad_width rows permuted to it (the pad value is a scalar).
  const Expr* AdaptPad(const Call* call) {
    const Alt* alt = FindAlt(call->args()[0]);
    if (alt == nullptr || call->attrs() == nullptr || FindAlt(call->args()[1]) != nullptr) {
      return nullptr;
    }
    Alt copy = *alt;
    const AttrValue* widths = call->attrs()->Find("pad_width");
    if (widths == nullptr || widths->kind() != AttrValue::Kind::kArray ||
        widths->as_array().size() != copy.old_layout.size()) {
      return nullptr;
    }
    std::vector<AttrValue> rows;
    for (char axis : copy.new_layout) {
      size_t old_index = copy.old_layout.find(axis);
      if (old_index == std::string::npos) return nullptr;
      rows.push_back(widths->as_array()[old_index]);
    }
    const Attrs* attrs = WithField(call->attrs(), "pad_width", AttrValue::Array(rows));
    return Record(call,
                  Remake(call, {Mutated(call->args()[0]), Mutated(call->args()[1])}, attrs,
                         copy.old_layout, copy.new_layout),
                  copy.old_layout, copy.new_layout);
  }

  // TVM's ConcatenateLayout: when every field is in the same new layout, the
  // concatenation stays in it (its axis renumbered).
  const Expr* AdaptConcat(const Call* call) {
    const Tuple* tuple = DynCast<Tuple>(call->args()[0]);
    if (tuple == nullptr || tuple->fields().empty() || call->attrs() == nullptr) return nullptr;
    const Alt* first = FindAlt(tuple->fields()[0]);
    if (first == nullptr) return nullptr;
    std::vector<const Expr*> fields;
    for (const Expr* f : tuple->fields()) {
      const Alt* alt = FindAlt(f);
      if (alt == nullptr || alt->new_layout != first->new_layout ||
          alt->old_layout != first->old_layout) {
        return nullptr;
      }
      fields.push_back(Mutated(f));
    }
    Alt copy = *first;
    int64_t axis = call->attrs()->GetInt("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(copy.old_layout.size());
    if (axis < 0 || axis >= static_cast<int64_t>(copy.old_layout.size())) return nullptr;
    size_t new_axis = copy.new_layout.find(copy.old_layout[static_cast<size_t>(axis)]);
    if (new_axis == std::string::npos) return nullptr;
    const Tuple* new_tuple = builder().MakeTuple(fields, tuple->span());
    std::vector<const Expr*> args = {new_tuple};
    AppendRealized(call, 1, args);
    const Attrs* attrs =
        WithField(call->attrs(), "axis", AttrValue::Int(static_cast<int64_t>(new_axis)));
    return Record(call, Remake(call, std::move(args), attrs, copy.old_layout, copy.new_layout),
                  copy.old_layout, copy.new_layout);
  }

  const DesiredLayout& desired_;
  absl::flat_hash_set<const OpInfo*> convert_ops_;
  absl::flat_hash_map<const Expr*, Alt> alt_;
  // Values whose layout TVM's rules define, left in it (TVM: a layout
  // alternated expr with old == new).
  absl::flat_hash_map<const Expr*, std::string> known_;
  // batch_norm calls in a new layout (their field 0 is).
  absl::flat_hash_map<const Expr*, Alt> tuple_alt_;
  // batch_norm calls read other than through a projection.
  absl::flat_hash_set<const Expr*> blocked_;
  std::map<std::tuple<const Expr*, std::string, std::string>, const Expr*> transforms_;
};

}  // namespace

absl::StatusOr<const Function*> ConvertLayoutFunction(const Function* fn,
                                                      const DesiredLayout& desired, Arena* arena,
                                                      bool canonicalize) {
  // TVM's ConvertLayout requires CanonicalizeOps (bias_add -> add), which a
  // pass sequence runs first.
  const Function* canonical = fn;
  if (canonicalize) {
    CARVE_ASSIGN_OR_RETURN(canonical, CanonicalizeOpsFunction(fn, arena));
  }
  LayoutConverter converter(arena, desired);
  converter.ScanBatchNormUses(canonical);
  return Cast<Function>(converter.Mutate(canonical));
}

absl::StatusOr<PassPtr> ConvertLayout(DesiredLayout desired) {
  if (desired.data != "NCHW" && desired.data != "NHWC") {
    return absl::InvalidArgumentError(fmt::format(
        "ConvertLayout: data layout '{}' is not supported (NCHW or NHWC)", desired.data));
  }
  if (desired.kernel != "default") {
    absl::StatusOr<BijectiveLayout> check = BijectiveLayout::Make("OIHW", desired.kernel);
    if (!check.ok()) {
      return absl::InvalidArgumentError(fmt::format(
          "ConvertLayout: kernel layout '{}' is not a 4-d layout of O, I, H, W", desired.kernel));
    }
  }
  if (desired.ops.empty()) {
    return absl::InvalidArgumentError("ConvertLayout: no op to convert");
  }
  for (const std::string& name : desired.ops) {
    const OpInfo* op = FindOp(name);
    if (op == nullptr || LayoutRuleOf(*op) != LayoutRule::kConv) {
      return absl::InvalidArgumentError(fmt::format(
          "ConvertLayout: '{}' is not an op whose layout ConvertLayout converts", name));
    }
  }
  std::string description = fmt::format("ConvertLayout({},{})", desired.data, desired.kernel);
  return MakeFunctionPass(
      "ConvertLayout", description,
      [desired](const Function* fn, const Module& mod,
                PassContext&) -> absl::StatusOr<const Function*> {
        return ConvertLayoutFunction(fn, desired, mod.arena());
      },
      /*require_types=*/true);
}

}  // namespace carve
