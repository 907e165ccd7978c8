// Kernels of the indexing and sequence ops (TVM's topi tile, reverse,
// reverse_sequence, one_hot, shape_of, ndarray_size, gather_nd, scatter_nd,
// sequence_mask, meshgrid, trilu, matrix_set_diag, unravel_index,
// invert_permutation, adv_index). Each walks the output (or the updates)
// element by element and maps coordinates; elements move as bytes, so every
// dtype works, and index tensors are read exactly (IndexElement).
#include <cstring>

#include "interpreter/kernels/element_index.h"
#include "interpreter/kernels/index_value.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// An index value normalised against `extent` (negative counts from the
// end), or an error.
absl::StatusOr<int64_t> IndexAt(const KernelContext& ctx, const NDArray& idx, int64_t i,
                                int64_t extent) {
  const int64_t v = IndexElement(idx, i);
  const int64_t n = v < 0 ? v + extent : v;
  if (v < -extent || n >= extent) {
    return KernelError(ctx, "index {} is out of range for extent {}", v, extent);
  }
  return n;
}

// out[c] = in[map(c)] for every output coordinate c.
template <typename F>
Outputs MapFromInput(const KernelContext& ctx, const NDArray& in, F&& map) {
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  std::vector<int64_t> strides = RowMajorStrides(in.shape());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    map(c);
    CopyElement(in, Offset(c, strides), out, flat);
  }
  return std::vector<NDArray>{out};
}

Outputs Tile(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(const TensorType* out_t, OutTensorType(ctx));
  const size_t lead = out_t->rank() - in.rank();
  return MapFromInput(ctx, in, [&](std::vector<int64_t>& c) {
    c.erase(c.begin(), c.begin() + lead);
    for (size_t d = 0; d < c.size(); ++d) c[d] %= in.shape()[d];
  });
}

Outputs Reverse(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), int64_t(in.rank())));
  return MapFromInput(ctx, in,
                      [&](std::vector<int64_t>& c) { c[axis] = in.shape()[axis] - 1 - c[axis]; });
}

// The first seq_lengths[b] elements of every batch entry b reversed along
// the sequence axis (lengths above the extent count as the extent).
Outputs ReverseSequence(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& in = ctx.inputs[0];
  const NDArray& lengths = ctx.inputs[1];
  const int64_t rank = int64_t(in.rank());
  CARVE_ASSIGN_OR_RETURN(int64_t seq, NormalizeAxis(ctx, AttrInt(ctx, "seq_axis", 1), rank));
  CARVE_ASSIGN_OR_RETURN(int64_t batch, NormalizeAxis(ctx, AttrInt(ctx, "batch_axis", 0), rank));
  return MapFromInput(ctx, in, [&](std::vector<int64_t>& c) {
    int64_t len = std::min(IndexElement(lengths, c[batch]), in.shape()[seq]);
    if (c[seq] < len) c[seq] = len - 1 - c[seq];
  });
}

Outputs OneHot(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& idx = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  int64_t axis = AttrInt(ctx, "axis", -1);
  if (axis == -1) axis = int64_t(out.rank()) - 1;
  const double on = ctx.inputs[1].GetAsDouble(0), off = ctx.inputs[2].GetAsDouble(0);
  std::vector<int64_t> idx_strides = RowMajorStrides(idx.shape());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    int64_t depth_pos = c[axis];
    c.erase(c.begin() + axis);
    bool hit = IndexElement(idx, Offset(c, idx_strides)) == depth_pos;
    out.SetFromDouble(flat, hit ? on : off);
  }
  return std::vector<NDArray>{out};
}

Outputs ShapeOf(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  for (size_t i = 0; i < ctx.inputs[0].rank(); ++i) {
    out.SetFromDouble(int64_t(i), double(ctx.inputs[0].shape()[i]));
  }
  return std::vector<NDArray>{out};
}

Outputs NdarraySize(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  out.SetFromDouble(0, double(ctx.inputs[0].num_elements()));
  return std::vector<NDArray>{out};
}

// out[y..., r...] = data[batch..., indices[:, y...], r...], the batch dims
// being the first batch_dims of y.
Outputs GatherND(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& idx = ctx.inputs[1];
  const int64_t b = AttrInt(ctx, "batch_dims", 0);
  const int64_t m = idx.shape()[0];
  const size_t k = idx.rank() - 1;  // index dims after M
  const int64_t per_m = ShapeProduct(idx.shape(), 1, idx.rank());
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  std::vector<int64_t> strides = RowMajorStrides(data.shape());
  std::vector<int64_t> ystrides =
      RowMajorStrides(std::vector<int64_t>(idx.shape().begin() + 1, idx.shape().end()));
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    std::vector<int64_t> y(c.begin(), c.begin() + k);
    std::vector<int64_t> dc(c.begin(), c.begin() + b);
    const int64_t yoff = Offset(y, ystrides);
    for (int64_t j = 0; j < m; ++j) {
      CARVE_ASSIGN_OR_RETURN(int64_t v, IndexAt(ctx, idx, j * per_m + yoff, data.shape()[b + j]));
      dc.push_back(v);
    }
    dc.insert(dc.end(), c.begin() + k, c.end());
    CopyElement(data, Offset(dc, strides), out, flat);
  }
  return std::vector<NDArray>{out};
}

