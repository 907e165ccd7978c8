// A process-wide table of functions by op name, behind RegisterKernel /
// FindKernel (kernel_registry.cc) and their in-place counterparts
// (kernel_inplace.cc). Registration happens from static initialisers in
// other translation units, so each table is created on first use (no
// static-init-order dependency).
#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"

namespace carve::internal {

template <typename Fn>
class NamedFnTable {
 public:
  // The last registration for a name wins.
  void Set(std::string_view name, Fn fn) {
    std::lock_guard<std::mutex> lock(mu_);
    fns_[std::string(name)] = fn;
  }
  // The function for `name`, or nullptr.
  Fn Find(std::string_view name) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = fns_.find(std::string(name));
    return it == fns_.end() ? nullptr : it->second;
  }

 private:
  std::mutex mu_;
  absl::flat_hash_map<std::string, Fn> fns_;
};

}  // namespace carve::internal
