// The names users see for the nodes of a module: the ones `carve fmt` prints
// (`%12`, `%x`, `@main`), so that a node can be named on the command line
// (`carve why PATTERN FILE --at %12`) and in explanations.
//
// The printer decides the `%N` numbers by TVM's algorithm; rather than
// re-deriving them, NodeNames prints the module, parses the printed text back
// and reads each node's name off the text in front of its span: a node whose
// text follows `%N = ` is `%N`. The re-parsed module is structurally the
// module that was printed, so queries run on it (after InferType) and every
// node they report has exactly the name the printed text gives it.
//
// Nodes the printer inlines have no `%N`: a function's result is named after
// the function (`@main`), variables by their printed name (`%x`, `%x1`), and
// any other inlined node by its printed text (`nn.relu(%3)`, `1f`).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "ir/module.h"

namespace carve {

class NodeNames {
 public:
  // Prints `mod` as `carve fmt` does and re-parses it. Errors only if the
  // printed text does not re-parse (a printer/parser mismatch).
  static absl::StatusOr<NodeNames> ForModule(const Module& mod);

  // The re-parsed module, whose nodes are the ones named here. Not typed:
  // run InferType on it before matching types.
  Module& module() { return *module_; }
  const Module& module() const { return *module_; }
  // The printed text that was re-parsed.
  const std::string& text() const { return text_; }

  // The name of `e` (see the header comment); "" for nodes of another module.
  std::string Name(const Expr* e) const;
  // "a parameter", "a let-bound variable", "a free variable" for variables,
  // "" for other nodes (explanations then describe the node generically).
  std::string Role(const Expr* e) const;
  // True when `e` has a name users can look up (`%N`, a variable, `@f`).
  bool HasHandle(const Expr* e) const;

  struct Named {
    const Expr* node = nullptr;
    const Function* function = nullptr;  // the global function holding it
  };
  // The node a user-given name denotes: `%N`, `%var` (a variable) or `@f`
  // (the result of function @f); node == nullptr when no node has that name.
  Named Lookup(std::string_view name) const;

 private:
  NodeNames() = default;
  void NameFunction(const GlobalVar* gv, const Function* fn);

  std::unique_ptr<Module> module_;
  std::string text_;
  absl::flat_hash_map<const Expr*, std::string> names_;
  absl::flat_hash_map<std::string, Named> by_name_;
  absl::flat_hash_map<const Expr*, const char*> roles_;
};

}  // namespace carve
