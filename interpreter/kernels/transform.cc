// Shape and data-movement kernels (ops.md section 12): reshape and friends
// (free views), transpose, concatenate, split and stack.
#include <algorithm>

#include "interpreter/kernel_join.h"
#include "interpreter/kernels/alloc_uninitialized.h"
#include "interpreter/kernels/data_movement.h"
#include "interpreter/kernels/gemm.h"
#include "interpreter/kernels/kernel_util.h"

namespace carve {
namespace {

using Outputs = absl::StatusOr<std::vector<NDArray>>;

// reshape, nn.batch_flatten, squeeze, expand_dims, reshape_like: the output
// type (from the type relation, which implements newshape's special values
// and the axis rules) fixes the shape, and the data is shared.
Outputs ReshapeView(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckMinArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(const TensorType* type, OutTensorType(ctx));
  auto shape = StaticShape(type);
  if (!shape.ok()) return KernelError(ctx, "{}", std::string(shape.status().message()));
  if (type->dtype() != in.dtype() || ShapeProduct(*shape, 0, shape->size()) != in.num_elements()) {
    return KernelError(ctx, "cannot view {} {} as {}", ShapeString(in.shape()),
                       in.dtype().ToString(), TypeToString(type));
  }
  return std::vector<NDArray>{in.Reshape(*shape)};
}

// out[i] = in[permuted i]; axes null = reversed.
Outputs Transpose(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  const int64_t rank = in.rank();
  std::vector<int64_t> perm(rank);
  if (auto axes = AttrInts(ctx, "axes"); axes && !axes->empty()) {
    if (static_cast<int64_t>(axes->size()) != rank) {
      return KernelError(ctx, "axes has {} entries for rank {}", axes->size(), rank);
    }
    perm = *axes;
  } else {
    for (int64_t i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
  }
  std::vector<bool> seen(rank, false);
  for (int64_t& p : perm) {
    CARVE_ASSIGN_OR_RETURN(p, NormalizeAxis(ctx, p, rank));
    if (seen[p]) return KernelError(ctx, "axis {} repeats in axes", p);
    seen[p] = true;
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  for (int64_t d = 0; d < rank; ++d) {
    if (out.rank() != in.rank() || out.shape()[d] != in.shape()[perm[d]]) {
      return KernelError(ctx, "output type {} does not match the permuted input",
                         TypeToString(ctx.out_type));
    }
  }
  PermuteCopy(in, out, perm);
  return std::vector<NDArray>{std::move(out)};
}

// Copies `parts` one after another along `axis` of `out`. Each part has
// out's rank, dtype and shape except along `axis`.
absl::Status JoinAlong(const KernelContext& ctx, std::span<const NDArray> parts, int64_t axis,
                       NDArray& out) {
  const int64_t es = out.dtype().bytes();
  const int64_t outer = ShapeProduct(out.shape(), 0, axis);
  const int64_t inner = ShapeProduct(out.shape(), axis + 1, out.rank()) * es;
  const int64_t out_pitch = out.shape()[axis] * inner;
  std::vector<int64_t> offsets;  // each part's first index along `axis`
  int64_t offset = 0;
  for (const NDArray& p : parts) {
    bool ok = p.dtype() == out.dtype() && p.rank() == out.rank();
    for (size_t d = 0; ok && d < p.rank(); ++d) {
      ok = d == static_cast<size_t>(axis) || p.shape()[d] == out.shape()[d];
    }
    if (!ok || offset + p.shape()[axis] > out.shape()[axis]) {
      return KernelError(ctx, "input {} {} does not fit output {}", ShapeString(p.shape()),
                         p.dtype().ToString(), TypeToString(ctx.out_type));
    }
    offsets.push_back(offset);
    offset += p.shape()[axis];
  }
  if (offset != out.shape()[axis]) {
    return KernelError(ctx, "inputs cover {} of {} elements along axis {}", offset,
                       out.shape()[axis], axis);
  }
  // The parts' copies (rows of `outer`), split over the threads.
  nn_kernels::ParallelChunks(
      ctx.device, int64_t(parts.size()), double(out.num_elements() * es) / double(parts.size()),
      [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const int64_t pitch = parts[i].shape()[axis] * inner;
          CopyRows(static_cast<const std::byte*>(parts[i].raw_data()), pitch,
                   static_cast<std::byte*>(out.raw_data()) + offsets[i] * inner, out_pitch,
                   outer, pitch);
        }
      });
  return absl::OkStatus();
}

// The concatenation of `parts` along `axis` as a view of their storage
// (an undefined tensor when it cannot be one): when they lie one after
// another in one allocation, in order, with out's dtype, and every
// dimension before `axis` is 1, the joined tensor is exactly their bytes.
// A dnnl region lays its outputs out so (json_runtime.h), and the host's
// concatenate of a squeezenet fire module's two expand convolutions then
// copies nothing (it copied 1.5 MB per fire module).
NDArray AdjacentJoin(std::span<const NDArray> parts, int64_t axis,
                     std::span<const int64_t> out_shape, DataType dtype) {
  if (ShapeProduct(out_shape, 0, axis) != 1) return NDArray();
  int64_t along = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const NDArray& p = parts[i];
    if (p.dtype() != dtype || p.rank() != out_shape.size()) return NDArray();
    for (size_t d = 0; d < p.rank(); ++d) {
      if (d != static_cast<size_t>(axis) && p.shape()[d] != out_shape[d]) return NDArray();
    }
    if (i > 0 && !parts[i - 1].IsFollowedBy(p)) return NDArray();
    along += p.shape()[axis];
  }
  if (along != out_shape[axis]) return NDArray();
  return parts[0].ViewAt(0, dtype, out_shape);
}

// JoinAlong checks that the parts tile the output along `axis` before it
// copies, so every element is written: the output is not zero-filled
// (that fill was 2.5% of SqueezeNet's dnnl run).
Outputs Concatenate(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckMinArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(const TensorType* type, OutTensorType(ctx));
  if (auto shape = StaticShape(type); shape.ok()) {
    auto axis = NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), int64_t(shape->size()));
    if (axis.ok() && ctx.inputs.size() > 1) {
      NDArray view = AdjacentJoin(ctx.inputs, *axis, *shape, type->dtype());
      if (view.defined()) return std::vector<NDArray>{std::move(view)};
    }
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutputUninitialized(ctx));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), out.rank()));
  CARVE_RETURN_IF_ERROR(JoinAlong(ctx, ctx.inputs, axis, out));
  return std::vector<NDArray>{std::move(out)};
}

