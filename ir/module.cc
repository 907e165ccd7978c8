#include "ir/module.h"

namespace carve {

Module::Module() : arena_(std::make_shared<Arena>()) {}
Module::Module(std::shared_ptr<Arena> arena) : arena_(std::move(arena)) {}

const GlobalVar* Module::GetGlobalVar(std::string_view name, Span span) {
  auto it = globals_.find(name);
  if (it != globals_.end()) return it->second;
  const GlobalVar* gv = builder().MakeGlobalVar(name, span);
  globals_.emplace(gv->name(), gv);
  return gv;
}

const GlobalVar* Module::FindGlobalVar(std::string_view name) const {
  auto it = globals_.find(name);
  return it == globals_.end() ? nullptr : it->second;
}

void Module::Add(const GlobalVar* gv, const Function* fn) {
  globals_.try_emplace(gv->name(), gv);
  functions_[gv->name()] = fn;
}

void Module::Remove(std::string_view name) { functions_.erase(name); }

const Function* Module::Lookup(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second;
}

std::vector<std::pair<const GlobalVar*, const Function*>> Module::Functions() const {
  std::vector<std::pair<const GlobalVar*, const Function*>> out;
  out.reserve(functions_.size());
  for (const auto& [name, fn] : functions_) out.emplace_back(globals_.at(name), fn);
  return out;
}

std::vector<const GlobalVar*> Module::UndefinedGlobals() const {
  std::vector<const GlobalVar*> out;
  for (const auto& [name, gv] : globals_) {
    if (!functions_.contains(name)) out.push_back(gv);
  }
  return out;
}

}  // namespace carve
