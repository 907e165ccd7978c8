// The process-wide table behind RegisterInPlaceKernel / FindInPlaceKernel.
#include "interpreter/kernel_inplace.h"

#include "interpreter/kernel_table.h"

namespace carve {
namespace {

internal::NamedFnTable<InPlaceKernelFn>& Table() {
  static auto* table = new internal::NamedFnTable<InPlaceKernelFn>();
  return *table;
}

}  // namespace

void RegisterInPlaceKernel(std::string_view op_name, InPlaceKernelFn fn) {
  Table().Set(op_name, fn);
}

InPlaceKernelFn FindInPlaceKernel(std::string_view op_name) { return Table().Find(op_name); }

bool ResultFitsInPlace(const KernelContext& ctx, const NDArray& data) {
  const TensorType* t = DynCast<TensorType>(ctx.out_type);
  if (t == nullptr || t->dtype() != data.dtype() || t->rank() != data.rank()) return false;
  for (size_t i = 0; i < data.rank(); ++i) {
    const Dim& d = t->shape()[i];
    if (d.is_any() || d.value < 0 || d.value != data.shape()[i]) return false;
  }
  return true;
}

}  // namespace carve
