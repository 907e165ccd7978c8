// Relations of indexing, sequence and sorting ops (TVM's transform.cc,
// unary.cc and algorithm/): tile, reverse, reverse_sequence, one_hot,
// shape_of, ndarray_size, gather_nd, scatter_nd, sequence_mask, meshgrid,
// trilu, matrix_set_diag, unravel_index, adv_index, argwhere, unique, arange,
// argsort, sort, searchsorted.
#include <algorithm>

#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// Fails unless `t` has an integer dtype.
absl::Status ExpectIntegral(const TensorType* t, std::string_view what) {
  if (!t->dtype().is_integral()) {
    return Error("{} must be integers, got {}", what, TypeToString(t));
  }
  return absl::OkStatus();
}

// A dtype attribute, `fallback` when unset.
absl::StatusOr<DataType> DTypeOr(const TypeRelCall& call, std::string_view name,
                                 DataType fallback) {
  CARVE_ASSIGN_OR_RETURN(DataType dtype, AttrReader(call).DType(name));
  return dtype.is_void() ? fallback : dtype;
}

}  // namespace

// tile(data, reps): rank max(ndim, len(reps)); both padded with leading 1s,
// then multiplied dim by dim.
absl::StatusOr<const Type*> Tile(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> reps, AttrReader(call).Ints("reps"));
  for (int64_t r : reps) {
    if (r < 1) return Error("reps {} must be positive", IntsToString(reps));
  }
  const size_t rank = std::max(data->rank(), reps.size());
  Shape out;
  for (size_t i = 0; i < rank; ++i) {
    size_t di = i + data->rank(), ri = i + reps.size();
    Dim d = di >= rank ? data->shape()[di - rank] : D(1);
    int64_t r = ri >= rank ? reps[ri - rank] : 1;
    if (d.is_any()) {
      out.push_back(d);
    } else {
      CARVE_ASSIGN_OR_RETURN(int64_t v, CheckedMul(d.value, r));
      out.push_back(Computed(v, {d}));
    }
  }
  return TensorTy(data->dtype(), out);
}

// reverse(data, axis): data's type.
absl::StatusOr<const Type*> Reverse(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> axis, AttrReader(call).OptInt("axis"));
  if (!axis) return Error("attribute 'axis' must be set");
  CARVE_RETURN_IF_ERROR(NormalizeAxis(*axis, data->rank()).status());
  return data;
}

// reverse_sequence(data, seq_lengths): data's type; seq_lengths is 1-d with
// the batch axis' extent.
absl::StatusOr<const Type*> ReverseSequence(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* lengths, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(ExpectIntegral(lengths, "seq_lengths"));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> seq_axis, attrs.OptInt("seq_axis"));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> batch_axis, attrs.OptInt("batch_axis"));
  CARVE_RETURN_IF_ERROR(NormalizeAxis(seq_axis.value_or(1), data->rank(), "seq_axis").status());
  CARVE_ASSIGN_OR_RETURN(int64_t batch,
                         NormalizeAxis(batch_axis.value_or(0), data->rank(), "batch_axis"));
  if (lengths->rank() != 1 || !DimMatches(lengths->shape()[0], data->shape()[batch])) {
    return Error("seq_lengths must be 1-d with the batch axis' extent, got {}",
                 TypeToString(lengths));
  }
  return data;
}

// one_hot(indices, on_value, off_value): indices' shape with a `depth` axis
// inserted at `axis`, in `dtype`.
absl::StatusOr<const Type*> OneHot(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* indices, TensorArg(call, 0));
  CARVE_RETURN_IF_ERROR(ExpectIntegral(indices, "indices"));
  for (size_t i = 1; i < 3; ++i) {
    CARVE_ASSIGN_OR_RETURN(const TensorType* v, TensorArg(call, i));
    if (v->rank() != 0)
      return Error("{} must be a scalar, got {}", ArgName(call, i), TypeToString(v));
  }
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t depth, attrs.Int("depth"));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, attrs.Int("axis"));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, attrs.DType("dtype"));
  if (dtype.is_void()) return Error("attribute 'dtype' must be set");
  if (depth < 1) return Error("depth must be positive, got {}", depth);
  const int64_t rank = int64_t(indices->rank()) + 1;
  int64_t at = axis == -1 ? rank - 1 : axis;
  if (at < 0 || at >= rank) return Error("axis {} is out of range for rank {}", axis, rank);
  Shape out(indices->shape().begin(), indices->shape().end());
  out.insert(out.begin() + at, D(depth));
  return TensorTy(dtype, out);
}

