// Internal to the Relay printer: TVM's RelayTextPrinter, re-expressed as an
// explicit-stack machine.
//
// TVM's algorithm (relay_text_printer.cc) decides the text, the `%N` numbers
// and the order of the lines through its recursion order, so this class keeps
// that order exactly while replacing every recursive call by a frame:
//  - Print(e, try_inline) (TVM PrintExpr): visits `e` if needed, then inlines
//    it (atoms always; other nodes when `try_inline` and the node has at most
//    one parent in the dependency graph) or binds it to the next `%N` on a
//    line of the innermost open scope;
//  - Visit(e) (TVM VisitExpr + ExpandDataflow): a post-order walk through
//    calls, tuples and projections (callee first, then arguments in order)
//    computing the text of each node once; functions, ifs and lets reached
//    by the walk open their own frames;
//  - Function / If / Let / Scope frames print bodies as TVM's PrintFunc,
//    VisitExpr_(If), VisitExpr_(Let) and PrintScope do.
// So a node's `%N` is allocated when its first user's text is built, after
// all of that user's arguments have been visited: e.g. a fn literal used as a
// callee gets its number after the numbers used inside its body and after the
// bindings of the call's arguments.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "grammar/printer_doc.h"
#include "ir/expr.h"
#include "ir/ndarray.h"

namespace carve::print_internal {

// A piece of printed text: a range of the printer's text arena, a document
// (spliced by reference) or a temporary `%N`. Twelve bytes: one is kept per
// node.
struct Text {
  enum Kind : uint8_t { kEmpty, kArena, kDoc, kTemp };
  uint32_t index = 0;  // arena offset, document id or temporary number
  uint32_t size = 0;   // kArena length
  Kind kind = kEmpty;

  static Text Arena(size_t offset, size_t size) {
    return Text{static_cast<uint32_t>(offset), static_cast<uint32_t>(size), kArena};
  }
  static Text Doc(DocId id) { return Text{id, 0, kDoc}; }
  static Text Temp(uint32_t n) { return Text{n, 0, kTemp}; }
};

class RelayTextPrinter {
 public:
  explicit RelayTextPrinter(bool show_types) : show_types_(show_types) {}

  // `def @name(...) -> R {...}` for a global function; returns its document.
  // Each definition is printed with fresh node memos (see printer.h) but the
  // `%N` counter, the variable names and the constants carry over.
  DocId PrintDefinition(const GlobalVar* global, const Function* fn);
  // An expression on its own (TVM PrintFinal: a scope, free vars declared).
  DocId PrintStandalone(const Expr* expr);

  DocStore& docs() { return docs_; }
  // The tensors printed as meta[relay.Constant][i], in index order.
  const std::vector<NDArray>& constants() const { return constants_; }

 private:
  enum Flag : uint8_t {
    kVisited = 1,  // TVM memo_: the node has text (or a name)
    kBound = 2,    // TVM var_memo_: bound to %N, or a var seen by Print
    kFreeVar = 4,  // TVM result_memo_: a var first met as a free variable
  };
  struct NodeState {
    Text memo;            // text, %N or (vars) the name
    uint8_t parents = 0;  // dependency-graph in-edges, saturated at 2
    uint8_t flags = 0;
  };
  struct Frame {
    enum Kind : uint8_t { kPrint, kVisit, kFunction, kIf, kLet, kScope };
    Kind kind;
    uint8_t stage = 0;
    bool flag = false;  // kPrint: try_inline; kFunction: top-level def; kLet: doc pushed
    const Expr* expr = nullptr;
    const Expr* cursor = nullptr;         // kLet: current link of the chain
    const GlobalVar* global = nullptr;    // kFunction: the def's name
    DocId doc = 0;                        // the document being built
    size_t base = 0;                      // kVisit: bottom of its dataflow stack
    Text pending;                         // kLet: declaration of the current var
  };

  // An entry of the dataflow walk's stack.
  struct Pending {
    const Expr* expr;
    uint32_t index;  // into nodes_
    bool expanded;   // children pushed
  };

  // Dependency graph (TVM DependencyGraph): parent counts for IsUnique.
  void BuildGraph(const Expr* root);
  // The slot of `e` in nodes_ (a new one for a node the graph did not reach).
  uint32_t Index(const Expr* e);
  // The state of `e`; the reference lives until the next Index() insertion.
  NodeState& State(const Expr* e) { return nodes_[Index(e)]; }
  bool Visited(uint32_t index) const { return (nodes_[index].flags & kVisited) != 0; }

  // The machine.
  Text Run();
  void Push(Frame::Kind kind, const Expr* expr, bool flag = false);
  void StepPrint();
  void StepVisit();
  void StepFunction();
  void StepIf();
  void StepLet();
  void StepScope();
  // TVM PrintExpr after VisitExpr: inline, reuse or bind `e`.
  Text FinishPrint(const Expr* e, bool try_inline);
  // Records the text of a leaf (TVM VisitLeaf's memo).
  void LeafDone(uint32_t index, Text text);
  // Emits `%N = text;` or `free_var ...;` into the innermost scope.
  void EmitLine(std::string_view prefix, Text text);

  // Leaves (printer_relay_leaf.cc).
  void VisitLeaf(const Expr* e, uint32_t index);
  void PushChildren(const Expr* e);
  Text CallText(const Call* call);
  Text TupleText(const Tuple* tuple);
  Text ProjectionText(const TupleGetItem* item);
  Text ConstantText(const Constant* constant);
  Text GlobalText(const GlobalVar* global);
  Text ArenaText(std::string_view s);
  // TVM AllocVar: a unique `%name`, returns the declaration.
  Text AllocVar(const Var* var, bool free);
  std::string UniqueName(std::string hint);
  void AppendTypeInfo(std::string* out, const Expr* e);
  void AppendType(std::string* out, const Type* type);
  void AppendText(std::string* out, Text text);
  Text WrapInParens(Text text);

  bool show_types_;
  DocStore docs_;
  std::string arena_;  // texts of nodes and names
  std::vector<Frame> frames_;
  std::vector<Pending> dataflow_;
  std::vector<DocId> scopes_;                           // TVM doc_stack_
  std::vector<Text> scratch_;                           // arguments of one call
  Text ret_;                                            // a finished frame's result
  // Node states, numbered by BuildGraph in depth-first order so that a walk
  // touches them mostly in sequence; one hash lookup finds a node's slot.
  absl::flat_hash_map<const Expr*, uint32_t> index_;
  std::vector<NodeState> nodes_;
  absl::flat_hash_map<const Expr*, Text> free_var_decls_;  // for the free_var lines
  absl::flat_hash_map<std::string, int> names_;  // TVM name_alloc_map_
  absl::flat_hash_map<const Type*, std::string> type_texts_;
  absl::flat_hash_map<const Expr*, uint32_t> meta_index_;
  std::vector<NDArray> constants_;
  uint32_t next_temp_ = 0;
};

}  // namespace carve::print_internal
