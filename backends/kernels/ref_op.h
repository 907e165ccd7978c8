// One op on carve's reference kernels, prepared once: the op, its decoded
// attributes and its output type. The building block of the Eigen
// composite kernels.
#pragma once

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/kernel.h"
#include "ir/attrs.h"
#include "ir/ndarray.h"
#include "ir/op.h"
#include "ir/type.h"

namespace carve {

class RefOp {
 public:
  // Prepares `op_name` with `attrs` (null: the op's defaults) for arguments
  // of `arg_types` (a TupleType stands for a tuple argument, whose fields
  // are passed flattened to Run). The output type comes from the op's type
  // relation.
  static absl::StatusOr<RefOp> Make(std::string_view op_name, const Attrs* attrs,
                                    std::span<const Type* const> arg_types,
                                    const Eigen::ThreadPoolDevice* device);

  absl::StatusOr<std::vector<NDArray>> Run(std::span<const NDArray> inputs) const;
  // The single tensor output of Run.
  absl::StatusOr<NDArray> RunOne(std::span<const NDArray> inputs) const;

  const OpInfo* op() const { return op_; }
  const Attrs* attrs() const { return attrs_; }
  const Type* out_type() const { return out_type_; }

 private:
  const OpInfo* op_ = nullptr;
  const Attrs* attrs_ = nullptr;
  const Type* out_type_ = nullptr;
  KernelFn fn_ = nullptr;
  const Eigen::ThreadPoolDevice* device_ = nullptr;
};

// A static tensor type.
const TensorType* TensorTypeOf(DataType dtype, const std::vector<int64_t>& shape);
// The static shape of a tensor type (`?` dims as -1).
std::vector<int64_t> ShapeOf(const TensorType* type);

}  // namespace carve
