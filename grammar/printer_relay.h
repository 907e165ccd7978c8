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

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "grammar/metadata.h"
#include "grammar/printer_doc.h"
#include "grammar/printer_names.h"
#include "grammar/printer_text.h"
#include "ir/address_map.h"
#include "ir/adt.h"
#include "ir/recent_cache.h"
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

// Writes `%n` (a temporary's name) at `p`, which has room for 11 bytes;
// returns the end.
char* WriteTemp(char* p, uint32_t n);
// A type definition as TVM's printer writes it: `type List[A] {` then one
// constructor a line, each followed by ',', then `}`.
std::string TypeDataText(const TypeData* data);
// Appends `%n`.
void AppendTemp(std::string* out, uint32_t n);

class RelayTextPrinter final : public VirtualDeviceTable {
 public:
  // `meta_attrs`: print the attrs of ops that declare no attrs type (as
  // compiler_begin/end, cumsum, vision.*) as meta references
  // (PrintOptions::meta_attrs).
  // `meta_devices`: print virtual devices as `meta[VirtualDevice][i]`; when
  // false (no metadata section), as TVM's repr `VirtualDevice(...)`, which
  // TVM's printer writes with show_meta_data=False.
  explicit RelayTextPrinter(bool show_types, bool meta_attrs = false, bool meta_devices = true)
      : show_types_(show_types), meta_attrs_(meta_attrs), meta_devices_(meta_devices) {}

  // `def @name(...) -> R {...}` for a global function; returns its document.
  // Each definition is printed with fresh node memos (see printer.h) but the
  // `%N` counter, the variable names and the constants carry over.
  DocId PrintDefinition(const GlobalVar* global, const Function* fn);
  // An expression on its own (TVM PrintFinal: a scope, free vars declared).
  DocId PrintStandalone(const Expr* expr);

  DocStore& docs() { return docs_; }

  // Streaming (PrintModuleTo): while a definition prints, each line finished
  // in its body is rendered into `*out` at once (after the definition's head)
  // and its documents (functions, ifs, lets it holds) are released for reuse:
  // a document is referred to by one line only. `flush` is called (it empties
  // `*out`) whenever `*out` holds `chunk` bytes. So the body's text never
  // holds more than a line, and its documents stay few and warm in cache.
  void SetStream(std::string* out, size_t chunk, std::function<void()> flush);
  // Streaming: renders into the stream's output what is left of `def` (the
  // document PrintDefinition returned).
  void FinishDefinition(DocId def);
  // The tensors printed as meta[relay.Constant][i], in index order.
  const std::vector<NDArray>& constants() const { return metadata_.constants; }
  // Everything printed as `meta[...][i]`: constants and (with meta_attrs)
  // attrs objects, for WriteMetadata. Empty when nothing was.
  const MetadataTables& metadata() const { return metadata_; }
  // Fills metadata().constant_dims: which shape dims of the printed
  // constants are one object in TVM, found by DimIdentity over `roots` (the
  // printed definitions or expression).
  void ComputeConstantDims(std::span<const Expr* const> roots);
  // meta[VirtualDevice][i]: numbered by first use (metadata().virtual_devices).
  uint32_t Index(const VirtualDevice* device) override;

 private:
  enum Flag : uint8_t {
    kVisited = 1,  // TVM memo_: the node has text (or a name)
    kBound = 2,    // TVM var_memo_: bound to %N, or a var seen by Print
    kFreeVar = 4,  // TVM result_memo_: a var first met as a free variable
  };
  struct NodeState {
    Text memo;                // text, %N or (vars) the name
    uint32_t first_edge = 0;  // the slots of its children: edges_[first_edge...]
    // Dependency-graph in-edges, saturated at kMaxParents (IsUnique reads
    // `<= 1`; EscapingNodes compares exact counts below the cap).
    uint16_t parents = 0;
    uint8_t flags = 0;
    // The node's kind, copied by BuildGraph: FinishPrint and the walk decide
    // by it without reading the node again (a cache miss for a node visited
    // long before, such as a parameter or a fn literal bound late).
    ExprKind kind = ExprKind::kVar;
  };
  struct Frame {
    enum Kind : uint8_t { kPrint, kVisit, kFunction, kIf, kLet, kScope, kMatch };
    Kind kind;
    uint8_t stage = 0;
    // kPrint: try_inline; kFunction: top-level def; kLet: doc pushed;
    // kScope: `doc` is a ScratchScope.
    // kMatch: `base` is the clause being printed, `link_node` the index of
    // the next child slot (pattern variables and right-hand sides).
    bool flag = false;
    uint32_t node = 0;       // slot of `expr`
    uint32_t link_node = 0;  // kLet: slot of `link`
    const Expr* expr = nullptr;
    const Expr* link = nullptr;         // kLet: current link of the chain
    const GlobalVar* global = nullptr;  // kFunction: the def's name
    DocId doc = 0;                      // the document being built
    size_t base = 0;                    // kVisit: bottom of its dataflow stack
    Text pending;                       // kLet: declaration of the current var
  };
  // An entry of the dataflow walk's stack.
  struct Pending {
    const Expr* expr;
    uint32_t node;
    bool expanded;  // children pushed
  };