// scatter_nd's reduction `mode` (not "update") of two int64s, wrapping
// as TVM's int64 arithmetic does.
int64_t CombineInt64(std::string_view mode, int64_t o, int64_t u) {
  if (mode == "add") return int64_t(uint64_t(o) + uint64_t(u));
  if (mode == "mul") return int64_t(uint64_t(o) * uint64_t(u));
  return mode == "min" ? std::min(o, u) : std::max(o, u);
}

// out = data; out[indices[:, y...], r...] (op)= updates[y..., r...].
Outputs ScatterND(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 3));
  const NDArray& data = ctx.inputs[0];
  const NDArray& idx = ctx.inputs[1];
  const NDArray& upd = ctx.inputs[2];
  const std::string_view mode = AttrString(ctx, "mode", "update");
  if (mode != "update" && mode != "add" && mode != "mul" && mode != "min" && mode != "max") {
    return KernelError(ctx, "unknown mode \"{}\"", mode);
  }
  NDArray out = data.Copy();
  const int64_t m = idx.shape()[0];
  const int64_t per_m = ShapeProduct(idx.shape(), 1, idx.rank());
  const int64_t rest = ShapeProduct(data.shape(), size_t(m), data.rank());
  std::vector<int64_t> strides = RowMajorStrides(data.shape());
  for (int64_t y = 0; y < per_m; ++y) {
    int64_t base = 0;
    for (int64_t j = 0; j < m; ++j) {
      CARVE_ASSIGN_OR_RETURN(int64_t v, IndexAt(ctx, idx, j * per_m + y, data.shape()[j]));
      base += v * strides[j];
    }
    for (int64_t r = 0; r < rest; ++r) {
      if (mode == "update") {
        CopyElement(upd, y * rest + r, out, base + r);
        continue;
      }
      if (out.dtype() == DataType::Int(64) && upd.dtype() == out.dtype()) {
        // Exactly: through double an int64 above 2^53 would round.
        int64_t& o = out.data<int64_t>()[base + r];
        o = CombineInt64(mode, o, upd.data<int64_t>()[y * rest + r]);
        continue;
      }
      double u = upd.GetAsDouble(y * rest + r), o = out.GetAsDouble(base + r);
      if (mode == "add")
        out.SetFromDouble(base + r, o + u);
      else if (mode == "mul")
        out.SetFromDouble(base + r, o * u);
      else if (mode == "min")
        out.SetFromDouble(base + r, std::min(o, u));
      else
        out.SetFromDouble(base + r, std::max(o, u));
    }
  }
  return std::vector<NDArray>{out};
}

// Elements at sequence positions >= valid_length[batch] become mask_value.
Outputs SequenceMask(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const NDArray& lengths = ctx.inputs[1];
  const int64_t axis = AttrInt(ctx, "axis", 0);
  const double mask = AttrFloat(ctx, "mask_value", 0);
  NDArray out = data.Copy();
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    if (c[axis] >= IndexElement(lengths, c[1 - axis])) out.SetFromDouble(flat, mask);
  }
  return std::vector<NDArray>{out};
}

Outputs Meshgrid(const KernelContext& ctx) {
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  const bool xy = AttrString(ctx, "indexing", "ij") == "xy";
  for (size_t i = 0; i < outs.size(); ++i) {
    size_t axis = i;
    if (xy && outs.size() >= 2 && i < 2) axis = 1 - i;
    for (int64_t flat = 0; flat < outs[i].num_elements(); ++flat) {
      std::vector<int64_t> c = Coords(flat, outs[i].shape());
      CopyElement(ctx.inputs[i], ctx.inputs[i].rank() == 0 ? 0 : c[axis], outs[i], flat);
    }
  }
  return outs;
}

// Keeps the upper (col - row >= k) or lower (col - row <= k) triangle of
// the last two axes; the rest is zero.
Outputs Trilu(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(int64_t k, ReadScalar<int64_t>(ctx, ctx.inputs[1], "k"));
  const bool upper = AttrBool(ctx, "upper", true);
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));  // zero-filled
  const int64_t rows = data.shape()[data.rank() - 2], cols = data.shape()[data.rank() - 1];
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    int64_t col = flat % cols, row = (flat / cols) % rows;
    if (upper ? col - row >= k : col - row <= k) CopyElement(data, flat, out, flat);
  }
  return std::vector<NDArray>{out};
}

