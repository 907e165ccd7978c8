// DimIdentity: TVM's IntImm object sharing in constants' checked types (see
// the header). Each modelled relation below names the TVM relation whose
// PrimExpr copies it follows.
#include "grammar/printer_dim_identity.h"

#include <string_view>

#include "ir/op.h"
#include "ir/type_relations.h"
#include "ir/visit.h"

namespace carve::print_internal {
namespace {

const TensorType* TensorOf(const Expr* e) { return DynCast<TensorType>(e->checked_type()); }

// Position of `axis` (an upper-case layout letter) in a plain layout of
// `rank` letters; -1 when the layout has split axes or lacks the letter.
int Pos(std::string_view layout, char axis, size_t rank) {
  if (layout.size() != rank) return -1;
  for (char c : layout) {
    if (c < 'A' || c > 'Z') return -1;
  }
  size_t p = layout.find(axis);
  return p == std::string_view::npos ? -1 : int(p);
}

int64_t NormAxis(int64_t axis, size_t rank) { return axis < 0 ? axis + int64_t(rank) : axis; }

bool IsRel(const OpInfo* op, TypeRelation rel) { return op->type_rel == rel; }

}  // namespace

std::vector<int64_t> DimIdentity::FreshDims(size_t n) {
  std::vector<int64_t> out(n);
  for (int64_t& t : out) t = next_++;
  return out;
}

DimIdentity::Toks DimIdentity::Fresh(const Type* type) {
  Toks out;
  if (auto* tt = DynCast<TensorType>(type)) {
    out.dims = FreshDims(tt->rank());
  } else if (auto* tuple = DynCast<TupleType>(type)) {
    out.tuple = true;
    for (const Type* field : tuple->fields()) out.fields.push_back(Fresh(field));
  }
  return out;
}

const DimIdentity::Toks* DimIdentity::Lookup(const Expr* e) {
  // A let-bound variable has its value's type (the value is visited before
  // the let body, where the variable is used).
  for (int hops = 0; hops < 64; ++hops) {
    auto* var = DynCast<Var>(e);
    if (var == nullptr) break;
    auto it = let_values_.find(var);
    if (it == let_values_.end()) break;
    e = it->second;
  }
  auto it = toks_.find(e);
  if (it == toks_.end()) it = toks_.emplace(e, Fresh(e->checked_type())).first;
  return &it->second;
}

void DimIdentity::Assign(const Expr* arg, std::vector<int64_t> toks) {
  // The solver resolves the argument to the relation's type (the type a
  // relation reports is the unifier's winner); only constants are printed
  // with their type in the metadata, so only they need recording. A
  // let-bound variable shares its value's type.
  for (int hops = 0; hops < 64 && Isa<Var>(arg); ++hops) {
    auto it = let_values_.find(Cast<Var>(arg));
    if (it == let_values_.end()) break;
    arg = it->second;
  }
  if (auto* constant = DynCast<Constant>(arg)) {
    if (toks.size() == constant->data().rank()) assigned_[constant] = std::move(toks);
  }
}

void DimIdentity::Analyse(const Expr* root) {
  PostOrderVisit(root, [this](const Expr* e) {
    if (auto* let = DynCast<Let>(e)) let_values_[let->var()] = let->value();
  });
  PostOrderVisit(root, [this](const Expr* e) {
    switch (e->kind()) {
      case ExprKind::kCall:
        VisitCall(Cast<Call>(e));
        break;
      case ExprKind::kTuple: {
        Toks out;
        out.tuple = true;
        for (const Expr* field : Cast<Tuple>(e)->fields()) out.fields.push_back(*Lookup(field));
        toks_[e] = std::move(out);
        break;
      }
      case ExprKind::kTupleGetItem: {
        auto* item = Cast<TupleGetItem>(e);
        const Toks* tuple = Lookup(item->tuple());
        if (tuple->tuple && size_t(item->index()) < tuple->fields.size()) {
          Toks field = tuple->fields[item->index()];
          toks_[e] = std::move(field);
        }
        break;
      }
      case ExprKind::kLet: {
        Toks body = *Lookup(Cast<Let>(e)->body());
        toks_[e] = std::move(body);
        break;
      }
      default:
        break;  // vars, constants, ifs, functions: their own (fresh) dims
    }
  });
}

std::vector<int64_t> DimIdentity::ConstantDims(const Constant* constant) {
  auto it = assigned_.find(constant);
  if (it != assigned_.end()) return it->second;
  const Toks* own = Lookup(constant);
  if (own->dims.size() == constant->data().rank()) return own->dims;
  return FreshDims(constant->data().rank());
}

void DimIdentity::VisitCall(const Call* call) {
  const OpInfo* op = call->op();
  const TensorType* out_type = TensorOf(call);
  if (op == nullptr || op->type_rel == nullptr) return;  // fresh on lookup
  auto args = call->args();
  auto arg_dims = [&](size_t i) -> std::vector<int64_t> {
    const Toks* t = Lookup(args[i]);
    const TensorType* tt = TensorOf(args[i]);
    if (t->tuple || tt == nullptr || t->dims.size() != tt->rank()) return FreshDims(tt ? tt->rank() : 0);
    return t->dims;
  };
  const Attrs* attrs = call->attrs();
  auto set = [&](std::vector<int64_t> dims) {
    if (out_type != nullptr && dims.size() == out_type->rank()) toks_[call].dims = std::move(dims);
  };
  // ConcatenateRel / StackRel: the first field's objects, a new extent along
  // the axis (the sum, or the stacked count).
  if ((IsRel(op, &rel::Concatenate) || IsRel(op, &rel::Stack)) && attrs != nullptr &&
      args.size() == 1 && out_type != nullptr) {
    const Toks* fields = Lookup(args[0]);
    if (!fields->tuple || fields->fields.empty() || fields->fields[0].tuple) return;
    std::vector<int64_t> first = fields->fields[0].dims;
    bool stack = IsRel(op, &rel::Stack);
    size_t out_rank = first.size() + (stack ? 1 : 0);
    if (out_rank != out_type->rank()) return;
    int64_t axis = NormAxis(attrs->GetInt("axis"), out_rank);
    if (axis < 0 || axis >= int64_t(out_rank)) return;
    if (stack) {
      first.insert(first.begin() + axis, next_++);
    } else {
      first[axis] = next_++;
    }
    set(std::move(first));
    return;
  }
  const TensorType* data = args.empty() ? nullptr : TensorOf(args[0]);
  if (data == nullptr) return;
  size_t rank = data->rank();

  // The output type is the input's, or a new type over the input's shape
  // Array (IdentityRel, CastRel, IdentityCompRel, qnn quantize / dequantize
  // / requantize).
  if (IsRel(op, &rel::Identity) || IsRel(op, &rel::IdentityComp) || IsRel(op, &rel::Cast) ||
      IsRel(op, &rel::Softmax)) {
    set(arg_dims(0));
    return;
  }
  // QNN's AssignType: a per-channel (non-scalar) input scale and zero point
  // are given the type (data[axis],).
  if ((IsRel(op, &rel::QnnQuantize) || IsRel(op, &rel::QnnDequantize) ||
       IsRel(op, &rel::QnnRequantize)) && attrs != nullptr) {
    std::vector<int64_t> d = arg_dims(0);
    int64_t axis = NormAxis(attrs->GetInt("axis", -1), rank);
    if (axis >= 0 && axis < int64_t(rank)) {
      for (size_t i = 1; i < 3 && i < args.size(); ++i) Assign(args[i], {d[axis]});
    }
    set(std::move(d));
    return;
  }
  if (IsRel(op, &rel::Dropout)) {
    Toks out;
    out.tuple = true;
    out.fields.push_back(Toks{false, arg_dims(0), {}});
    out.fields.push_back(Toks{false, arg_dims(0), {}});
    toks_[call] = std::move(out);
    return;
  }
  // ConcreteBroadcast: from the last dim, an extent 1 takes the other side's
  // object (the rhs's when both are 1), a `?` the other side's, equal
  // extents the lhs's; extra leading dims come from the longer shape.
  if ((IsRel(op, &rel::Broadcast) || IsRel(op, &rel::BroadcastComp) || IsRel(op, &rel::QnnAdd)) &&
      args.size() >= 2 && TensorOf(args[1]) != nullptr) {
    const TensorType* rhs = TensorOf(args[1]);
    std::vector<int64_t> a = arg_dims(0), b = arg_dims(1);
    size_t n1 = rank, n2 = rhs->rank(), n = std::max(n1, n2);
    std::vector<int64_t> out(n);
    for (size_t i = 1; i <= n; ++i) {
      int64_t pick;
      if (i <= n1 && i <= n2) {
        int64_t s1 = data->shape()[n1 - i].value, s2 = rhs->shape()[n2 - i].value;
        bool any1 = s1 == Dim::kAny;
        pick = s1 == 1 ? b[n2 - i] : s2 == 1 ? a[n1 - i] : any1 ? b[n2 - i] : a[n1 - i];
      } else {
        pick = n1 > n2 ? a[n1 - i] : b[n2 - i];
      }
      out[n - i] = pick;
    }
    set(std::move(out));
    return;
  }
  // Relations that give an input a type built from the data's axis extent
  // (BiasAddRel, PReluRel, BatchNormRel, LayerNormRel, InstanceNormRel).
  bool per_axis = IsRel(op, &rel::BiasAdd) || IsRel(op, &rel::PRelu) ||
                  IsRel(op, &rel::BatchNorm) || IsRel(op, &rel::LayerNorm) ||
                  IsRel(op, &rel::InstanceNorm);
  if (per_axis && attrs != nullptr && rank > 0) {
    int64_t axis = NormAxis(attrs->GetInt("axis"), rank);
    if (axis < 0 || axis >= int64_t(rank)) return;
    std::vector<int64_t> d = arg_dims(0);
    for (size_t i = 1; i < args.size(); ++i) Assign(args[i], {d[axis]});
    if (IsRel(op, &rel::BatchNorm)) {
      Toks out;
      out.tuple = true;
      out.fields.push_back(Toks{false, d, {}});
      out.fields.push_back(Toks{false, {d[axis]}, {}});
      out.fields.push_back(Toks{false, {d[axis]}, {}});
      toks_[call] = std::move(out);
    } else {
      set(d);
    }
    return;
  }
  // DenseRel: with `units`, the weight is (units, data[-1]) and the output's
  // last extent is the units object; without, the weight's first extent.
  if ((IsRel(op, &rel::Dense) || IsRel(op, &rel::QnnDense)) && attrs != nullptr &&
      args.size() >= 2 && rank > 0) {
    std::vector<int64_t> d = arg_dims(0);
    const AttrValue* units = attrs->Find("units");
    int64_t last;
    if (units != nullptr && !units->is_null()) {
      last = next_++;
      Assign(args[1], {last, d[rank - 1]});
      // QnnDenseRel: a per-channel kernel scale is (units,).
      if (IsRel(op, &rel::QnnDense) && args.size() == 6) Assign(args[5], {last});
    } else {
      std::vector<int64_t> w = arg_dims(1);
      if (w.empty()) return;
      last = w[0];
    }
    d[rank - 1] = last;
    set(std::move(d));
    return;
  }
  // MatmulRel: the reduced extent is a[-1] (a[-2] transposed); with `units`
  // tensor_b is (reduce, units) or, transposed, (units, reduce).
  if (IsRel(op, &rel::Matmul) && attrs != nullptr && args.size() >= 2 && rank >= 2) {
    std::vector<int64_t> d = arg_dims(0);
    bool ta = attrs->GetInt("transpose_a") != 0, tb = attrs->GetInt("transpose_b") != 0;
    int64_t reduce = ta ? d[rank - 2] : d[rank - 1];
    if (ta) d[rank - 2] = d[rank - 1];
    const AttrValue* units = attrs->Find("units");
    if (units != nullptr && !units->is_null()) {
      int64_t u = next_++;
      Assign(args[1], tb ? std::vector<int64_t>{u, reduce} : std::vector<int64_t>{reduce, u});
      d[rank - 1] = u;
    } else {
      std::vector<int64_t> w = arg_dims(1);
      if (w.size() != 2) return;
      d[rank - 1] = tb ? w[0] : w[1];
    }
    set(std::move(d));
    return;
  }
  // Conv2DRel and its 1-d / 3-d forms: with channels and kernel_size the
  // weight is (channels, C / groups, kernel...) in the kernel layout (a
  // depthwise weight starts with the data's C); the output's channel
  // extent is the channels object (else the weight's O), N is the data's.
  // The transposed forms (Conv2DTransposeRel, ...) build the weight as
  // (C, channels / groups, kernel...) in IOHW terms, and without channels the
  // output's channel extent is the weight's O.
  bool transposed = IsRel(op, &rel::Conv1DTranspose) || IsRel(op, &rel::Conv2DTranspose) ||
                    IsRel(op, &rel::Conv3DTranspose);
  bool conv = IsRel(op, &rel::Conv1D) || IsRel(op, &rel::Conv2D) || IsRel(op, &rel::Conv3D) ||
              IsRel(op, &rel::QnnConv2D) || transposed;
  if (conv && attrs != nullptr && args.size() >= 2) {
    std::string_view spatial = rank == 3 ? "W" : rank == 4 ? "HW" : "DHW";
    std::string_view dl = attrs->GetString("data_layout");
    std::string_view kl = attrs->GetString("kernel_layout");
    std::string_view ol = attrs->GetString("out_layout");
    if (ol.empty()) ol = dl;
    int n = Pos(dl, 'N', rank), c = Pos(dl, 'C', rank);
    int on = Pos(ol, 'N', rank), oc = Pos(ol, 'C', rank);
    int ko = Pos(kl, 'O', rank), ki = Pos(kl, 'I', rank);
    if (n < 0 || c < 0 || on < 0 || oc < 0 || ko < 0 || ki < 0) return;
    std::vector<int64_t> d = arg_dims(0);
    const AttrValue* channels = attrs->Find("channels");
    const AttrValue* kernel = attrs->Find("kernel_size");
    int64_t out_c;
    if (channels != nullptr && !channels->is_null() && kernel != nullptr && !kernel->is_null() &&
        kernel->as_array().size() == spatial.size()) {
      out_c = next_++;
      int64_t groups = attrs->GetInt("groups", 1);
      bool depthwise = !transposed && groups > 1 && data->shape()[c].value == groups &&
                       channels->as_int() == groups;
      std::vector<int64_t> w(rank);
      if (transposed) {
        w[ki] = d[c];
        w[ko] = next_++;
      } else {
        w[ko] = depthwise ? d[c] : out_c;
        w[ki] = next_++;
      }
      for (size_t s = 0; s < spatial.size(); ++s) {
        int k = Pos(kl, spatial[s], rank);
        if (k < 0) return;
        w[k] = next_++;  // the kernel_size attribute's own IntImm
      }
      Assign(args[1], std::move(w));
    } else {
      std::vector<int64_t> w = arg_dims(1);
      if (w.size() != rank) return;
      out_c = w[ko];
    }
    std::vector<int64_t> out = FreshDims(rank);
    out[on] = d[n];
    out[oc] = out_c;
    set(std::move(out));
    return;
  }
  // Pool2DRel and friends: N and C are the data's objects, the rest new.
  bool pool = IsRel(op, &rel::Pool1D) || IsRel(op, &rel::Pool2D) || IsRel(op, &rel::Pool3D) ||
              IsRel(op, &rel::GlobalPool2D) || IsRel(op, &rel::AdaptivePool2D);
  if (pool && attrs != nullptr) {
    std::string_view layout = attrs->GetString("layout");
    std::string_view out_layout = attrs->GetString("out_layout");
    if (out_layout.empty()) out_layout = layout;
    int n = Pos(layout, 'N', rank), c = Pos(layout, 'C', rank);
    int on = Pos(out_layout, 'N', rank), oc = Pos(out_layout, 'C', rank);
    if (n < 0 || c < 0 || on < 0 || oc < 0) return;
    std::vector<int64_t> d = arg_dims(0);
    std::vector<int64_t> out = FreshDims(rank);
    out[on] = d[n];
    out[oc] = d[c];
    set(std::move(out));
    return;
  }
  if (IsRel(op, &rel::BatchFlatten) && rank > 0) {
    set({arg_dims(0)[0], next_++});
    return;
  }
  // TransposeRel: the data's objects permuted (reversed without axes).
  if (IsRel(op, &rel::Transpose) && attrs != nullptr) {
    std::vector<int64_t> d = arg_dims(0);
    std::vector<int64_t> out(rank);
    auto axes = attrs->GetInts("axes");
    for (size_t i = 0; i < rank; ++i) {
      int64_t a = axes && axes->size() == rank ? NormAxis((*axes)[i], rank) : int64_t(rank - 1 - i);
      if (a < 0 || a >= int64_t(rank)) return;
      out[i] = d[a];
    }
    set(std::move(out));
    return;
  }
  // ReduceRel: kept extents keep their objects, keepdims' 1s are new.
  if ((IsRel(op, &rel::Reduce) || IsRel(op, &rel::ArgReduce) || IsRel(op, &rel::Variance)) &&
      attrs != nullptr && out_type != nullptr) {
    std::vector<bool> reduced(rank, false);
    auto axes = attrs->GetInts("axis");
    if (!axes) {
      reduced.assign(rank, true);
    } else {
      for (int64_t a : *axes) {
        a = NormAxis(a, rank);
        if (a < 0 || a >= int64_t(rank)) return;
        reduced[a] = true;
      }
    }
    if (attrs->Find("exclude") && attrs->GetInt("exclude")) reduced.flip();
    bool keep = attrs->GetInt("keepdims") != 0;
    std::vector<int64_t> d = arg_dims(0), out;
    for (size_t i = 0; i < rank; ++i) {
      if (!reduced[i]) out.push_back(d[i]);
      else if (keep) out.push_back(next_++);
    }
    set(std::move(out));
    return;
  }
  // ExpandDimsRel / SqueezeRel: the kept extents keep their objects.
  if (IsRel(op, &rel::ExpandDims) && attrs != nullptr) {
    int64_t axis = attrs->GetInt("axis");
    int64_t count = attrs->GetInt("num_newaxis", 1);
    int64_t pivot = axis < 0 ? axis + int64_t(rank) + count : axis;
    if (pivot < 0 || pivot > int64_t(rank) || count < 0) return;
    std::vector<int64_t> d = arg_dims(0);
    std::vector<int64_t> out(d.begin(), d.begin() + pivot);
    for (int64_t i = 0; i < count; ++i) out.push_back(next_++);
    out.insert(out.end(), d.begin() + pivot, d.end());
    set(std::move(out));
    return;
  }
  if (IsRel(op, &rel::Squeeze) && attrs != nullptr) {
    std::vector<bool> drop(rank, false);
    auto axes = attrs->GetInts("axis");
    for (size_t i = 0; i < rank; ++i) drop[i] = !axes && data->shape()[i].value == 1;
    if (axes) {
      for (int64_t a : *axes) {
        a = NormAxis(a, rank);
        if (a < 0 || a >= int64_t(rank)) return;
        drop[a] = true;
      }
    }
    std::vector<int64_t> d = arg_dims(0), out;
    for (size_t i = 0; i < rank; ++i) {
      if (!drop[i]) out.push_back(d[i]);
    }
    set(std::move(out));
    return;
  }
  // SplitRel: every part keeps the data's objects but along the axis.
  if (IsRel(op, &rel::Split) && attrs != nullptr) {
    auto* tuple = DynCast<TupleType>(call->checked_type());
    int64_t axis = NormAxis(attrs->GetInt("axis"), rank);
    if (tuple == nullptr || axis < 0 || axis >= int64_t(rank)) return;
    std::vector<int64_t> d = arg_dims(0);
    Toks out;
    out.tuple = true;
    for (size_t i = 0; i < tuple->fields().size(); ++i) {
      std::vector<int64_t> part = d;
      part[axis] = next_++;
      out.fields.push_back(Toks{false, std::move(part), {}});
    }
    toks_[call] = std::move(out);
    return;
  }
  // TakeRel: data extents around the axis, the indices' extents in between
  // (only the indices' without an axis).
  if (IsRel(op, &rel::Take) && attrs != nullptr && args.size() >= 2) {
    const TensorType* indices = TensorOf(args[1]);
    const AttrValue* axis_value = attrs->Find("axis");
    if (indices == nullptr || attrs->GetInt("batch_dims") != 0) return;
    std::vector<int64_t> ind = arg_dims(1);
    if (axis_value == nullptr || axis_value->is_null()) {
      set(std::move(ind));
      return;
    }
    int64_t axis = NormAxis(axis_value->as_int(), rank);
    if (axis < 0 || axis >= int64_t(rank)) return;
    std::vector<int64_t> d = arg_dims(0);
    std::vector<int64_t> out(d.begin(), d.begin() + axis);
    out.insert(out.end(), ind.begin(), ind.end());
    out.insert(out.end(), d.begin() + axis + 1, d.end());
    set(std::move(out));
    return;
  }
  // ReshapeRel (InferNewShape): 0 and -2 copy the data's objects.
  if (IsRel(op, &rel::Reshape) && attrs != nullptr) {
    auto newshape = attrs->GetInts("newshape");
    if (!newshape) return;
    std::vector<int64_t> d = arg_dims(0), out;
    size_t src = 0;
    for (size_t i = 0; i < newshape->size(); ++i) {
      int64_t v = (*newshape)[i];
      if (v == 0 && src < rank) {
        out.push_back(d[src++]);
      } else if (v == -2) {
        while (src < rank) out.push_back(d[src++]);
      } else if (v == -3) {
        out.push_back(next_++);
        src += 2;
      } else if (v == -4) {
        out.push_back(next_++);
        out.push_back(next_++);
        i += 2;
        ++src;
      } else {
        out.push_back(next_++);
        ++src;
      }
    }
    set(std::move(out));
  }
}

}  // namespace carve::print_internal
