// Dimension sharing of the shape and data-movement relations
// (rel_transform.cc, rel_reshape.cc, rel_reduce.cc, rel_gather_scatter.cc).
#include "ir/dim_sharing_internal.h"
#include "ir/type_relations.h"

namespace carve::dim_sharing {

// ConcatenateRel / StackRel: the first field's objects, a new extent along
// the axis (the sum, or the stacked count).
void ConcatenateOrStack(DimSharingCall& c) {
  const TensorType* out_type = c.out_type();
  if (c.attrs() == nullptr || c.args().size() != 1 || out_type == nullptr) return;
  const DimTokens& fields = c.ArgTokens(0);
  if (!fields.tuple || fields.fields.empty() || fields.fields[0].tuple) return;
  std::vector<int64_t> first = fields.fields[0].dims;
  bool stack = c.call()->op()->type_rel == &rel::Stack;
  size_t out_rank = first.size() + (stack ? 1 : 0);
  if (out_rank != out_type->rank()) return;
  int64_t axis = NormAxis(c.attrs()->GetInt("axis"), out_rank);
  if (axis < 0 || axis >= int64_t(out_rank)) return;
  if (stack) {
    first.insert(first.begin() + axis, c.Fresh());
  } else {
    first[axis] = c.Fresh();
  }
  c.SetOut(std::move(first));
}

// TransposeRel: the data's objects permuted (reversed without axes).
void Transpose(DimSharingCall& c) {
  const TensorType* data = c.data();
  if (data == nullptr || c.attrs() == nullptr) return;
  size_t rank = data->rank();
  std::vector<int64_t> d = c.ArgDims(0);
  std::vector<int64_t> out(rank);
  auto axes = c.attrs()->GetInts("axes");
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = axes && axes->size() == rank ? NormAxis((*axes)[i], rank) : int64_t(rank - 1 - i);
    if (a < 0 || a >= int64_t(rank)) return;
    out[i] = d[a];
  }
  c.SetOut(std::move(out));
}

// ReduceRel, ArgReduceRel, VarianceRel: kept extents keep their objects,
// keepdims' 1s are new.
void Reduce(DimSharingCall& c) {
  const TensorType* data = c.data();
  const Attrs* attrs = c.attrs();
  if (data == nullptr || attrs == nullptr || c.out_type() == nullptr) return;
  size_t rank = data->rank();
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
  std::vector<int64_t> d = c.ArgDims(0), out;
  for (size_t i = 0; i < rank; ++i) {
    if (!reduced[i]) out.push_back(d[i]);
    else if (keep) out.push_back(c.Fresh());
  }
  c.SetOut(std::move(out));
}

// ExpandDimsRel: the data's objects around new ones.
void ExpandDims(DimSharingCall& c) {
  const TensorType* data = c.data();
  if (data == nullptr || c.attrs() == nullptr) return;
  size_t rank = data->rank();
  int64_t axis = c.attrs()->GetInt("axis");
  int64_t count = c.attrs()->GetInt("num_newaxis", 1);
  int64_t pivot = axis < 0 ? axis + int64_t(rank) + count : axis;
  if (pivot < 0 || pivot > int64_t(rank) || count < 0) return;
  std::vector<int64_t> d = c.ArgDims(0);
  std::vector<int64_t> out(d.begin(), d.begin() + pivot);
  for (int64_t i = 0; i < count; ++i) out.push_back(c.Fresh());
  out.insert(out.end(), d.begin() + pivot, d.end());
  c.SetOut(std::move(out));
}

// SqueezeRel: the kept extents keep their objects.
void Squeeze(DimSharingCall& c) {
  const TensorType* data = c.data();
  if (data == nullptr || c.attrs() == nullptr) return;
  size_t rank = data->rank();
  std::vector<bool> drop(rank, false);
  auto axes = c.attrs()->GetInts("axis");
  for (size_t i = 0; i < rank; ++i) drop[i] = !axes && data->shape()[i].value == 1;
  if (axes) {
    for (int64_t a : *axes) {
      a = NormAxis(a, rank);
      if (a < 0 || a >= int64_t(rank)) return;
      drop[a] = true;
    }
  }
  std::vector<int64_t> d = c.ArgDims(0), out;
  for (size_t i = 0; i < rank; ++i) {
    if (!drop[i]) out.push_back(d[i]);
  }
  c.SetOut(std::move(out));
}

// SplitRel: every part keeps the data's objects but along the axis.
void Split(DimSharingCall& c) {
  const TensorType* data = c.data();
  if (data == nullptr || c.attrs() == nullptr) return;
  size_t rank = data->rank();
  auto* tuple = DynCast<TupleType>(c.call()->checked_type());
  int64_t axis = NormAxis(c.attrs()->GetInt("axis"), rank);
  if (tuple == nullptr || axis < 0 || axis >= int64_t(rank)) return;
  std::vector<int64_t> d = c.ArgDims(0);
  DimTokens out;
  out.tuple = true;
  for (size_t i = 0; i < tuple->fields().size(); ++i) {
    std::vector<int64_t> part = d;
    part[axis] = c.Fresh();
    out.fields.push_back(DimTokens{false, std::move(part), {}});
  }
  c.SetOutTokens(std::move(out));
}

// TakeRel: data extents around the axis, the indices' extents in between
// (only the indices' without an axis).
void Take(DimSharingCall& c) {
  const TensorType* data = c.data();
  const Attrs* attrs = c.attrs();
  if (data == nullptr || attrs == nullptr || c.args().size() < 2) return;
  size_t rank = data->rank();
  const TensorType* indices = DynCast<TensorType>(c.args()[1]->checked_type());
  const AttrValue* axis_value = attrs->Find("axis");
  if (indices == nullptr || attrs->GetInt("batch_dims") != 0) return;
  std::vector<int64_t> ind = c.ArgDims(1);
  if (axis_value == nullptr || axis_value->is_null()) {
    c.SetOut(std::move(ind));
    return;
  }
  int64_t axis = NormAxis(axis_value->as_int(), rank);
  if (axis < 0 || axis >= int64_t(rank)) return;
  std::vector<int64_t> d = c.ArgDims(0);
  std::vector<int64_t> out(d.begin(), d.begin() + axis);
  out.insert(out.end(), ind.begin(), ind.end());
  out.insert(out.end(), d.begin() + axis + 1, d.end());
  c.SetOut(std::move(out));
}

// ReshapeRel (InferNewShape): 0 and -2 copy the data's objects.
void Reshape(DimSharingCall& c) {
  const TensorType* data = c.data();
  if (data == nullptr || c.attrs() == nullptr) return;
  size_t rank = data->rank();
  auto newshape = c.attrs()->GetInts("newshape");
  if (!newshape) return;
  std::vector<int64_t> d = c.ArgDims(0), out;
  size_t src = 0;
  for (size_t i = 0; i < newshape->size(); ++i) {
    int64_t v = (*newshape)[i];
    if (v == 0 && src < rank) {
      out.push_back(d[src++]);
    } else if (v == -2) {
      while (src < rank) out.push_back(d[src++]);
    } else if (v == -3) {
      out.push_back(c.Fresh());
      src += 2;
    } else if (v == -4) {
      out.push_back(c.Fresh());
      out.push_back(c.Fresh());
      i += 2;
      ++src;
    } else {
      out.push_back(c.Fresh());
      ++src;
    }
  }
  c.SetOut(std::move(out));
}

}  // namespace carve::dim_sharing