// Diagonals k1..k2 of the last two axes replaced from `diagonal` (TVM's
// layout: diagonal k at row k2 - k, each aligned right or left).
Outputs MatrixSetDiag(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& in = ctx.inputs[0];
  const NDArray& diag = ctx.inputs[1];
  const int64_t k1 = AttrInt(ctx, "k1", 0), k2 = AttrInt(ctx, "k2", 0);
  const bool super_right = AttrBool(ctx, "super_diag_right_align", true);
  const bool sub_right = AttrBool(ctx, "sub_diag_right_align", false);
  const size_t nd = in.rank() - 1;
  const int64_t rows = in.shape()[nd - 1], cols = in.shape()[nd];
  const int64_t max_len = diag.shape().back();
  std::vector<int64_t> dstrides = RowMajorStrides(diag.shape());
  NDArray out = in.Copy();
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    const int64_t i = c[nd - 1], j = c[nd], k = j - i;
    if (k < k1 || k > k2) continue;
    std::vector<int64_t> dc(c.begin(), c.begin() + (nd - 1));
    int64_t offset = 0;
    if (k1 != k2) {
      dc.push_back(k2 - k);
      if (k >= 0 && super_right) offset = max_len - std::min(cols - k, rows);
      if (k < 0 && sub_right) offset = max_len - std::min(cols, rows + k);
    }
    dc.push_back((k >= 0 ? i : j) + offset);
    CopyElement(diag, Offset(dc, dstrides), out, flat);
  }
  return std::vector<NDArray>{out};
}

// out[d, n] = (indices[n] / prod(shape[d+1:])) % shape[d].
Outputs UnravelIndex(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 2));
  const NDArray& idx = ctx.inputs[0];
  const NDArray& shape = ctx.inputs[1];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t dims = shape.num_elements(), n = idx.num_elements();
  for (int64_t e = 0; e < n; ++e) {
    int64_t v = IndexElement(idx, e);
    for (int64_t d = dims; d-- > 0;) {
      const int64_t extent = IndexElement(shape, d);
      if (extent <= 0) return KernelError(ctx, "shape must be positive");
      SetIndexElement(out, d * n + e, v % extent);
      v /= extent;
    }
  }
  return std::vector<NDArray>{out};
}

// out[data[i]] = i.
Outputs InvertPermutation(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const int64_t n = in.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    CARVE_ASSIGN_OR_RETURN(int64_t at, IndexAt(ctx, in, i, n));
    out.SetFromDouble(at, double(i));
  }
  return std::vector<NDArray>{out};
}

// out[b..., r...] = data[i0[b], i1[b], ..., r...], the index tensors
// broadcast together into b.
Outputs AdvIndex(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckMinArity(ctx, 2));
  const NDArray& data = ctx.inputs[0];
  const size_t n_idx = ctx.inputs.size() - 1;
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  const size_t brank = out.rank() - (data.rank() - n_idx);
  std::vector<int64_t> strides = RowMajorStrides(data.shape());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    std::vector<int64_t> c = Coords(flat, out.shape());
    std::vector<int64_t> dc;
    for (size_t i = 0; i < n_idx; ++i) {
      const NDArray& idx = ctx.inputs[1 + i];
      int64_t off = 0, stride = 1;
      for (size_t d = idx.rank(); d-- > 0;) {
        int64_t coord = c[brank - idx.rank() + d];
        off += (idx.shape()[d] == 1 ? 0 : coord) * stride;
        stride *= idx.shape()[d];
      }
      CARVE_ASSIGN_OR_RETURN(int64_t v, IndexAt(ctx, idx, off, data.shape()[i]));
      dc.push_back(v);
    }
    dc.insert(dc.end(), c.begin() + brank, c.end());
    CopyElement(data, Offset(dc, strides), out, flat);
  }
  return std::vector<NDArray>{out};
}

}  // namespace

CARVE_REGISTER_KERNEL("tile", Tile);
CARVE_REGISTER_KERNEL("reverse", Reverse);
CARVE_REGISTER_KERNEL("reverse_sequence", ReverseSequence);
CARVE_REGISTER_KERNEL("one_hot", OneHot);
CARVE_REGISTER_KERNEL("shape_of", ShapeOf);
CARVE_REGISTER_KERNEL("ndarray_size", NdarraySize);
CARVE_REGISTER_KERNEL("gather_nd", GatherND);
CARVE_REGISTER_KERNEL("scatter_nd", ScatterND);
CARVE_REGISTER_KERNEL("sequence_mask", SequenceMask);
CARVE_REGISTER_KERNEL("meshgrid", Meshgrid);
CARVE_REGISTER_KERNEL("trilu", Trilu);
CARVE_REGISTER_KERNEL("matrix_set_diag", MatrixSetDiag);
CARVE_REGISTER_KERNEL("unravel_index", UnravelIndex);
CARVE_REGISTER_KERNEL("invert_permutation", InvertPermutation);
CARVE_REGISTER_KERNEL("adv_index", AdvIndex);

}  // namespace carve
