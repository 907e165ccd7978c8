// The process-wide table behind RegisterAdjacentJoin / FindAdjacentJoin.
#include "interpreter/kernel_join.h"

#include "interpreter/kernel_table.h"

namespace carve {
namespace {

internal::NamedFnTable<AdjacentJoinFn>& Table() {
  static auto* table = new internal::NamedFnTable<AdjacentJoinFn>();
  return *table;
}

}  // namespace

void RegisterAdjacentJoin(std::string_view op_name, AdjacentJoinFn fn) {
  Table().Set(op_name, fn);
}

AdjacentJoinFn FindAdjacentJoin(std::string_view op_name) { return Table().Find(op_name); }

}  // namespace carve