// shape_of(data, dtype): a 1-d tensor of the data's rank.
absl::StatusOr<const Type*> ShapeOf(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, DTypeOr(call, "dtype", DataType::Int(32)));
  return TensorTy(dtype, Shape{D(int64_t(data->rank()))});
}

// ndarray_size(data, dtype): a scalar.
absl::StatusOr<const Type*> NdarraySize(const TypeRelCall& call) {
  CARVE_RETURN_IF_ERROR(TensorArg(call, 0).status());
  CARVE_ASSIGN_OR_RETURN(DataType dtype, DTypeOr(call, "dtype", DataType::Int(32)));
  return ScalarTy(dtype);
}

// gather_nd(data, indices): indices (M, Y...) pick data's first M axes
// (after batch_dims); the output is (Y..., data's remaining dims).
absl::StatusOr<const Type*> GatherND(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* indices, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(ExpectIntegral(indices, "indices"));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> batch_dims, AttrReader(call).OptInt("batch_dims"));
  const int64_t b = batch_dims.value_or(0);
  if (indices->rank() < 1 || indices->shape()[0].is_any()) {
    return Error("indices must have a static first dim, got {}", TypeToString(indices));
  }
  const int64_t m = indices->shape()[0].value;
  if (b < 0 || m + b > int64_t(data->rank())) {
    return Error("indices pick {} axes after {} batch dims of a rank-{} tensor", m, b,
                 data->rank());
  }
  Shape out(indices->shape().begin() + 1, indices->shape().end());
  out.insert(out.end(), data->shape().begin() + m + b, data->shape().end());
  return TensorTy(data->dtype(), out);
}

// scatter_nd(data, indices, updates): data's type; indices (M, Y...) and
// updates (Y..., data dims from M on).
absl::StatusOr<const Type*> ScatterND(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* indices, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(const TensorType* updates, TensorArg(call, 2));
  CARVE_RETURN_IF_ERROR(ExpectIntegral(indices, "indices"));
  if (indices->rank() < 1 || indices->shape()[0].is_any()) {
    return Error("indices must have a static first dim, got {}", TypeToString(indices));
  }
  const size_t m = size_t(indices->shape()[0].value);
  if (m > data->rank()) return Error("indices pick {} axes of a rank-{} tensor", m, data->rank());
  Shape expect(indices->shape().begin() + 1, indices->shape().end());
  expect.insert(expect.end(), data->shape().begin() + m, data->shape().end());
  CARVE_RETURN_IF_ERROR(ExpectType(updates, data->dtype(), expect, "updates"));
  return data;
}

// sequence_mask(data, valid_length): data's type; valid_length has the
// batch extent (axis 1 - axis).
absl::StatusOr<const Type*> SequenceMask(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* lengths, TensorArg(call, 1));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, AttrReader(call).Int("axis"));
  if ((axis != 0 && axis != 1) || data->rank() < 2) {
    return Error("axis must be 0 or 1 of a tensor of rank >= 2, got axis {} of rank {}", axis,
                 data->rank());
  }
  CARVE_RETURN_IF_ERROR(ExpectType(lengths, lengths->dtype(),
                                   std::vector<Dim>{data->shape()[1 - axis]}, "valid_length"));
  return data;
}

