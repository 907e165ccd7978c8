#include "ir/structural_hash.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "ir/visit.h"

namespace carve {
namespace {

class Hasher {
 public:
  // Post-order with an explicit stack; the memo doubles as the visited set.
  size_t Run(const Expr* root) {
    std::vector<std::pair<const Expr*, bool>> stack;  // (node, children pushed)
    stack.emplace_back(root, false);
    while (!stack.empty()) {
      auto [e, expanded] = stack.back();
      if (memo_.contains(e)) {
        stack.pop_back();
      } else if (!expanded) {
        stack.back().second = true;
        size_t first = stack.size();
        ForEachChild(e, [&](const Expr* c) {
          if (!memo_.contains(c)) stack.emplace_back(c, false);
        });
        std::reverse(stack.begin() + first, stack.end());  // first child on top
      } else {
        memo_.emplace(e, HashNode(e));
        stack.pop_back();
      }
    }
    return memo_.at(root);
  }

 private:
  size_t Of(const Expr* child) const { return memo_.at(child); }

  size_t HashNode(const Expr* e) {
    size_t h = absl::HashOf(static_cast<int>(e->kind()));
    switch (e->kind()) {
      case ExprKind::kVar: {
        // Alpha-invariant: the order of first encounter, not the name.
        auto [it, inserted] = var_numbers_.try_emplace(e, var_numbers_.size());
        return absl::HashOf(h, it->second, HashType(Cast<Var>(e)->annotation()));
      }
      case ExprKind::kGlobalVar:
        return absl::HashOf(h, Cast<GlobalVar>(e)->name());
      case ExprKind::kConstant: {
        const NDArray& data = Cast<Constant>(e)->data();
        std::string_view bytes(static_cast<const char*>(data.raw_data()), data.nbytes());
        return absl::HashOf(h, data.dtype(), data.shape(), bytes);
      }
      case ExprKind::kOp:
        return absl::HashOf(h, Cast<OpExpr>(e)->name());
      case ExprKind::kCall: {
        auto* c = Cast<Call>(e);
        h = absl::HashOf(h, Of(c->callee()), HashAttrs(c->attrs()), c->args().size());
        for (const Expr* a : c->args()) h = absl::HashOf(h, Of(a));
        return h;
      }
      case ExprKind::kTuple: {
        auto* t = Cast<Tuple>(e);
        h = absl::HashOf(h, t->fields().size());
        for (const Expr* f : t->fields()) h = absl::HashOf(h, Of(f));
        return h;
      }
      case ExprKind::kTupleGetItem: {
        auto* g = Cast<TupleGetItem>(e);
        return absl::HashOf(h, g->index(), Of(g->tuple()));
      }
      case ExprKind::kLet: {
        auto* l = Cast<Let>(e);
        return absl::HashOf(h, Of(l->var()), Of(l->value()), Of(l->body()));
      }
      case ExprKind::kIf: {
        auto* i = Cast<If>(e);
        return absl::HashOf(h, Of(i->cond()), Of(i->then_branch()), Of(i->else_branch()));
      }
      case ExprKind::kFunction: {
        auto* f = Cast<Function>(e);
        h = absl::HashOf(h, f->params().size(), f->type_params().size(), HashType(f->ret_type()),
                         HashAttrs(f->attrs()));
        for (const Var* p : f->params()) h = absl::HashOf(h, Of(p));
        return absl::HashOf(h, Of(f->body()));
      }
      // ---- References ----
      case ExprKind::kRefCreate:
        return absl::HashOf(h, Of(Cast<RefCreate>(e)->value()));
      case ExprKind::kRefRead:
        return absl::HashOf(h, Of(Cast<RefRead>(e)->ref()));
      case ExprKind::kRefWrite:
        return absl::HashOf(h, Of(Cast<RefWrite>(e)->ref()), Of(Cast<RefWrite>(e)->value()));
      // ---- Algebraic data types ----
      case ExprKind::kConstructor: {
        auto* c = Cast<Constructor>(e);
        return absl::HashOf(h, c->name(), c->belongs_to()->name(), c->tag());
      }
      case ExprKind::kMatch: {
        auto* m = Cast<Match>(e);
        h = absl::HashOf(h, m->complete(), Of(m->data()), m->clauses().size());
        for (const Clause& clause : m->clauses()) {
          h = absl::HashOf(h, HashPattern(clause.lhs), Of(clause.rhs));
        }
        return h;
      }
    }
    return h;
  }

