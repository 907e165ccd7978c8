// The process-wide kernel table behind RegisterKernel / FindKernel.
#include "interpreter/kernel.h"
#include "interpreter/kernel_table.h"

namespace carve {
namespace {

internal::NamedFnTable<KernelFn>& Table() {
  static auto* table = new internal::NamedFnTable<KernelFn>();
  return *table;
}

}  // namespace

void RegisterKernel(std::string_view op_name, KernelFn fn) { Table().Set(op_name, fn); }

KernelFn FindKernel(std::string_view op_name) { return Table().Find(op_name); }

}  // namespace carve