// stack = concatenate of the inputs viewed with a 1 inserted at `axis`.
Outputs Stack(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckMinArity(ctx, 1));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutputUninitialized(ctx));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), out.rank()));
  std::vector<NDArray> parts;
  for (const NDArray& in : ctx.inputs) {
    std::vector<int64_t> shape = in.shape();
    if (static_cast<int64_t>(shape.size()) + 1 != static_cast<int64_t>(out.rank())) {
      return KernelError(ctx, "input rank {} does not match output {}", shape.size(),
                         TypeToString(ctx.out_type));
    }
    shape.insert(shape.begin() + axis, 1);
    parts.push_back(in.Reshape(shape));
  }
  CARVE_RETURN_IF_ERROR(JoinAlong(ctx, parts, axis, out));
  return std::vector<NDArray>{std::move(out)};
}

// The fields of the output tuple type fix the section sizes, which the type
// relation derived from indices_or_sections.
Outputs Split(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outs, AllocOutputs(ctx));
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), in.rank()));
  const int64_t es = in.dtype().bytes();
  const int64_t outer = ShapeProduct(in.shape(), 0, axis);
  const int64_t inner = ShapeProduct(in.shape(), axis + 1, in.rank()) * es;
  const int64_t in_pitch = in.shape()[axis] * inner;
  int64_t offset = 0;
  for (NDArray& o : outs) {
    bool ok = o.dtype() == in.dtype() && o.rank() == in.rank();
    for (size_t d = 0; ok && d < o.rank(); ++d) {
      ok = d == static_cast<size_t>(axis) || o.shape()[d] == in.shape()[d];
    }
    if (!ok || offset + o.shape()[axis] > in.shape()[axis]) {
      return KernelError(ctx, "output type {} does not match input {}", TypeToString(ctx.out_type),
                         ShapeString(in.shape()));
    }
    const int64_t pitch = o.shape()[axis] * inner;
    CopyRows(static_cast<const std::byte*>(in.raw_data()) + offset * inner, in_pitch,
             static_cast<std::byte*>(o.raw_data()), pitch, outer, pitch);
    offset += o.shape()[axis];
  }
  return outs;
}

// repeat: each element along `axis` repeated `repeats` times in place.
Outputs Repeat(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckArity(ctx, 1));
  const NDArray& in = ctx.inputs[0];
  const int64_t repeats = AttrInt(ctx, "repeats", 1);
  if (repeats < 1) return KernelError(ctx, "repeats must be positive, got {}", repeats);
  CARVE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), in.rank()));
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  if (out.rank() != in.rank() || out.shape()[axis] != in.shape()[axis] * repeats) {
    return KernelError(ctx, "output type {} does not match", TypeToString(ctx.out_type));
  }
  std::vector<std::vector<int64_t>> maps(in.rank());
  for (size_t d = 0; d < in.rank(); ++d) {
    maps[d].resize(out.shape()[d]);
    for (int64_t i = 0; i < out.shape()[d]; ++i) {
      maps[d][i] = d == static_cast<size_t>(axis) ? i / repeats : i;
    }
  }
  GatherAxes(in, out, maps, nullptr);
  return std::vector<NDArray>{std::move(out)};
}

}  // namespace

CARVE_REGISTER_KERNEL("repeat", Repeat);
CARVE_REGISTER_KERNEL("reshape", ReshapeView);
CARVE_REGISTER_KERNEL("reshape_like", ReshapeView);
CARVE_REGISTER_KERNEL("nn.batch_flatten", ReshapeView);
CARVE_REGISTER_KERNEL("squeeze", ReshapeView);
CARVE_REGISTER_KERNEL("expand_dims", ReshapeView);
CARVE_REGISTER_KERNEL("transpose", Transpose);
CARVE_REGISTER_KERNEL("concatenate", Concatenate);

// Concatenate views its inputs (AdjacentJoin) when its type is static and
// every dimension before the axis is 1; an execution plan then places the
// inputs' producers in adjacent slices (interpreter/kernel_join.h).
bool ConcatenateViewsAdjacentInputs(const Call* call) {
  if (call->checked_type() == nullptr) return false;
  const TensorType* type = DynCast<TensorType>(call->checked_type());
  if (type == nullptr) return false;
  absl::StatusOr<std::vector<int64_t>> shape = StaticShape(type);
  if (!shape.ok()) return false;
  KernelContext ctx;
  ctx.op = call->op();
  ctx.attrs = call->attrs();
  absl::StatusOr<int64_t> axis =
      NormalizeAxis(ctx, AttrInt(ctx, "axis", 0), static_cast<int64_t>(shape->size()));
  return axis.ok() && ShapeProduct(*shape, 0, static_cast<size_t>(*axis)) == 1;
}
CARVE_REGISTER_ADJACENT_JOIN("concatenate", ConcatenateViewsAdjacentInputs);
CARVE_REGISTER_KERNEL("stack", Stack);
CARVE_REGISTER_KERNEL("split", Split);

}  // namespace carve
