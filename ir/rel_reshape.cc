// reshape (TVM's ReshapeRel and InferNewShape), with its special newshape
// values:
//   > 0  a literal dim          0  copy the input dim (literal 0 with allowzero)
//   -1   infer (at most one)    -2 copy all remaining input dims
//   -3   merge two input dims   -4 split one input dim into the next two values
#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// The walk over newshape: `out` receives the output dims; dims copied or
// derived from the input (0, -2, -3, -4) are marked in `derived_out`, and
// the input dims they consume in `derived_in`; they do not take part in
// inferring -1.
struct NewShape {
  Shape out;
  std::vector<bool> derived_out;
  std::vector<bool> derived_in;
  int infer_index = -1;

  void Push(Dim d, bool derived) {
    out.push_back(d);
    derived_out.push_back(derived);
  }
};

absl::Status SplitDim(std::span<const int64_t> newshape, size_t& i, Dim d0, NewShape& ns) {
  if (i + 2 >= newshape.size()) {
    return Error("-4 in newshape {} must be followed by two values", IntsToString(newshape));
  }
  int64_t d1 = newshape[++i];
  int64_t d2 = newshape[++i];
  if (d1 == -1 && d2 == -1) return Error("-4 split dims cannot both be -1");
  if (d1 == 0 || d2 == 0 || d1 < -1 || d2 < -1) {
    return Error("-4 split dims must be positive or -1, got {} and {}", d1, d2);
  }
  auto inferred = [&](int64_t other) {
    return d0.is_any() ? Dim::Any() : Computed(FloorDiv(d0.value, other), {d0});
  };
  ns.Push(d1 == -1 ? inferred(d2) : D(d1), true);
  ns.Push(d2 == -1 ? inferred(d1) : D(d2), true);
  return absl::OkStatus();
}

absl::StatusOr<NewShape> WalkNewShape(std::span<const Dim> in, std::span<const int64_t> newshape,
                                      bool allowzero) {
  NewShape ns;
  ns.derived_in.assign(in.size(), false);
  size_t src = 0;
  auto need = [&](size_t count, int64_t value) -> absl::Status {
    if (src + count > in.size()) {
      return Error("newshape {} reads past the input shape {} at {}", IntsToString(newshape),
                   ShapeToString(in), value);
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < newshape.size(); ++i) {
    int64_t v = newshape[i];
    if (v > 0 || (v == 0 && allowzero)) {
      ns.Push(D(v), false);
      ++src;
    } else if (v == 0) {
      CARVE_RETURN_IF_ERROR(need(1, v));
      ns.derived_in[src] = true;
      ns.Push(in[src++], true);
    } else if (v == -1) {
      if (ns.infer_index >= 0)
        return Error("newshape {} has more than one -1", IntsToString(newshape));
      ns.infer_index = static_cast<int>(ns.out.size());
      ns.Push(D(1), false);
      ++src;
    } else if (v == -2) {
      for (; src < in.size(); ++src) {
        ns.derived_in[src] = true;
        ns.Push(in[src], true);
      }
    } else if (v == -3) {
      CARVE_RETURN_IF_ERROR(need(2, v));
      Dim a = in[src], b = in[src + 1];
      ns.derived_in[src] = ns.derived_in[src + 1] = true;
      src += 2;
      if (a.is_any() || b.is_any()) {
        ns.Push(Dim::Any(), true);
      } else {
        CARVE_ASSIGN_OR_RETURN(int64_t merged, CheckedMul(a.value, b.value));
        ns.Push(Computed(merged, {a, b}), true);
      }
    } else if (v == -4) {
      CARVE_RETURN_IF_ERROR(need(1, v));
      ns.derived_in[src] = true;
      CARVE_RETURN_IF_ERROR(SplitDim(newshape, i, in[src++], ns));
    } else {
      return Error("unsupported special value {} in newshape", v);
    }
  }
  return ns;
}

// The -1 dim: the product of the input dims not consumed by 0/-2/-3/-4,
// divided by every output dim not produced by them.
absl::Status InferDim(std::span<const Dim> in, NewShape& ns) {
  if (ns.infer_index < 0) return absl::OkStatus();
  int64_t numerator = 1;
  bool wide = false;
  for (size_t i = 0; i < in.size(); ++i) {
    if (ns.derived_in[i]) continue;
    if (in[i].is_any()) {
      ns.out[ns.infer_index] = Dim::Any();
      return absl::OkStatus();
    }
    CARVE_ASSIGN_OR_RETURN(numerator, CheckedMul(numerator, in[i].value));
    wide |= in[i].wide;
  }
  for (size_t i = 0; i < ns.out.size(); ++i) {
    if (ns.derived_out[i] || static_cast<int>(i) == ns.infer_index) continue;
    if (ns.out[i].is_any()) {
      ns.out[ns.infer_index] = Dim::Any();
      return absl::OkStatus();
    }
    if (ns.out[i].value == 0) return Error("cannot infer the -1 dim next to a 0-sized dim");
    numerator = FloorDiv(numerator, ns.out[i].value);
  }
  ns.out[ns.infer_index] = Dim{numerator, wide};
  return absl::OkStatus();
}

// Product of the dims, or nullopt when one is `?`.
absl::StatusOr<std::optional<int64_t>> NumElements(std::span<const Dim> shape) {
  int64_t n = 1;
  for (Dim d : shape) {
    if (d.is_any()) return std::nullopt;
    CARVE_ASSIGN_OR_RETURN(n, CheckedMul(n, d.value));
  }
  return n;
}

}  // namespace

absl::StatusOr<const Type*> Reshape(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> newshape, attrs.Ints("newshape"));
  CARVE_ASSIGN_OR_RETURN(bool allowzero, attrs.Bool("allowzero"));
  CARVE_ASSIGN_OR_RETURN(NewShape ns, WalkNewShape(data->shape(), newshape, allowzero));
  CARVE_RETURN_IF_ERROR(InferDim(data->shape(), ns));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> in_count, NumElements(data->shape()));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> out_count, NumElements(ns.out));
  if (in_count && out_count && *in_count != *out_count) {
    return Error("cannot reshape {} ({} elements) to {} ({} elements)",
                 ShapeToString(data->shape()), *in_count, ShapeToString(ns.out), *out_count);
  }
  return TensorTy(data->dtype(), ns.out);
}

}  // namespace carve::rel
