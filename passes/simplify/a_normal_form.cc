#include "passes/simplify/a_normal_form.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/adt.h"
#include "ir/rebuild.h"
#include "ir/visit.h"
#include "passes/byoc/annotation.h"
#include "support/large_stack.h"

namespace carve {
namespace {

// The scopes of TVM's dependency graph: the function being converted, and a
// new one below its parent for each function body, if branch, match clause
// and let. Each collects the bindings placed in it.
struct Scope {
  int parent = -1;
  int level = 0;
  std::vector<std::pair<const Var*, const Expr*>> lets;
};

// Which expression depends on which, with a node of its own for each edge
// that opens a scope (TVM's relay/analysis/dependency_graph): the scope of an
// expression is the lowest common ancestor of the scopes of its uses.
class DependencyGraph {
 public:
  explicit DependencyGraph(const Expr* root) { Visit(root); }

  int NodeOf(const Expr* e) const { return id_.at(e); }
  int Child(int node, size_t i) const { return nodes_[node].children[i]; }

  // The scope of every node, parents before children.
  std::vector<int> Scopes(std::vector<Scope>& scopes) const {
    std::vector<int> scope_of(nodes_.size(), -1);
    scopes.assign(1, Scope{});
    for (auto it = post_order_.rbegin(); it != post_order_.rend(); ++it) {
      const Node& n = nodes_[*it];
      int s = 0;
      if (!n.parents.empty()) {
        s = scope_of[n.parents[0]];
        for (size_t i = 1; i < n.parents.size(); ++i) s = Lca(scopes, s, scope_of[n.parents[i]]);
      }
      if (n.new_scope) {
        scopes.push_back(Scope{s, scopes[s].level + 1, {}});
        s = int(scopes.size()) - 1;
      }
      scope_of[*it] = s;
    }
    return scope_of;
  }

 private:
  struct Node {
    bool new_scope = false;
    std::vector<int> parents, children;
  };

  static int Lca(const std::vector<Scope>& scopes, int a, int b) {
    while (a != b) {
      if (scopes[a].level > scopes[b].level) {
        a = scopes[a].parent;
      } else if (scopes[a].level < scopes[b].level) {
        b = scopes[b].parent;
      } else {
        a = scopes[a].parent;
        b = scopes[b].parent;
      }
    }
    return a;
  }

  int NewNode(bool new_scope) {
    nodes_.push_back(Node{new_scope, {}, {}});
    return int(nodes_.size()) - 1;
  }
  void Link(int parent, int child) {
    nodes_[child].parents.push_back(parent);
    nodes_[parent].children.push_back(child);
  }
  void Depend(int parent, const Expr* child) { Link(parent, Visit(child)); }
  // A new scope under `parent` holding `children`.
  void DependInScope(int parent, std::initializer_list<const Expr*> children) {
    int b = NewNode(true);
    Link(parent, b);
    for (const Expr* c : children) Depend(b, c);
    post_order_.push_back(b);
  }

  int Visit(const Expr* e) {
    if (auto it = id_.find(e); it != id_.end()) return it->second;
    int n = NewNode(false);
    id_.emplace(e, n);
    switch (e->kind()) {
      case ExprKind::kIf: {
        auto* i = Cast<If>(e);
        Depend(n, i->cond());
        DependInScope(n, {i->then_branch()});
        DependInScope(n, {i->else_branch()});
        break;
      }
      case ExprKind::kFunction: {
        auto* f = Cast<Function>(e);
        int b = NewNode(true);
        Link(n, b);
        for (const Var* p : f->params()) Depend(b, p);
        Depend(b, f->body());
        post_order_.push_back(b);
        break;
      }
      case ExprKind::kLet: {
        auto* l = Cast<Let>(e);
        DependInScope(n, {l->var(), l->value(), l->body()});
        break;
      }
      case ExprKind::kMatch: {
        auto* m = Cast<Match>(e);
        Depend(n, m->data());
        for (const Clause& c : m->clauses()) DependInScope(n, {c.rhs});
        break;
      }
      default:
        ForEachChild(e, [&](const Expr* c) { Depend(n, c); });
    }
    post_order_.push_back(n);
    return n;
  }

  std::vector<Node> nodes_;
  absl::flat_hash_map<const Expr*, int> id_;
  std::vector<int> post_order_;
};

// TVM's Fill: binds every compound expression in its scope's let list.
class Fill {
 public:
  Fill(const Function* fn, Arena* arena) : graph_(fn), builder_(arena) {
    scope_of_ = graph_.Scopes(scopes_);
  }

  const Function* Run(const Function* fn) { return Cast<Function>(Visit(fn, nullptr)); }

 private:
  int ScopeOf(const Expr* e) const { return scope_of_[graph_.NodeOf(e)]; }
  int SubScope(const Expr* e, size_t i) const {
    return scope_of_[graph_.Child(graph_.NodeOf(e), i)];
  }

