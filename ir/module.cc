#include "ir/module.h"

#include "ir/adt.h"

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

void Module::AddTypeDefinition(const TypeData* data) {
  type_definitions_[data->header()->name()] = data;
  for (const Constructor* ctor : data->constructors()) constructors_[ctor->name()] = ctor;
}

const TypeData* Module::LookupTypeDefinition(std::string_view name) const {
  auto it = type_definitions_.find(name);
  return it == type_definitions_.end() ? nullptr : it->second;
}

const Constructor* Module::FindConstructor(std::string_view name) const {
  auto it = constructors_.find(name);
  return it == constructors_.end() ? nullptr : it->second;
}

std::vector<const TypeData*> Module::TypeDefinitions() const {
  std::vector<const TypeData*> out;
  out.reserve(type_definitions_.size());
  for (const auto& [name, data] : type_definitions_) out.push_back(data);
  return out;
}

void Module::CopyTypeDefinitionsFrom(const Module& other) {
  for (const auto& [name, data] : other.type_definitions_) AddTypeDefinition(data);
}

}  // namespace carve
