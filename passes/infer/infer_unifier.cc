#include "passes/infer/infer_unifier.h"

#include "absl/container/inlined_vector.h"

namespace carve {

const IncompleteType* TypeUnifier::NewHole() {
  const IncompleteType* hole = NewIncompleteType();
  IndexOf(hole);
  return hole;
}

const Type* TypeUnifier::Poison() {
  static const Type* poison = NewIncompleteType();
  return poison;
}

uint32_t TypeUnifier::IndexOf(const IncompleteType* hole) {
  auto [it, inserted] = index_.try_emplace(hole, uint32_t(holes_.size()));
  if (inserted) {
    holes_.push_back(HoleInfo{it->second, nullptr, {}});
    hole_types_.push_back(hole);
  }
  return it->second;
}

uint32_t TypeUnifier::Find(uint32_t i) {
  uint32_t root = i;
  while (holes_[root].parent != root) root = holes_[root].parent;
  while (holes_[i].parent != root) {  // path compression
    uint32_t next = holes_[i].parent;
    holes_[i].parent = root;
    i = next;
  }
  return root;
}

const Type* TypeUnifier::Shallow(const Type* t) {
  if (!Isa<IncompleteType>(t) || t == Poison()) return t;
  uint32_t root = Find(IndexOf(static_cast<const IncompleteType*>(t)));
  const HoleInfo& info = holes_[root];
  return info.binding != nullptr ? info.binding : hole_types_[root];
}

bool TypeUnifier::ResolveAll(std::span<const Type* const> types,
                             absl::InlinedVector<const Type*, 8>& out) {
  // Most types are already resolved (a function of 50k annotated
  // parameters): copy nothing until the first one that changes.
  for (size_t i = 0; i < types.size(); ++i) {
    const Type* r = Resolve(types[i]);
    if (r == types[i]) continue;
    out.assign(types.begin(), types.begin() + i);
    out.push_back(r);
    for (size_t k = i + 1; k < types.size(); ++k) out.push_back(Resolve(types[k]));
    return true;
  }
  return false;
}

const Type* TypeUnifier::Resolve(const Type* t) {
  if (t == nullptr) return nullptr;
  switch (t->kind()) {
    case TypeKind::kTensor:
    case TypeKind::kTypeVar:
      return t;
    case TypeKind::kIncomplete: {
      const Type* s = Shallow(t);
      if (Isa<IncompleteType>(s)) return s;
      const Type* r = Resolve(s);
      // Remember the deeper resolution so later lookups are one step.
      holes_[Find(IndexOf(static_cast<const IncompleteType*>(t)))].binding = r;
      return r;
    }
    case TypeKind::kTuple: {
      if (complete_.contains(t)) return t;  // no hole to resolve
      auto fields = static_cast<const TupleType*>(t)->fields();
      absl::InlinedVector<const Type*, 8> out;
      if (!ResolveAll(fields, out)) return t;
      return TupleTy(out);
    }
    case TypeKind::kFunc: {
      if (complete_.contains(t)) return t;
      auto* ft = static_cast<const FuncType*>(t);
      absl::InlinedVector<const Type*, 8> params;
      bool changed = ResolveAll(ft->params(), params);
      const Type* ret = Resolve(ft->ret());
      if (!changed && ret == ft->ret()) return t;
      if (!changed) params.assign(ft->params().begin(), ft->params().end());
      return FuncTy(params, ret, ft->type_params());
    }
    case TypeKind::kRef: {
      const Type* v = static_cast<const RefType*>(t)->value();
      const Type* r = Resolve(v);
      return r == v ? t : RefTy(r);
    }
    case TypeKind::kTypeCall: {
      auto* tc = static_cast<const TypeCall*>(t);
      absl::InlinedVector<const Type*, 8> args;
      if (!ResolveAll(tc->args(), args)) return t;
      return TypeCallTy(tc->func(), args);
    }
    case TypeKind::kGlobalTypeVar:
      return t;
  }
  return t;
}

TypeUnifier::State TypeUnifier::ClassifyOther(const Type* resolved) const {
  if (resolved == nullptr) return State::kHoles;
  if (complete_.contains(resolved)) return State::kComplete;
  State s = ClassifyComposite(resolved);
  if (s == State::kComplete) complete_.insert(resolved);
  return s;
}

TypeUnifier::State TypeUnifier::ClassifyComposite(const Type* resolved) const {
  switch (resolved->kind()) {
    case TypeKind::kTensor:
    case TypeKind::kTypeVar:
      return State::kComplete;
    case TypeKind::kIncomplete:
      return resolved == Poison() ? State::kPoisoned : State::kHoles;
    case TypeKind::kTuple: {
      State s = State::kComplete;
      for (const Type* f : static_cast<const TupleType*>(resolved)->fields()) {
        State fs = Classify(f);
        if (fs == State::kPoisoned) return fs;
        if (fs == State::kHoles) s = fs;
      }
      return s;
    }
    case TypeKind::kFunc: {
      auto* ft = static_cast<const FuncType*>(resolved);
      State s = Classify(ft->ret());
      if (s == State::kPoisoned) return s;
      for (const Type* p : ft->params()) {
        State ps = Classify(p);
        if (ps == State::kPoisoned) return ps;
        if (ps == State::kHoles) s = ps;
      }
      return s;
    }
    case TypeKind::kRef:
      return Classify(static_cast<const RefType*>(resolved)->value());
    case TypeKind::kTypeCall: {
      State s = State::kComplete;
      for (const Type* a : static_cast<const TypeCall*>(resolved)->args()) {
        State as = Classify(a);
        if (as == State::kPoisoned) return as;
        if (as == State::kHoles) s = as;
      }
      return s;
    }
    case TypeKind::kGlobalTypeVar:
      return State::kComplete;
  }
  return State::kComplete;
}

void TypeUnifier::CollectHoles(const Type* resolved,
                               std::vector<const IncompleteType*>& out) const {
  if (resolved == nullptr) return;
  switch (resolved->kind()) {
    case TypeKind::kIncomplete:
      if (resolved != Poison()) out.push_back(static_cast<const IncompleteType*>(resolved));
      return;
    case TypeKind::kTuple:
      for (const Type* f : static_cast<const TupleType*>(resolved)->fields()) {
        CollectHoles(f, out);
      }
      return;
    case TypeKind::kFunc: {
      auto* ft = static_cast<const FuncType*>(resolved);
      for (const Type* p : ft->params()) CollectHoles(p, out);
      CollectHoles(ft->ret(), out);
      return;
    }
    case TypeKind::kRef:
      CollectHoles(static_cast<const RefType*>(resolved)->value(), out);
      return;
    case TypeKind::kTypeCall:
      for (const Type* a : static_cast<const TypeCall*>(resolved)->args()) CollectHoles(a, out);
      return;
    default:
      return;
  }
}

bool TypeUnifier::Occurs(uint32_t root, const Type* resolved) {
  std::vector<const IncompleteType*> holes;
  CollectHoles(resolved, holes);
  for (const IncompleteType* h : holes) {
    if (Find(IndexOf(h)) == root) return true;
  }
  return false;
}

void TypeUnifier::Bind(uint32_t root, const Type* t) {
  HoleInfo& info = holes_[root];
  info.binding = t;
  woken_.insert(woken_.end(), info.watchers.begin(), info.watchers.end());
  info.watchers.clear();
}

void TypeUnifier::Union(uint32_t a, uint32_t b) {
  uint32_t ra = Find(a);
  uint32_t rb = Find(b);
  if (ra == rb) return;
  holes_[rb].parent = ra;
  std::vector<uint32_t> moved = std::move(holes_[rb].watchers);
  holes_[rb].watchers.clear();
  holes_[ra].watchers.insert(holes_[ra].watchers.end(), moved.begin(), moved.end());
}

const Type* TypeUnifier::UnifyTensors(const TensorType* a, const TensorType* b) {
  if (a->dtype() != b->dtype() || a->rank() != b->rank()) return nullptr;
  absl::InlinedVector<Dim, 8> dims;
  for (size_t i = 0; i < a->rank(); ++i) {
    Dim x = a->shape()[i];
    Dim y = b->shape()[i];
    if (x.is_any() || y.is_any()) {
      dims.push_back(Dim::Any());
    } else if (x.value == y.value) {
      dims.push_back(x);
    } else {
      return nullptr;
    }
  }
  return TensorTy(a->dtype(), dims);
}

const Type* TypeUnifier::Unify(const Type* a, const Type* b) {
  a = Shallow(a);
  b = Shallow(b);
  if (a == b) return a;
  if (a == nullptr || b == nullptr) return nullptr;
  if (a == Poison() || b == Poison()) return Poison();
  bool a_hole = Isa<IncompleteType>(a);
  bool b_hole = Isa<IncompleteType>(b);
  if (a_hole || b_hole) return UnifyWithHole(a, b, a_hole);
  if (a->kind() != b->kind()) return nullptr;
  switch (a->kind()) {
    case TypeKind::kTensor:
      return UnifyTensors(static_cast<const TensorType*>(a), static_cast<const TensorType*>(b));
    case TypeKind::kTuple:
      return UnifyTuples(static_cast<const TupleType*>(a), static_cast<const TupleType*>(b));
    case TypeKind::kFunc:
      return UnifyFuncs(static_cast<const FuncType*>(a), static_cast<const FuncType*>(b));
    case TypeKind::kRef: {
      const Type* u = Unify(static_cast<const RefType*>(a)->value(),
                            static_cast<const RefType*>(b)->value());
      return u == nullptr ? nullptr : RefTy(u);
    }
    case TypeKind::kTypeCall:
      return UnifyTypeCalls(static_cast<const TypeCall*>(a), static_cast<const TypeCall*>(b));
    default:
      return nullptr;  // distinct type variables (or data type names) never unify
  }
}

const Type* TypeUnifier::UnifyWithHole(const Type* a, const Type* b, bool a_hole) {
  bool b_hole = Isa<IncompleteType>(b);
  if (a_hole && b_hole) {
    Union(IndexOf(static_cast<const IncompleteType*>(a)),
          IndexOf(static_cast<const IncompleteType*>(b)));
    return Shallow(a);
  }
  const Type* hole = a_hole ? a : b;
  const Type* other = a_hole ? b : a;
  uint32_t root = Find(IndexOf(static_cast<const IncompleteType*>(hole)));
  if (Occurs(root, Resolve(other))) return nullptr;  // T = (T, T) has no solution
  Bind(root, other);
  return other;
}

const Type* TypeUnifier::UnifyTuples(const TupleType* a, const TupleType* b) {
  auto fa = a->fields();
  auto fb = b->fields();
  if (fa.size() != fb.size()) return nullptr;
  absl::InlinedVector<const Type*, 8> fields;
  for (size_t i = 0; i < fa.size(); ++i) {
    const Type* u = Unify(fa[i], fb[i]);
    if (u == nullptr) return nullptr;
    fields.push_back(u);
  }
  return TupleTy(fields);
}

const FuncType* TypeUnifier::MatchTypeParams(const FuncType* x, const FuncType* y) {
  absl::flat_hash_map<const Type*, const Type*> map;
  for (size_t i = 0; i < x->type_params().size(); ++i) {
    map.emplace(x->type_params()[i],
                i < y->type_params().size() ? static_cast<const Type*>(y->type_params()[i])
                                            : static_cast<const Type*>(NewHole()));
  }
  absl::InlinedVector<const Type*, 8> params;
  for (const Type* p : x->params()) params.push_back(Substitute(p, map));
  return FuncTy(params, Substitute(x->ret(), map), y->type_params());
}

const Type* TypeUnifier::UnifyFuncs(const FuncType* x, const FuncType* y) {
  if (x->params().size() != y->params().size()) return nullptr;
  if (x->type_params().size() != y->type_params().size()) {
    // A polymorphic function passed where a monomorphic one is expected:
    // the one with more type parameters is instantiated.
    if (x->type_params().size() < y->type_params().size()) std::swap(x, y);
    x = MatchTypeParams(x, y);
  }
  if (!std::equal(x->type_params().begin(), x->type_params().end(), y->type_params().begin(),
                  y->type_params().end())) {
    return nullptr;
  }
  absl::InlinedVector<const Type*, 8> params;
  for (size_t i = 0; i < x->params().size(); ++i) {
    const Type* u = Unify(x->params()[i], y->params()[i]);
    if (u == nullptr) return nullptr;
    params.push_back(u);
  }
  const Type* ret = Unify(x->ret(), y->ret());
  if (ret == nullptr) return nullptr;
  return FuncTy(params, ret, x->type_params());
}

// The same data type, arguments pairwise.
const Type* TypeUnifier::UnifyTypeCalls(const TypeCall* x, const TypeCall* y) {
  if (x->func() != y->func() || x->args().size() != y->args().size()) return nullptr;
  absl::InlinedVector<const Type*, 8> args;
  for (size_t i = 0; i < x->args().size(); ++i) {
    const Type* u = Unify(x->args()[i], y->args()[i]);
    if (u == nullptr) return nullptr;
    args.push_back(u);
  }
  return TypeCallTy(x->func(), args);
}

const Type* TypeUnifier::Substitute(const Type* t,
                                    const absl::flat_hash_map<const Type*, const Type*>& map) {
  if (t == nullptr) return nullptr;
  switch (t->kind()) {
    case TypeKind::kTypeVar: {
      auto it = map.find(t);
      return it == map.end() ? t : it->second;
    }
    case TypeKind::kTuple: {
      absl::InlinedVector<const Type*, 8> fields;
      for (const Type* f : static_cast<const TupleType*>(t)->fields()) {
        fields.push_back(Substitute(f, map));
      }
      return TupleTy(fields);
    }
    case TypeKind::kFunc: {
      auto* ft = static_cast<const FuncType*>(t);
      absl::InlinedVector<const Type*, 8> params;
      for (const Type* p : ft->params()) params.push_back(Substitute(p, map));
      return FuncTy(params, Substitute(ft->ret(), map), ft->type_params());
    }
    case TypeKind::kRef:
      return RefTy(Substitute(static_cast<const RefType*>(t)->value(), map));
    case TypeKind::kTypeCall: {
      auto* tc = static_cast<const TypeCall*>(t);
      absl::InlinedVector<const Type*, 8> args;
      for (const Type* a : tc->args()) args.push_back(Substitute(a, map));
      return TypeCallTy(tc->func(), args);
    }
    default:
      return t;
  }
}

const Type* TypeUnifier::Instantiate(const FuncType* t) {
  if (t->type_params().empty()) return t;
  absl::flat_hash_map<const Type*, const Type*> fresh;
  for (const TypeVar* v : t->type_params()) fresh.emplace(v, NewHole());
  absl::InlinedVector<const Type*, 8> params;
  for (const Type* p : t->params()) params.push_back(Substitute(p, fresh));
  return FuncTy(params, Substitute(t->ret(), fresh));
}

void TypeUnifier::Watch(const IncompleteType* hole, uint32_t watcher) {
  holes_[Find(IndexOf(hole))].watchers.push_back(watcher);
}

std::vector<uint32_t> TypeUnifier::TakeWoken() {
  std::vector<uint32_t> out;
  out.swap(woken_);
  return out;
}

void TypeUnifier::Clear() {
  complete_.clear();
  holes_.clear();
  hole_types_.clear();
  index_.clear();
  woken_.clear();
}

}  // namespace carve