  const Var* Push(int scope, const Var* var, const Expr* value) {
    scopes_[scope].lets.emplace_back(var, value);
    return var;
  }
  // `body` under the bindings of `scope`, in the order they were made.
  const Expr* Get(int scope, const Expr* body) {
    std::vector<std::pair<const Var*, const Expr*>>& lets = scopes_[scope].lets;
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
      body = builder_.MakeLet(it->first, it->second, body);
    }
    lets.clear();
    return body;
  }

  const Expr* Visit(const Expr* e, const Var* var) {
    auto it = memo_.find(e);
    if (it == memo_.end()) {
      it = memo_.emplace(e, VisitNew(e, var)).first;
    } else if (var != nullptr) {
      Push(ScopeOf(e), var, it->second);
    }
    return it->second;
  }

  const Expr* Atomic(const Expr* e, const Var* var) {
    return var != nullptr ? Push(ScopeOf(e), var, e) : e;
  }

  // Binds `now` (the converted `orig`) to `var` or a fresh variable; a let
  // chain's bindings move into the scope instead of nesting.
  const Expr* Compound(const Expr* orig, const Expr* now, const Var* var) {
    if (var == nullptr) var = builder_.MakeVar("x");
    int scope = ScopeOf(orig);
    while (const Let* let = DynCast<Let>(now)) {
      Push(scope, let->var(), let->value());
      now = let->body();
    }
    return Push(scope, var, now);
  }

  const Expr* VisitNew(const Expr* e, const Var* var) {
    switch (e->kind()) {
      case ExprKind::kVar:
      case ExprKind::kGlobalVar:
      case ExprKind::kOp:
      case ExprKind::kConstructor:
        return Atomic(e, var);
      case ExprKind::kConstant:
        return Compound(e, e, var);
      case ExprKind::kCall: {
        auto* c = Cast<Call>(e);
        std::vector<const Expr*> kids(1 + c->args().size());
        for (size_t i = 0; i < c->args().size(); ++i) kids[i + 1] = Visit(c->args()[i], nullptr);
        kids[0] = Visit(c->callee(), nullptr);
        return Compound(e, RebuildWithChildren(builder_, e, kids), var);
      }
      case ExprKind::kIf: {
        auto* i = Cast<If>(e);
        const Expr* cond = Visit(i->cond(), nullptr);
        const Expr* then_branch = Get(SubScope(e, 1), Visit(i->then_branch(), nullptr));
        const Expr* else_branch = Get(SubScope(e, 2), Visit(i->else_branch(), nullptr));
        return Compound(e, builder_.MakeIf(cond, then_branch, else_branch, e->span()), var);
      }
      case ExprKind::kFunction:
        return VisitFunction(Cast<Function>(e), var);
      case ExprKind::kLet: {
        auto* l = Cast<Let>(e);
        Visit(l->value(), l->var());
        return Compound(e, Get(SubScope(e, 0), Visit(l->body(), nullptr)), var);
      }
      case ExprKind::kMatch: {
        auto* m = Cast<Match>(e);
        const Expr* data = Visit(m->data(), nullptr);
        std::vector<Clause> clauses;
        for (const Clause& c : m->clauses()) {
          clauses.push_back({c.lhs, Get(SubScope(e, 1 + clauses.size()), Visit(c.rhs, nullptr))});
        }
        return Compound(e, MakeMatch(builder_.arena(), data, clauses, m->complete(), e->span()),
                        var);
      }
      default: {  // tuple, projection, reference ops: operands, then the node
        std::vector<const Expr*> kids;
        ForEachChild(e, [&](const Expr* c) { kids.push_back(Visit(c, nullptr)); });
        return Compound(e, RebuildWithChildren(builder_, e, kids), var);
      }
    }
  }

  const Expr* VisitFunction(const Function* f, const Var* var) {
    const Expr* converted = f;
    if (!f->HasAttr(attr::kPrimitive)) {
      ++nesting_;
      const Expr* body = Get(SubScope(f, 0), Visit(f->body(), nullptr));
      --nesting_;
      converted =
          builder_.MakeFunctionWithParamsOf(f, body, f->ret_type(), f->attrs(), f->span());
    }
    // A global function stays the module's; a local one is bound.
    return nesting_ == 0 ? converted : Compound(f, converted, var);
  }

  DependencyGraph graph_;
  IRBuilder builder_;
  std::vector<Scope> scopes_;
  std::vector<int> scope_of_;
  absl::flat_hash_map<const Expr*, const Expr*> memo_;
  int nesting_ = 0;
};

}  // namespace

const Function* ToANormalFormFunction(const Function* fn, Arena* arena) {
  const Function* result = nullptr;
  // Recursion as deep as the expression: a million-op chain needs far more
  // than the default 8 MB stack.
  RunWithLargeStack([&] { result = Fill(fn, arena).Run(fn); });
  return result;
}

PassPtr ToANormalForm() {
  return MakeFunctionPass(
      "ToANormalForm", "",
      [](const Function* fn, const Module& mod, PassContext&) -> absl::StatusOr<const Function*> {
        return ToANormalFormFunction(fn, mod.arena());
      });
}

}  // namespace carve