  // The pattern's shape; the variables it binds count by position (they
  // are numbered where the right-hand side reads them).
  size_t HashPattern(const AdtPattern* p) {
    size_t h = absl::HashOf(static_cast<int>(p->kind()), p->fields().size());
    if (p->kind() == AdtPattern::Kind::kConstructor) h = absl::HashOf(h, p->constructor()->name());
    if (p->kind() == AdtPattern::Kind::kVar) h = absl::HashOf(h, HashType(p->var()->annotation()));
    for (const AdtPattern* f : p->fields()) h = absl::HashOf(h, HashPattern(f));
    return h;
  }

  // Consistent with StructuralEqual on types: tensors by content, `_` and
  // type variables by kind only (they match up to renaming).
  size_t HashType(const Type* t) {
    if (t == nullptr) return 0;
    auto it = type_memo_.find(t);
    if (it != type_memo_.end()) return it->second;
    size_t h = absl::HashOf(static_cast<int>(t->kind()));
    switch (t->kind()) {
      case TypeKind::kTensor: {
        auto* tt = static_cast<const TensorType*>(t);
        h = absl::HashOf(h, tt->dtype(), absl::MakeConstSpan(tt->shape().data(), tt->rank()));
        break;
      }
      case TypeKind::kTuple:
        for (const Type* f : static_cast<const TupleType*>(t)->fields()) {
          h = absl::HashOf(h, HashType(f));
        }
        break;
      case TypeKind::kFunc: {
        auto* ft = static_cast<const FuncType*>(t);
        h = absl::HashOf(h, ft->type_params().size(), HashType(ft->ret()));
        for (const Type* p : ft->params()) h = absl::HashOf(h, HashType(p));
        break;
      }
      case TypeKind::kRef:
        h = absl::HashOf(h, HashType(static_cast<const RefType*>(t)->value()));
        break;
      case TypeKind::kGlobalTypeVar:
        h = absl::HashOf(h, static_cast<const GlobalTypeVar*>(t)->name());
        break;
      case TypeKind::kTypeCall: {
        auto* tc = static_cast<const TypeCall*>(t);
        h = absl::HashOf(h, HashType(tc->func()));
        for (const Type* a : tc->args()) h = absl::HashOf(h, HashType(a));
        break;
      }
      case TypeKind::kTypeVar:
      case TypeKind::kIncomplete:
        break;
    }
    type_memo_.emplace(t, h);
    return h;
  }

  // Null and the empty dictionary are the same "no attributes"; dictionary
  // entries combine commutatively because their order does not matter.
  size_t HashAttrs(const Attrs* attrs) {
    if (attrs == nullptr || (attrs->schema() == nullptr && attrs->empty())) return 0;
    auto it = attrs_memo_.find(attrs);
    if (it != attrs_memo_.end()) return it->second;
    size_t h;
    if (attrs->schema() != nullptr) {
      h = absl::HashOf(attrs->schema()->type_key);
      for (const AttrEntry& entry : attrs->entries()) h = absl::HashOf(h, entry.value);
    } else {
      h = 0;
      for (const AttrEntry& entry : attrs->entries()) h += absl::HashOf(entry.key, entry.value);
    }
    attrs_memo_.emplace(attrs, h);
    return h;
  }

  absl::flat_hash_map<const Expr*, size_t> memo_;
  absl::flat_hash_map<const Expr*, size_t> var_numbers_;
  absl::flat_hash_map<const Type*, size_t> type_memo_;
  absl::flat_hash_map<const Attrs*, size_t> attrs_memo_;
};

}  // namespace

size_t StructuralHash(const Expr* e) {
  if (e == nullptr) return 0;
  return Hasher().Run(e);
}

size_t StructuralHash(const Module& mod) {
  size_t h = absl::HashOf(mod.size());
  for (const auto& [gv, fn] : mod.Functions()) {
    h = absl::HashOf(h, gv->name(), StructuralHash(fn));
  }
  return h;
}

}  // namespace carve
