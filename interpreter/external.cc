#include "interpreter/external.h"

namespace carve {

ExternalRegistry& ExternalRegistry::Global() {
  static ExternalRegistry* registry = new ExternalRegistry();
  return *registry;
}

void ExternalRegistry::RegisterRuntime(std::string_view compiler, ExternalFn fn) {
  std::lock_guard<std::mutex> lock(mu_);
  runtimes_[std::string(compiler)] = std::move(fn);
}

void ExternalRegistry::RegisterComposite(std::string_view composite, ExternalFn fn) {
  std::lock_guard<std::mutex> lock(mu_);
  composites_[std::string(composite)] = std::move(fn);
}

void ExternalRegistry::UnregisterRuntime(std::string_view compiler) {
  std::lock_guard<std::mutex> lock(mu_);
  runtimes_.erase(std::string(compiler));
}

void ExternalRegistry::UnregisterComposite(std::string_view composite) {
  std::lock_guard<std::mutex> lock(mu_);
  composites_.erase(std::string(composite));
}

ExternalFn ExternalRegistry::FindRuntime(std::string_view compiler) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = runtimes_.find(std::string(compiler));
  return it == runtimes_.end() ? ExternalFn() : it->second;
}

ExternalFn ExternalRegistry::FindComposite(std::string_view composite) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = composites_.find(std::string(composite));
  return it == composites_.end() ? ExternalFn() : it->second;
}

}  // namespace carve
