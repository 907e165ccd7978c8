#include "passes/layout/layout_rewriter.h"

#include "ir/layout.h"
#include "ir/op_rules.h"
#include "passes/layout/conv_rules.h"
#include "passes/layout/layout_names.h"
#include "patterns/rebuild.h"

namespace carve::layout {

LayoutRewriter::LayoutRewriter(Arena* arena, const DesiredLayout& desired)
    : TypedMutator(arena), skip_layers_(desired.skip_layers.begin(), desired.skip_layers.end()) {
  for (const std::string& name : desired.ops) {
    if (const OpInfo* op = FindOp(name)) {
      convert_ops_[op] = Target{desired.data, desired.kernel, desired.depthwise_kernel};
    }
  }
  for (const OpLayout& entry : desired.per_op) {
    if (const OpInfo* op = FindOp(entry.op)) convert_ops_[op] = Target{entry.data, entry.kernel, ""};
  }
}

void LayoutRewriter::ScanTupleUses(const Expr* root) {
  PostOrderVisit(root, [this](const Expr* e) {
    if (Isa<TupleGetItem>(e)) return;
    ForEachChild(e, [this](const Expr* c) {
      LayoutRule rule = LayoutRuleOf(c);
      if (rule == LayoutRule::kBatchNorm || rule == LayoutRule::kSplit) blocked_.insert(c);
    });
  });
}

const Expr* LayoutRewriter::Rewrite(const Expr* e) {
  const Call* call = DynCast<Call>(e);
  if (call != nullptr && call->op() == nullptr) call = nullptr;
  if (call != nullptr) {
    if (const Expr* out = RewriteCall(call)) return out;
  }
  if (const TupleGetItem* item = DynCast<TupleGetItem>(e)) {
    if (const Expr* out = RewriteField(item)) return out;
  }
  const Expr* post = RebuildNode(
      e, [this](const Expr* c) { return Realize(c); }, builder());
  if (post != e) post->set_checked_type(e->checked_type());
  if (call != nullptr) NoteKnownLayout(call);
  return post;
}

// A field of a call whose tuple result follows a layout: in the new layout
// when the rule moves that field, else as it was.
const Expr* LayoutRewriter::RewriteField(const TupleGetItem* item) {
  auto it = tuple_alt_.find(item->tuple());
  if (it == tuple_alt_.end()) return nullptr;
  TupleAlt copy = it->second;
  const Expr* field = MakeField(item->tuple(), item->index(), item->checked_type(), item->span());
  if (item->index() != 0 && !copy.all_fields) return field;
  return Record(item, field, copy.alt.old_layout, copy.alt.new_layout);
}

// Field `index` of the rewritten `tuple_call`, typed from `old_type` (its
// type before the rewrite) moved to the new layout when the rule moves it.
const Expr* LayoutRewriter::MakeField(const Expr* tuple_call, int index, const Type* old_type,
                                      Span span) {
  const TupleAlt& copy = tuple_alt_.at(tuple_call);
  const TupleGetItem* field = builder().MakeTupleGetItem(Mutated(tuple_call), index, span);
  const auto* type = DynCast<TensorType>(old_type);
  bool moved = index == 0 || copy.all_fields;
  if (type == nullptr || !moved || copy.alt.old_layout == copy.alt.new_layout) {
    field->set_checked_type(old_type);
    return field;
  }
  absl::StatusOr<BijectiveLayout> map =
      BijectiveLayout::Make(copy.alt.old_layout, copy.alt.new_layout);
  absl::StatusOr<std::vector<Dim>> shape =
      map.ok() ? map->ForwardShape(type->shape()) : absl::StatusOr<std::vector<Dim>>(map.status());
  if (shape.ok()) field->set_checked_type(TensorTy(type->dtype(), *shape));
  return field;
}

// A tuple result in a new layout read as a whole (TVM: the rewritten call
// is a tuple of its projections, each realized): the tuple of its fields,
// each moved back to the old layout.
const Expr* LayoutRewriter::RealizeTuple(const Expr* tuple_call) {
  const TupleAlt& copy = tuple_alt_.at(tuple_call);
  const auto* type = DynCast<TupleType>(tuple_call->checked_type());
  if (type == nullptr || copy.alt.old_layout == copy.alt.new_layout) return Mutated(tuple_call);
  auto key = std::make_tuple(tuple_call, copy.alt.new_layout, copy.alt.old_layout);
  auto it = transforms_.find(key);
  if (it != transforms_.end()) return it->second;
  std::vector<const Expr*> fields;
  for (size_t i = 0; i < type->fields().size(); ++i) {
    const Expr* field = MakeField(tuple_call, static_cast<int>(i), type->fields()[i], Span());
    if (i == 0 || copy.all_fields) {
      field = TransformOnce(field, copy.alt.new_layout, copy.alt.old_layout);
    }
    fields.push_back(field);
  }
  const Tuple* tuple = builder().MakeTuple(fields, Span());
  tuple->set_checked_type(type);
  transforms_.emplace(key, tuple);
  return tuple;
}

// The rules that take an input in a blocked layout (NCHW4c) as TVM's do:
// the elementwise ops, broadcasts, pools, concatenate, split and the
// reductions. The others
// renumber axes one letter at a time, so such an input goes back to its old
// layout before them (the fallback).
bool LayoutRewriter::TakesBlocked(const Call* call) const {
  switch (LayoutRuleOf(*call->op())) {
    case LayoutRule::kConv:
    case LayoutRule::kPool:
    case LayoutRule::kConcat:
    case LayoutRule::kBroadcast:
    case LayoutRule::kSplit:
    case LayoutRule::kReduce:
    case LayoutRule::kElemwise: return true;
    case LayoutRule::kNone: break;
    default: return false;
  }
  return call->op()->pattern == OpPattern::kElemWise ||
         call->op()->pattern == OpPattern::kBroadcast;
}

// Whether an input of `call` (a field of a tuple input) is in a blocked
// layout.
bool LayoutRewriter::ReadsBlocked(const Call* call) const {
  bool blocked = false;
  auto check = [&](const Expr* e) {
    const Alt* alt = FindAlt(e);
    blocked = blocked || (alt != nullptr && IsBlocked(alt->new_layout));
  };
  for (const Expr* a : call->args()) {
    check(a);
    if (const Tuple* tuple = DynCast<Tuple>(a)) {
      for (const Expr* f : tuple->fields()) check(f);
    }
  }
  return blocked;
}

const Expr* LayoutRewriter::RewriteCall(const Call* call) {
  const OpInfo* op = call->op();
  if (convert_ops_.contains(op) && ConvertsDataLayout(*op)) return ConvertDataLayout(call);
  if (!TakesBlocked(call) && ReadsBlocked(call)) return nullptr;
  switch (LayoutRuleOf(*op)) {
    case LayoutRule::kConv: return ConvertConv(call);
    case LayoutRule::kPool: return AdaptPool(call);
    case LayoutRule::kConcat: return AdaptConcat(call);
    case LayoutRule::kBatchNorm: return AdaptBatchNorm(call);
    case LayoutRule::kPad: return AdaptPad(call);
    case LayoutRule::kReduce: return AdaptReduce(call);
    case LayoutRule::kAxis: return AdaptAxis(call);
    case LayoutRule::kBroadcast: return AdaptBroadcast(call);
    case LayoutRule::kTranspose: return AdaptTranspose(call);
    case LayoutRule::kStridedSlice: return AdaptStridedSlice(call);
    case LayoutRule::kSplit: return AdaptSplit(call);
    case LayoutRule::kSqueeze: return AdaptSqueeze(call);
    case LayoutRule::kNorm: return AdaptNorm(call);
    case LayoutRule::kUpsampling: return AdaptUpsampling(call);
    case LayoutRule::kSliceLike: return AdaptSliceLike(call);
    case LayoutRule::kTopK: return AdaptTopK(call);
    case LayoutRule::kElemwise: return AdaptElemwise(call);
    case LayoutRule::kKeepData:  // reads its data in its original layout
    case LayoutRule::kOwnLayout:  // reads its inputs in its own layout
    case LayoutRule::kDense:  // reads "NC": an alternated input goes back
    case LayoutRule::kNone: break;
  }
  if (call->args().size() == 1 && op->pattern == OpPattern::kElemWise) return AdaptElemwise(call);
  // Ops that broadcast along an axis attribute (nn.prelu, nn.bias_add),
  // not numpy-style, have no rule here.
  if (call->args().size() == 2 && op->pattern == OpPattern::kBroadcast &&
      !BroadcastsAlongAxis(*op)) {
    return AdaptBroadcast(call);
  }
  return nullptr;
}

const Alt* LayoutRewriter::FindAlt(const Expr* e) const {
  auto it = alt_.find(e);
  return it == alt_.end() ? nullptr : &it->second;
}

std::optional<Alt> LayoutRewriter::FindLayout(const Expr* e) const {
  if (const Alt* alt = FindAlt(e)) return *alt;
  auto it = known_.find(e);
  if (it == known_.end()) return std::nullopt;
  return Alt{it->second, it->second};
}

// Records the layout TVM's FInferCorrectLayout defines for the output of
// `call`, which no rule rewrote: a convolution / pool / dense output, and
// ops that follow their data input's defined layout.
void LayoutRewriter::NoteKnownLayout(const Call* call) {
  if (alt_.contains(call) || known_.contains(call)) return;
  const OpInfo& op = *call->op();
  std::string layout;
  switch (LayoutRuleOf(op)) {
    case LayoutRule::kConv:
      layout = AttrOrDefault(call, "out_layout");
      if (layout.empty()) layout = AttrOrDefault(call, "data_layout");
      break;
    case LayoutRule::kPool:
      layout = AttrOrDefault(call, "out_layout");
      if (layout.empty()) layout = AttrOrDefault(call, "layout");
      break;
    case LayoutRule::kUpsampling: layout = AttrOrDefault(call, "layout"); break;
    case LayoutRule::kOwnLayout:
      layout = AttrOrDefault(call, "layout");
      if (layout.empty()) layout = AttrOrDefault(call, "data_layout");
      break;
    case LayoutRule::kElemwise: layout = KnownInput(call->args()[0]); break;
    case LayoutRule::kKeepData:
      if (std::optional<Alt> data = FindLayout(call->args()[0])) layout = data->old_layout;
      break;
    case LayoutRule::kDense: layout = "NC"; break;
    case LayoutRule::kPad:
    case LayoutRule::kStridedSlice:
    case LayoutRule::kAxis: layout = KnownInput(call->args()[0]); break;
    case LayoutRule::kConcat: layout = KnownFields(call->args()[0]); break;
    case LayoutRule::kNone:
      if (call->args().size() == 1 && op.pattern == OpPattern::kElemWise) {
        layout = KnownInput(call->args()[0]);
      }
      break;
    default: break;
  }
  if (IsPlainLayout(layout, RankOf(call))) known_[call] = layout;
}

std::string LayoutRewriter::KnownInput(const Expr* e) const {
  auto it = known_.find(e);
  return it == known_.end() ? "" : it->second;
}

// The one defined, unchanged layout of every field of a tuple, or "".
std::string LayoutRewriter::KnownFields(const Expr* e) const {
  const Tuple* tuple = DynCast<Tuple>(e);
  if (tuple == nullptr || tuple->fields().empty()) return "";
  std::string first = KnownInput(tuple->fields()[0]);
  for (const Expr* f : tuple->fields()) {
    if (KnownInput(f) != first) return "";
  }
  return first;
}

void LayoutRewriter::AppendRealized(const Call* call, size_t first,
                                    std::vector<const Expr*>& args) {
  for (size_t i = first; i < call->args().size(); ++i) args.push_back(Realize(call->args()[i]));
}

const Expr* LayoutRewriter::Realize(const Expr* c) {
  if (tuple_alt_.contains(c)) return RealizeTuple(c);
  const Alt* alt = FindAlt(c);
  if (alt == nullptr) return Mutated(c);
  return TransformOnce(Mutated(c), alt->new_layout, alt->old_layout);
}

const Expr* LayoutRewriter::TransformOnce(const Expr* value, const std::string& src,
                                          const std::string& dst) {
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
const Expr* LayoutRewriter::TransformBroadcastOperand(const Expr* value, const TensorType* type,
                                                      const std::string& src,
                                                      const std::string& dst) {
  if (src == dst) return value;
  if (PrimalCount(src) >= PrimalCount(dst)) return TransformOnce(value, src, dst);
  if (AllOnes(type)) return value;
  auto key = std::make_tuple(value, src, dst);
  auto it = transforms_.find(key);
  if (it != transforms_.end()) return it->second;
  int64_t extra = static_cast<int64_t>(PrimalCount(dst) - PrimalCount(src));
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

const Call* LayoutRewriter::Remake(const Call* call, std::vector<const Expr*> args,
                                   const Attrs* attrs, const std::string& from,
                                   const std::string& layout) {
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

const Expr* LayoutRewriter::RemakeUnary(const Call* call, const Attrs* attrs,
                                        const std::string& old_out,
                                        const std::string& new_out) {
  std::vector<const Expr*> args = {Mutated(call->args()[0])};
  AppendRealized(call, 1, args);
  return Record(call, Remake(call, std::move(args), attrs, old_out, new_out), old_out, new_out);
}

const Expr* LayoutRewriter::Record(const Expr* original, const Expr* value,
                                   std::string old_layout, std::string new_layout) {
  if (old_layout != new_layout) {
    alt_[original] = Alt{std::move(old_layout), std::move(new_layout)};
  } else if (IsPlainLayout(old_layout, RankOf(original))) {
    known_[original] = std::move(old_layout);
  }
  return value;
}

}  // namespace carve::layout