// meshgrid((x0, x1, ...)): one grid per input, of the inputs' extents (a
// scalar counts 1; "xy" swaps the first two).
absl::StatusOr<const Type*> Meshgrid(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(std::vector<const TensorType*> ts, TensorTupleArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::string_view indexing, AttrReader(call).String("indexing"));
  if (indexing != "ij" && indexing != "xy") {
    return Error("indexing must be \"ij\" or \"xy\", got \"{}\"", indexing);
  }
  if (ts.empty()) return Error("meshgrid needs at least one tensor");
  Shape grid;
  for (const TensorType* t : ts) {
    if (t->dtype() != ts[0]->dtype()) return Error("all tensors must have one dtype");
    if (t->rank() > 1) return Error("tensors must be scalars or 1-d, got {}", TypeToString(t));
    grid.push_back(t->rank() == 0 ? D(1) : t->shape()[0]);
  }
  if (indexing == "xy" && grid.size() >= 2) std::swap(grid[0], grid[1]);
  std::vector<const Type*> fields(ts.size(), TensorTy(ts[0]->dtype(), grid));
  return TupleTy(fields);
}

// trilu(data, k): data's type; k is a scalar integer.
absl::StatusOr<const Type*> Trilu(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* k, TensorArg(call, 1));
  if (k->rank() != 0 || !k->dtype().is_integral()) {
    return Error("k must be an integer scalar, got {}", TypeToString(k));
  }
  if (data->rank() < 2) return Error("data must have rank >= 2, got {}", TypeToString(data));
  return data;
}

// matrix_set_diag(input, diagonal): input's type.
absl::StatusOr<const Type*> MatrixSetDiag(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* input, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* diag, TensorArg(call, 1));
  AttrReader attrs(call);
  CARVE_ASSIGN_OR_RETURN(int64_t k1, attrs.Int("k1"));
  CARVE_ASSIGN_OR_RETURN(int64_t k2, attrs.Int("k2"));
  if (input->rank() < 2 || k1 > k2) {
    return Error("input must have rank >= 2 and k1 <= k2, got {} with k1 {}, k2 {}",
                 TypeToString(input), k1, k2);
  }
  const size_t lead = input->rank() - 2;
  const size_t want = k1 == k2 ? input->rank() - 1 : input->rank();
  if (diag->rank() != want || diag->dtype() != input->dtype()) {
    return Error("diagonal must be {} of rank {}, got {}", input->dtype().ToString(), want,
                 TypeToString(diag));
  }
  for (size_t i = 0; i < lead; ++i) {
    if (!DimMatches(diag->shape()[i], input->shape()[i])) {
      return Error("diagonal's batch dims must match the input's, got {}", TypeToString(diag));
    }
  }
  return input;
}

// unravel_index(indices, shape): (len(shape),) or (len(shape), n).
absl::StatusOr<const Type*> UnravelIndex(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* indices, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* shape, TensorArg(call, 1));
  CARVE_RETURN_IF_ERROR(ExpectIntegral(indices, "indices"));
  if (indices->rank() > 1 || shape->rank() != 1) {
    return Error("indices must be a scalar or 1-d and shape 1-d, got {} and {}",
                 TypeToString(indices), TypeToString(shape));
  }
  Shape out{shape->shape()[0]};
  if (indices->rank() == 1) out.push_back(indices->shape()[0]);
  return TensorTy(indices->dtype(), out);
}

// adv_index((data, i0, i1, ...)): the indices broadcast together, then the
// data's dims after the indexed ones.
absl::StatusOr<const Type*> AdvIndex(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(std::vector<const TensorType*> ts, TensorTupleArg(call, 0));
  if (ts.size() < 2) return Error("adv_index needs the data and at least one index tensor");
  const TensorType* data = ts[0];
  if (ts.size() - 1 > data->rank()) {
    return Error("{} index tensors for a rank-{} tensor", ts.size() - 1, data->rank());
  }
  Shape joint;
  for (size_t i = 1; i < ts.size(); ++i) {
    CARVE_RETURN_IF_ERROR(ExpectIntegral(ts[i], "indices"));
    CARVE_ASSIGN_OR_RETURN(joint, BroadcastShapes(joint, ts[i]->shape()));
  }
  joint.insert(joint.end(), data->shape().begin() + (ts.size() - 1), data->shape().end());
  return TensorTy(data->dtype(), joint);
}

// argwhere(condition): (?, rank) int32.
absl::StatusOr<const Type*> ArgWhere(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* cond, TensorArg(call, 0));
  return TensorTy(DataType::Int(32), Shape{Dim::Any(), D(int64_t(cond->rank()))});
}

