// The process-wide kernel table behind RegisterKernel / FindKernel.
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "interpreter/kernel.h"

namespace carve {
namespace {

// Registration happens from static initialisers in other translation units,
// so the table is created on first use (no static-init-order dependency).
struct KernelTable {
  std::mutex mu;
  absl::flat_hash_map<std::string, KernelFn> kernels;
};

KernelTable& Table() {
  static KernelTable* table = new KernelTable();
  return *table;
}

}  // namespace

void RegisterKernel(std::string_view op_name, KernelFn fn) {
  KernelTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  t.kernels[std::string(op_name)] = fn;
}

KernelFn FindKernel(std::string_view op_name) {
  KernelTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.kernels.find(std::string(op_name));
  return it == t.kernels.end() ? nullptr : it->second;
}

}  // namespace carve
