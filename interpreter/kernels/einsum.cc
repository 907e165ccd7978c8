// einsum (TVM's topi einsum): every assignment of the equation's labels is
// visited once and the operands' product added into the output element the
// output labels pick. Labels bound to extent 1 in one operand broadcast, as
// do the ellipsis dims. Computes in the element type (float for float16).
#include "interpreter/kernels/kernel_util.h"
#include "ir/einsum_equation.h"

namespace carve {
namespace {

// An iteration axis: a label or one ellipsis dim, with its extent.
struct Axis {
  char label;        // '.' for an ellipsis dim
  int64_t ellipsis;  // which ellipsis dim (0 = leftmost), or -1
  int64_t extent;
};

// The stride of each iteration axis in a tensor (0 where it does not index
// the tensor or broadcasts there).
std::vector<int64_t> AxisStrides(const std::string& sub, const std::vector<int64_t>& shape,
                                 size_t ell_rank, size_t total_ell, const std::vector<Axis>& axes) {
  std::vector<int64_t> tensor_strides = RowMajorStrides(shape);
  std::vector<int64_t> out(axes.size(), 0);
  size_t dim = 0;
  for (char c : sub) {
    if (c == '.') {
      for (size_t k = 0; k < ell_rank; ++k, ++dim) {
        int64_t e = int64_t(total_ell - ell_rank + k);
        for (size_t a = 0; a < axes.size(); ++a) {
          if (axes[a].ellipsis == e && shape[dim] != 1) out[a] += tensor_strides[dim];
        }
      }
      continue;
    }
    for (size_t a = 0; a < axes.size(); ++a) {
      if (axes[a].label == c && shape[dim] != 1) out[a] += tensor_strides[dim];
    }
    ++dim;
  }
  return out;
}

absl::StatusOr<std::vector<NDArray>> Einsum(const KernelContext& ctx) {
  CARVE_RETURN_IF_ERROR(CheckMinArity(ctx, 1));
  const std::string_view equation = AttrString(ctx, "equation", "");
  CARVE_ASSIGN_OR_RETURN(EinsumEquation eq, ParseEinsumEquation(equation, ctx.inputs.size()));
  std::vector<std::vector<int64_t>> shapes;
  for (const NDArray& in : ctx.inputs) shapes.push_back(in.shape());
  CARVE_ASSIGN_OR_RETURN(EinsumDims dims, BindEinsumDims(eq, shapes));
  std::vector<Axis> axes;
  for (const auto& [label, extent] : dims.label) axes.push_back({label, -1, extent});
  for (size_t e = 0; e < dims.ellipsis.size(); ++e) {
    axes.push_back({'.', int64_t(e), dims.ellipsis[e]});
  }
  CARVE_ASSIGN_OR_RETURN(NDArray out, AllocOutput(ctx));
  std::vector<std::vector<int64_t>> strides;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    strides.push_back(
        AxisStrides(eq.inputs[i], shapes[i], dims.ellipsis_rank[i], dims.ellipsis.size(), axes));
  }
  std::vector<int64_t> out_strides =
      AxisStrides(eq.output, out.shape(), dims.ellipsis.size(), dims.ellipsis.size(), axes);
  int64_t total = 1;
  for (const Axis& a : axes) total *= a.extent;
  CARVE_RETURN_IF_ERROR(DispatchNumeric(ctx, out.dtype(), [&]<typename T>() {
    using C = ComputeT<T>;
    std::vector<C> acc(size_t(out.num_elements()), C(0));
    std::vector<int64_t> coord(axes.size(), 0);
    for (int64_t step = 0; step < total; ++step) {
      C prod = C(1);
      for (size_t i = 0; i < ctx.inputs.size(); ++i) {
        int64_t off = 0;
        for (size_t a = 0; a < axes.size(); ++a) off += coord[a] * strides[i][a];
        prod = C(prod * C(ctx.inputs[i].template data<T>()[off]));
      }
      int64_t o = 0;
      for (size_t a = 0; a < axes.size(); ++a) o += coord[a] * out_strides[a];
      acc[o] = C(acc[o] + prod);
      for (size_t a = axes.size(); a-- > 0;) {  // odometer step
        if (++coord[a] < axes[a].extent) break;
        coord[a] = 0;
      }
    }
    for (size_t i = 0; i < acc.size(); ++i) out.template data<T>()[i] = T(acc[i]);
    return absl::OkStatus();
  }));
  return std::vector<NDArray>{out};
}

}  // namespace

CARVE_REGISTER_KERNEL("einsum", Einsum);

}  // namespace carve