// unique(data): (unique, indices, inverse_indices, num_unique[, counts]),
// each of the 1-d data's extent but num_unique (1,).
absl::StatusOr<const Type*> Unique(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  if (data->rank() != 1) return Error("data must be 1-d, got {}", TypeToString(data));
  CARVE_ASSIGN_OR_RETURN(bool counts, AttrReader(call).Bool("return_counts"));
  const TensorType* ints = TensorTy(DataType::Int(32), data->shape());
  std::vector<const Type*> fields{data, ints, ints, TensorTy(DataType::Int(32), Shape{D(1)})};
  if (counts) fields.push_back(ints);
  return TupleTy(fields);
}

// arange(start, stop, step, dtype): a 1-d tensor of unknown extent (TVM
// computes it only from constant attrs, which carve's text never holds).
absl::StatusOr<const Type*> Arange(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(DataType dtype, DTypeOr(call, "dtype", DataType::Float(32)));
  for (size_t i = 0; i < 3; ++i) {
    CARVE_ASSIGN_OR_RETURN(const TensorType* t, TensorArg(call, i));
    CARVE_RETURN_IF_ERROR(ExpectType(t, dtype, {}, ArgName(call, i)));
  }
  return TensorTy(dtype, Shape{Dim::Any()});
}

// argsort(data): data's shape in `dtype` (int32 when unset).
absl::StatusOr<const Type*> Argsort(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, AttrReader(call).Int("axis"));
  CARVE_RETURN_IF_ERROR(NormalizeAxis(axis, data->rank()).status());
  CARVE_ASSIGN_OR_RETURN(DataType dtype, DTypeOr(call, "dtype", DataType::Int(32)));
  return TensorTy(dtype, data->shape());
}

// sort(data): data's type.
absl::StatusOr<const Type*> Sort(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, AttrReader(call).Int("axis"));
  CARVE_RETURN_IF_ERROR(NormalizeAxis(axis, data->rank()).status());
  return data;
}

// searchsorted(sorted_sequence, values): values' shape in `dtype`; the
// sequence is 1-d or shares the values' leading dims.
absl::StatusOr<const Type*> SearchSorted(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* seq, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(const TensorType* values, TensorArg(call, 1));
  if (seq->rank() == 0 || values->rank() == 0) {
    return Error("sorted_sequence and values must have rank >= 1");
  }
  if (seq->rank() > 1) {
    bool ok = seq->rank() == values->rank();
    for (size_t i = 0; ok && i + 1 < seq->rank(); ++i) {
      ok = DimMatches(seq->shape()[i], values->shape()[i]);
    }
    if (!ok) {
      return Error("sorted_sequence {} and values {} must share their leading dims",
                   TypeToString(seq), TypeToString(values));
    }
  }
  CARVE_ASSIGN_OR_RETURN(DataType dtype, DTypeOr(call, "dtype", DataType::Int(32)));
  return TensorTy(dtype, values->shape());
}

}  // namespace carve::rel

#include "ir/einsum_equation.h"

namespace carve::rel {

// einsum((x0, x1, ...), equation): the equation's output shape, in the
// first operand's dtype (all operands share it).
absl::StatusOr<const Type*> Einsum(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(std::vector<const TensorType*> ts, TensorTupleArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::string_view equation, AttrReader(call).String("equation"));
  CARVE_ASSIGN_OR_RETURN(EinsumEquation eq, ParseEinsumEquation(equation, ts.size()));
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorType* t : ts) {
    if (t->dtype() != ts[0]->dtype()) return Error("all operands must have one dtype");
    std::vector<int64_t> s;
    for (Dim d : t->shape()) s.push_back(d.is_any() ? -1 : d.value);
    shapes.push_back(std::move(s));
  }
  CARVE_ASSIGN_OR_RETURN(EinsumDims dims, BindEinsumDims(eq, shapes));
  Shape out;
  for (int64_t d : dims.output) out.push_back(d == -1 ? Dim::Any() : D(d));
  return TensorTy(ts[0]->dtype(), out);
}

}  // namespace carve::rel
