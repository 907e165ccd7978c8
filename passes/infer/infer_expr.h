// The expression typer behind InferType: types one root expression (a global
// function or a free-standing expression) and everything below it, once per
// node, with an explicit stack, then writes every node's checked_type.
//
// Op calls use the registry's type relations. A relation whose argument types
// are still open (holes of untyped parameters) is deferred and woken by the
// unifier once they are known: that is how the untyped composite functions
// of MergeComposite get their types from the call site, wherever the call is.
#pragma once

#include <array>
#include <deque>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/adt.h"
#include "ir/expr.h"
#include "ir/module.h"
#include "passes/infer/infer_unifier.h"
#include "support/diagnostics.h"

namespace carve {

// What a typer knows about global functions.
struct GlobalSignatures {
  // False when typing an expression without a module: globals are errors.
  bool has_module = false;
  // When set, a reference to a global whose type is not known is not an
  // error of the typer: it is typed as Poison and listed in
  // ExprTyper::unknown_globals() for the caller to report.
  bool defer_unknown = false;
  // The module's data types (constructors and match patterns are typed
  // from their definitions); nullptr without a module.
  const Module* module = nullptr;
  // By name: the function's type (declared or already inferred), Poison when
  // its inference failed (already reported), or nullptr when it is defined
  // but its type is not known.
  absl::flat_hash_map<std::string_view, const Type*> types;
};

class ExprTyper {
 public:
  // Diagnostics go to `diags`; `globals` must outlive the typer.
  ExprTyper(const GlobalSignatures& globals, DiagnosticEngine& diags)
      : globals_(globals), diags_(diags) {}

  // Types `root` and every node reachable from it, then sets each node's
  // checked_type (nullptr where inference failed). Returns the type of
  // `root`, or Poison when it could not be inferred (errors are in diags).
  const Type* Run(const Expr* root);

  // The globals of unknown type the last Run met (see defer_unknown).
  const std::vector<std::string_view>& unknown_globals() const { return unknown_globals_; }
  // Whether the last Run met, below its root, a variable without type
  // annotation or a function without return type (what
  // FillMissingTypeAnnotations writes); a root function's own return type
  // does not count.
  bool met_unannotated() const { return met_unannotated_; }

 private:
  // A node on the explicit stack and how many of its steps are done, packed
  // in one word (nodes are 8-aligned; no node has more than 7 steps): a
  // chain of a million calls puts a million frames on the stack.
  class Frame {
   public:
    explicit Frame(const Expr* e) : bits_(reinterpret_cast<uintptr_t>(e)) {}
    const Expr* e() const { return reinterpret_cast<const Expr*>(bits_ & ~kStageMask); }
    unsigned stage() const { return static_cast<unsigned>(bits_ & kStageMask); }
    // Moves to the next step; returns the stage before the move.
    unsigned Advance() { return static_cast<unsigned>(bits_++ & kStageMask); }

   private:
    static constexpr uintptr_t kStageMask = 7;
    static_assert(alignof(Expr) > kStageMask);
    uintptr_t bits_;
  };
  // An op call or projection waiting for its input types.
  struct Deferred {
    const Expr* node;
    const IncompleteType* out;
    bool done;
  };
  struct Binder {
    const Var* var;
    bool free;
  };

  void Reset();
  void Step();
  void Push(const Expr* e);
  void Done(const Expr* e, const Type* t);
  void SetType(const Expr* e, const Type* t);
  const Type* TypeOf(const Expr* e) const;
  const Type* Resolved(const Expr* e) { return unifier_.Resolve(TypeOf(e)); }

