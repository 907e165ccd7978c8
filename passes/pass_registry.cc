#include "passes/pass_registry.h"

#include <memory>
#include <utility>

#include "fmt/format.h"

namespace carve {

const PassArgs::Value& PassArgs::Get(std::string_view name) const {
  static const Value kEmpty;
  auto it = values_.find(name);
  return it == values_.end() ? kEmpty : it->second;
}

PassRegistry& PassRegistry::Global() {
  static PassRegistry* registry = [] {
    auto* r = new PassRegistry();
    RegisterBuiltinPasses(*r);
    return r;
  }();
  return *registry;
}

void PassRegistry::Register(PassInfo info) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string name = info.name;
  passes_[name] = std::make_unique<PassInfo>(std::move(info));
}

const PassInfo* PassRegistry::Find(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = passes_.find(name);
  return it == passes_.end() ? nullptr : it->second.get();
}

std::vector<const PassInfo*> PassRegistry::All() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const PassInfo*> out;
  for (const auto& [name, info] : passes_) out.push_back(info.get());
  return out;
}

std::string SignatureText(const PassInfo& info) {
  if (info.params.empty()) return info.name;
  std::vector<std::string> parts;
  for (const PassParam& p : info.params) {
    std::string part = p.name;
    if (p.kind == PassParamKind::kStringList) part += "...";
    if (p.default_value.has_value()) part += "=" + *p.default_value;
    parts.push_back(std::move(part));
  }
  return fmt::format("{}({})", info.name, fmt::join(parts, ", "));
}

}  // namespace carve