  // The graph (printer_relay_graph.cc): TVM's DependencyGraph, whose parent
  // counts decide IsUnique, stored as slots. BuildGraph numbers the nodes
  // reachable from `root` in depth-first order and records the slots of each
  // node's children (call: callee, args; tuple: fields; projection: tuple;
  // if: cond, then, else; function: params, body; let: var, value, body), so
  // that printing walks slots and never looks a pointer up again. Binders
  // (params, let vars) are recorded but are not parents' edges.
  void BuildGraph(const Expr* root);
  // The slot of `e` (a new one for a node the graph did not reach).
  uint32_t Slot(const Expr* e);
  // BuildGraph's Slot: a new node gets `kind` without a read of `e`.
  uint32_t NewSlot(const Expr* e, ExprKind kind, bool* inserted);
  uint32_t Child(uint32_t node, size_t k) const { return edges_[nodes_[node].first_edge + k]; }
  bool Visited(uint32_t node) const { return (nodes_[node].flags & kVisited) != 0; }

  static constexpr uint16_t kMaxParents = 0xffff;

  // Scopes (printer_relay_scope.cc). TVM binds a node in the scope where
  // its first non-inlined use is printed: a node used inside an if branch, a
  // fn body or a let and also outside it would be bound inside and referred
  // to outside, where `%N` is undefined (TVM prints such text too). So,
  // before such a node's frame runs, every non-atom node reachable from one
  // of its bodies and used outside that body is bound first, in the
  // enclosing scope. On text TVM prints validly these nodes are bound
  // already and nothing changes.
  //
  // Pushes kPrint frames binding the escaping nodes of the if / fn / let at
  // `node`, in post-order; false when there are none.
  bool HoistEscapingNodes(const Expr* e, uint32_t node);
  // Appends to `out`, in post-order, the unbound non-atom nodes reachable
  // from `roots` (one body, whose edges from its owner count as inside) that
  // have a use outside that body.
  void EscapingNodes(std::initializer_list<std::pair<const Expr*, uint32_t>> roots,
                     std::vector<std::pair<const Expr*, uint32_t>>* out);
  // Calls f(child, slot) for each dependency edge of `e` (binders excluded).
  template <typename F>
  void ForEachEdge(const Expr* e, uint32_t node, F&& f) const;

  // The machine (printer_relay.cc).
  Text Run();
  void Push(Frame::Kind kind, const Expr* expr, uint32_t node, bool flag = false);
  void StepPrint();
  void StepVisit();
  void StepFunction();
  // Appends `f`'s `def @name` or `fn` head up to its body, naming the
  // parameters.
  void AppendFunctionHead(std::string* out, const Frame& f);
  void StepIf();
  void StepLet();
  void StepScope();
  // TVM VisitExpr_(Match) (printer_relay_adt.cc): `match (data) {`, then
  // each clause `pattern => {` rhs `},`, then `}`.
  void StepMatch();
  // Appends `pattern`, naming the variables it binds (TVM AllocVar) with the
  // child slots from `*slot_index` on.
  void AppendPattern(std::string* out, const AdtPattern* pattern, uint32_t node,
                     uint32_t* slot_index);
  // The child index of the right-hand side of clause `k` (after the data and
  // each clause's pattern variables).
  static uint32_t ClauseRhsIndex(const Match* match, size_t k);
  // A nested scope's document: the reused one of its depth
  // (CloseScratchScope copies it out).
  DocId ScratchScope();
  // The finished text of `scratch`, frozen.
  DocId CloseScratchScope(DocId scratch);
  // Each print makes its own. PrintModuleTo truncates a definition's
  // documents (the ids from docs_.size() on are gone); the others are
  // released, so that a module printed whole reuses them rather than keeping
  // one string per depth per definition.
  void ResetScratchScopes() {
    for (DocId id : scratch_scopes_) {
      if (id < docs_.size()) docs_.Release(id);
    }
    scratch_scopes_.clear();
    open_scratch_ = 0;
  }
  // TVM PrintExpr after VisitExpr: inline, reuse or bind `e`.
  Text FinishPrint(const Expr* e, uint32_t node, bool try_inline);
  // Records the text of a leaf (TVM VisitLeaf's memo).
  void LeafDone(uint32_t node, Text text);
  // Emits `prefix text;` into the innermost scope.
  void EmitLine(std::string_view prefix, Text text);
  Text WrapInParens(Text text);
  // Streaming: renders a line just finished in the body's scope, and hands
  // the output on once it fills a chunk.
  void MaybeFlushBody() {
    if (stream_body_ != kNoDoc && scopes_.size() == 1) FlushBody();
  }
  void FlushBody();