  void StepCall(Frame& frame);
  void StepTuple(Frame& frame);
  void StepIf(Frame& frame);
  void StepRefWrite(Frame& frame);
  void StepLet(Frame& frame);
  void StepFunction(Frame& frame);
  const Type* FreeVarType(const Var* v);
  const Type* GlobalType(const GlobalVar* gv);
  const Type* ConstantType(const Constant* c);
  const Type* TypeOpCall(const Call* call);
  const Type* TypeClosureCall(const Call* call);
  const Type* RunRelation(const Call* call);
  const Type* TypeProjection(const TupleGetItem* g);
  const Type* Project(const TupleGetItem* g, const Type* tuple_type);
  const Type* TypeIf(const If* e);
  // References, in infer_ref.cc.
  const Type* TypeRefRead(const RefRead* e);
  const Type* TypeRefWrite(const RefWrite* e);
  void BindLetVar(const Let* let);
  // Algebraic data types, in infer_adt.cc.
  const TypeData* DataTypeOf(const Constructor* ctor);
  const Type* TypeConstructor(const Constructor* ctor);
  void StepMatch(Frame& frame);
  // Types the variables `pattern` binds for a value of type `t`; false (and
  // reported) when the pattern cannot match such a value.
  bool TypePattern(const AdtPattern* pattern, const Type* t, const Match* match);
  // TypePattern for each kind of pattern but the wildcard.
  bool TypeVarPattern(const Var* var, const Type* t);
  bool TypeConstructorPattern(const AdtPattern* pattern, const Type* t, const Match* match);
  bool TypeTuplePattern(const AdtPattern* pattern, const Type* t, const Match* match);
  const Type* TypeMatch(const Match* match);
  // TVM's exhaustiveness check of a complete `match`.
  void CheckExhaustive(const Match* match);
  const Type* FunctionType(const Function* fn);

  const Type* Defer(const Expr* node);
  bool WatchFirstHole(const Type* resolved, uint32_t id);
  void Drain();
  void Solve(uint32_t id);
  // Replaces every recorded node's type by its resolution and returns the
  // first node whose type still has holes, or nullptr.
  const Expr* ResolveAll();
  // Ends a run: clears the nodes' marks and the types that are not complete
  // (nullptr = inference failed there).
  void Finish(const Expr* root);
  static bool IsTyped(const Expr* e);
  void ReportUnresolved(const Expr* first_open);
  // Reports an error (up to a limit) and returns Poison.
  const Type* Error(Span span, std::string message);
  std::string Show(const Type* t) { return TypeToString(unifier_.Resolve(t)); }

  const GlobalSignatures& globals_;
  DiagnosticEngine& diags_;
  size_t errors_at_start_ = 0;
  TypeUnifier unifier_;
  // While Run is typing, a node's (unresolved) type lives in its own
  // checked_type field and its scratch mark says it was typed in this run;
  // Finish clears the marks. Node-side storage instead of a hash map keeps
  // the typer's memory to its stacks.
  //
  // The nodes typed since the first type that was not complete, in typing
  // order: the only ones whose types ResolveAll must resolve (a fully
  // annotated program records none). A deque grows without copying.
  std::deque<const Expr*> order_;
  bool recording_ = false;
  std::vector<const Expr*> clear_stack_;
  std::vector<Binder> binders_;  // where unresolved holes are reported
  // A deque, which gives memory back as it shrinks: the stack is deepest
  // early on (down a chain), the typed-node list largest at the end.
  std::deque<Frame> stack_;
  std::vector<Deferred> deferred_;
  std::vector<const Type*> scratch_;  // argument / field types of the current node
  std::vector<std::string_view> unknown_globals_;
  const Expr* root_ = nullptr;
  bool met_unannotated_ = false;
  // Relation results by (op, attrs, argument types): relations are pure and
  // types and attrs are interned, so a network that repeats a layer shape
  // runs each relation once per distinct shape.
  struct RelationKey {
    const OpInfo* op;
    const Attrs* attrs;
    size_t num_args;
    std::array<const Type*, 3> args;
    // Field by field: the defaulted comparison calls memcmp for the array.
    bool operator==(const RelationKey& o) const {
      return op == o.op && attrs == o.attrs && num_args == o.num_args && args[0] == o.args[0] &&
             args[1] == o.args[1] && args[2] == o.args[2];
    }
    template <typename H>
    friend H AbslHashValue(H h, const RelationKey& k) {
      return H::combine(std::move(h), k.op, k.attrs, k.num_args, k.args[0], k.args[1], k.args[2]);
    }
  };
  absl::flat_hash_map<RelationKey, const Type*> relation_cache_;
  // The last result of each slot of a direct-mapped table in front of
  // relation_cache_, placed by a multiply-xor of the key: a network repeats
  // the same few keys call after call, and a hit costs a few compares where
  // the map hashes six words and probes.
  struct RecentRelation {
    RelationKey key{};
    const Type* type = nullptr;
  };
  static constexpr size_t kRecentRelations = 256;
  static size_t RecentSlot(const RelationKey& key);
  std::array<RecentRelation, kRecentRelations> recent_relations_{};
};

}  // namespace carve
