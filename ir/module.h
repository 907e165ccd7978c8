// A module: global functions by name, sharing one node arena. Modules are
// cheap values; passes build a new module that shares the arena of its input
// so that untouched functions and GlobalVars are reused as is.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "ir/expr.h"

namespace carve {

class Constructor;
class TypeData;

class Module {
 public:
  Module();
  explicit Module(std::shared_ptr<Arena> arena);

  Arena* arena() const { return arena_.get(); }
  const std::shared_ptr<Arena>& shared_arena() const { return arena_; }
  IRBuilder builder() const { return IRBuilder(arena_.get()); }

  // The GlobalVar named `name`, created on first use (forward references).
  const GlobalVar* GetGlobalVar(std::string_view name, Span span = {});
  // nullptr when no such name was ever mentioned.
  const GlobalVar* FindGlobalVar(std::string_view name) const;
  // Defines (or replaces) the function of `gv`.
  void Add(const GlobalVar* gv, const Function* fn);
  // Defines or replaces `@name`.
  void Add(std::string_view name, const Function* fn) { Add(GetGlobalVar(name), fn); }
  void Remove(std::string_view name);
  // nullptr when `@name` has no definition.
  const Function* Lookup(std::string_view name) const;
  const Function* Lookup(const GlobalVar* gv) const { return Lookup(gv->name()); }
  bool empty() const { return functions_.empty(); }
  size_t size() const { return functions_.size(); }
  // Definitions sorted by name (TVM's printing order).
  std::vector<std::pair<const GlobalVar*, const Function*>> Functions() const;
  // GlobalVars mentioned but never defined, sorted by name.
  std::vector<const GlobalVar*> UndefinedGlobals() const;

  // Algebraic data types (ir/adt.h). Defines (or replaces) the type named by
  // `data`'s header, and its constructors.
  void AddTypeDefinition(const TypeData* data);
  // nullptr when the module defines no such type / constructor.
  const TypeData* LookupTypeDefinition(std::string_view name) const;
  const Constructor* FindConstructor(std::string_view name) const;
  bool has_type_definitions() const { return !type_definitions_.empty(); }
  // Definitions sorted by name (TVM's printing order).
  std::vector<const TypeData*> TypeDefinitions() const;
  // Adds every type definition of `other` (a pass building a fresh module
  // keeps the input's types, as TVM's passes keep type_definitions).
  void CopyTypeDefinitionsFrom(const Module& other);

  // Whether the text the module was read from wrote the attributes of
  // annotation.compiler_begin/end calls as TVM prints them
  // (`meta[relay.attrs.CompilerAttrs][i]`). The printer then writes them
  // that way too, so that TVM's text prints back byte for byte; carve's own
  // default is the inline `compiler="..."` form.
  bool meta_compiler_attrs() const { return meta_compiler_attrs_; }
  void set_meta_compiler_attrs(bool on) { meta_compiler_attrs_ = on; }

 private:
  std::shared_ptr<Arena> arena_;
  absl::btree_map<std::string_view, const GlobalVar*> globals_;
  absl::btree_map<std::string_view, const Function*> functions_;
  absl::btree_map<std::string_view, const TypeData*> type_definitions_;
  absl::btree_map<std::string_view, const Constructor*> constructors_;
  bool meta_compiler_attrs_ = false;
};

}  // namespace carve