  // Leaves (printer_relay_leaf.cc).
  void VisitLeaf(const Expr* e, uint32_t node);
  void PushChildren(const Expr* e, uint32_t node);
  Text CallText(const Call* call, uint32_t node);
  Text TupleText(const Tuple* tuple, uint32_t node);
  Text ProjectionText(const TupleGetItem* item, uint32_t node);
  // `ref(v)`, `ref_read(r)`, `ref_write(r, v)` (printer_relay_ref.cc).
  Text RefText(const Expr* e, uint32_t node);
  Text ConstantText(const Constant* constant);
  Text GlobalText(const GlobalVar* global);
  Text ArenaText(std::string_view s);
  // Appends the attributes of `call` to the arena (after its arguments).
  void AppendAttrs(const Call* call, bool no_args);
  // With meta_attrs: appends `meta[<type key>][i]` for a call whose attrs TVM
  // prints as a meta reference, recording the object; false for other calls.
  bool AppendMetaAttrs(const Call* call, bool no_args);
  // Records the first use of a metadata type key (the section's Map order).
  void NoteMetaKey(std::string_view key);
  // TVM AllocVar: a unique `%name`, returns the declaration (kept in the
  // arena).
  Text AllocVar(const Var* var, uint32_t node, bool free);
  // AllocVar's naming alone: the unique `%name`, which becomes the memo.
  Text NameVar(const Var* var, uint32_t node);
  // Appends the declaration of `var` named `name`:
  // `%name {virtual_device=meta[VirtualDevice][i]}: T /* ty */`.
  void AppendDecl(std::string* out, const Var* var, Text name);
  // Appends a unique `name` (TVM GetUniqueName of its name hint).
  void AppendUniqueName(std::string_view name);
  // Appends `fn`'s attributes, each preceded by ", " unless `first`.
  void AppendFunctionAttrs(std::string* out, const Attrs* attrs, bool first);
  void AppendTypeInfo(std::string* out, const Expr* e);
  void AppendType(std::string* out, const Type* type);
  void AppendText(std::string* out, Text text);

  // The table virtual devices are numbered in, or nullptr for the repr.
  VirtualDeviceTable* Devices() { return meta_devices_ ? this : nullptr; }

  bool show_types_;
  bool meta_attrs_;
  bool meta_devices_;
  DocStore docs_;
  std::string arena_;  // texts of nodes and names
  std::vector<Frame> frames_;
  std::vector<Pending> dataflow_;
  std::vector<DocId> scopes_;  // TVM doc_stack_
  std::vector<Text> scratch_;  // arguments of one call
  std::vector<DocId> scratch_scopes_;  // ScratchScope's documents, by depth
  size_t open_scratch_ = 0;
  Text ret_;                   // a finished frame's result
  AddressMap<uint32_t> slots_;  // node -> its index in nodes_
  std::vector<NodeState> nodes_;
  std::vector<uint32_t> edges_;
  // EscapingNodes' scratch: per slot, the in-edges seen from inside the
  // body, and a stamp telling which walk set it.
  std::vector<uint32_t> inner_uses_, inner_stamp_;
  uint32_t stamp_ = 0;
  absl::flat_hash_map<const Expr*, Text> free_var_decls_;  // for the free_var lines
  NameTable names_;  // TVM name_alloc_map_
  // The printed text of each (interned) type, formatted once into
  // type_text_; a small cache of recent types in front of the map.
  struct TypeText {
    uint32_t offset = 0;
    uint32_t size = 0;
  };
  absl::flat_hash_map<const Type*, TypeText> type_index_;
  std::string type_text_;
  RecentCache<TypeText, 64> type_recent_;
  // Function (dictionary) attributes, formatted once per attribute set as
  // `, k=v, ...`.
  absl::flat_hash_map<const Attrs*, std::string> dict_texts_;
  // Key: the attribute set and whether the callee is an op.
  absl::flat_hash_map<std::pair<const Attrs*, bool>, std::string> attr_texts_;
  absl::flat_hash_map<const Expr*, uint32_t> meta_index_;
  MetadataTables metadata_;  // constants and meta attrs objects
  std::vector<const Constant*> meta_constants_;  // metadata_.constants' nodes
  absl::flat_hash_map<const Call*, uint32_t> meta_attrs_index_;
  absl::flat_hash_map<const VirtualDevice*, uint32_t> device_index_;
  uint32_t next_temp_ = 0;
  // Streaming state (SetStream).
  static constexpr DocId kNoDoc = ~DocId{0};
  std::string* stream_out_ = nullptr;
  size_t stream_chunk_ = 0;
  std::function<void()> stream_flush_;
  size_t stream_indent_ = 0;   // indentation at the end of the rendered text
  DocId stream_def_ = kNoDoc;  // the definition being printed
  size_t stream_def_pos_ = 0;  // its bytes already rendered
  DocId stream_body_ = kNoDoc;  // its body's scope, while open
};

}  // namespace carve::print_internal
