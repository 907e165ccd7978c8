#include "backends/kernels/ref_op.h"

#include "fmt/format.h"
#include "support/status_macros.h"

namespace carve {

absl::StatusOr<RefOp> RefOp::Make(std::string_view op_name, const Attrs* attrs,
                                  std::span<const Type* const> arg_types,
                                  const Eigen::ThreadPoolDevice* device) {
  RefOp r;
  r.op_ = FindOp(op_name);
  if (r.op_ == nullptr) return absl::InvalidArgumentError(UnknownOpMessage(op_name));
  r.fn_ = FindKernel(r.op_->name);
  if (r.fn_ == nullptr) {
    return absl::UnimplementedError(fmt::format("no kernel for op '{}'", op_name));
  }
  r.attrs_ = attrs != nullptr || r.op_->attrs == nullptr ? attrs : DefaultAttrs(r.op_->attrs);
  if (r.op_->type_rel == nullptr) {
    return absl::UnimplementedError(fmt::format("op '{}' has no type relation", op_name));
  }
  absl::StatusOr<const Type*> out = r.op_->type_rel(TypeRelCall{r.op_, arg_types, r.attrs_});
  if (!out.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", op_name, std::string(out.status().message())));
  }
  r.out_type_ = *out;
  r.device_ = device;
  return r;
}

absl::StatusOr<std::vector<NDArray>> RefOp::Run(std::span<const NDArray> inputs) const {
  KernelContext ctx;
  ctx.op = op_;
  ctx.inputs = inputs;
  ctx.attrs = attrs_;
  ctx.out_type = out_type_;
  ctx.device = device_;
  return fn_(ctx);
}

absl::StatusOr<NDArray> RefOp::RunOne(std::span<const NDArray> inputs) const {
  CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> out, Run(inputs));
  if (out.size() != 1) {
    return absl::InternalError(fmt::format("{} returned {} outputs", op_->name, out.size()));
  }
  return out[0];
}

const TensorType* TensorTypeOf(DataType dtype, const std::vector<int64_t>& shape) {
  std::vector<Dim> dims;
  for (int64_t d : shape) dims.push_back(d < 0 ? Dim::Any() : Dim{d, false});
  return TensorTy(dtype, dims);
}

std::vector<int64_t> ShapeOf(const TensorType* type) {
  std::vector<int64_t> out;
  for (const Dim& d : type->shape()) out.push_back(d.is_any() ? -1 : d.value);
  return out;
}

}  // namespace carve
