#include "ir/type.h"

#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "fmt/format.h"
#include "support/arena.h"

namespace carve {
namespace {

// Keys are the node pointers; hashing and equality look at the contents.
struct TypeStore {
  std::mutex mu;
  Arena arena;
  uint32_t next_id = 0;

  struct TensorHash {
    size_t operator()(const TensorType* t) const {
      return absl::HashOf(t->dtype(), absl::MakeSpan(t->shape().data(), t->shape().size()));
    }
  };
  struct TensorEq {
    bool operator()(const TensorType* a, const TensorType* b) const {
      return a->dtype() == b->dtype() &&
             std::equal(a->shape().begin(), a->shape().end(), b->shape().begin(),
                        b->shape().end());
    }
  };
  struct TupleHash {
    size_t operator()(const TupleType* t) const {
      return absl::HashOf(absl::MakeSpan(t->fields().data(), t->fields().size()));
    }
  };
  struct TupleEq {
    bool operator()(const TupleType* a, const TupleType* b) const {
      return std::equal(a->fields().begin(), a->fields().end(), b->fields().begin(),
                        b->fields().end());
    }
  };
  struct FuncHash {
    size_t operator()(const FuncType* t) const {
      return absl::HashOf(absl::MakeSpan(t->params().data(), t->params().size()), t->ret(),
                          absl::MakeSpan(t->type_params().data(), t->type_params().size()));
    }
  };
  struct FuncEq {
    bool operator()(const FuncType* a, const FuncType* b) const {
      return a->ret() == b->ret() &&
             std::equal(a->params().begin(), a->params().end(), b->params().begin(),
                        b->params().end()) &&
             std::equal(a->type_params().begin(), a->type_params().end(),
                        b->type_params().begin(), b->type_params().end());
    }
  };
  struct RefHash {
    size_t operator()(const RefType* t) const { return absl::HashOf(t->value()); }
  };
  struct RefEq {
    bool operator()(const RefType* a, const RefType* b) const { return a->value() == b->value(); }
  };
  struct CallHash {
    size_t operator()(const TypeCall* t) const {
      return absl::HashOf(t->func(), absl::MakeSpan(t->args().data(), t->args().size()));
    }
  };
  struct CallEq {
    bool operator()(const TypeCall* a, const TypeCall* b) const {
      return a->func() == b->func() && std::equal(a->args().begin(), a->args().end(),
                                                  b->args().begin(), b->args().end());
    }
  };
  absl::flat_hash_set<const TensorType*, TensorHash, TensorEq> tensors;
  absl::flat_hash_set<const TypeCall*, CallHash, CallEq> calls;
  absl::flat_hash_map<std::string, const GlobalTypeVar*> global_type_vars;
  absl::flat_hash_set<const TupleType*, TupleHash, TupleEq> tuples;
  absl::flat_hash_set<const FuncType*, FuncHash, FuncEq> funcs;
  absl::flat_hash_set<const RefType*, RefHash, RefEq> refs;
};

TypeStore& Store() {
  static TypeStore* store = new TypeStore();
  return *store;
}

}  // namespace

bool TensorType::is_static() const {
  for (const Dim& d : shape_) {
    if (d.is_any()) return false;
  }
  return true;
}

int64_t TensorType::num_elements() const {
  int64_t n = 1;
  for (const Dim& d : shape_) n *= d.value;
  return n;
}

const TensorType* TensorTy(DataType dtype, std::span<const Dim> shape) {
  TypeStore& s = Store();
  std::lock_guard<std::mutex> lock(s.mu);
  TensorType probe(dtype, shape);
  auto it = s.tensors.find(&probe);
  if (it != s.tensors.end()) return *it;
  auto* t = s.arena.New<TensorType>(dtype, s.arena.CopyArray(shape));
  s.tensors.insert(t);
  return t;
}

const TensorType* TensorTy(DataType dtype, std::initializer_list<int64_t> shape) {
  std::vector<Dim> dims;
  for (int64_t d : shape) dims.push_back(Dim{d, false});
  return TensorTy(dtype, dims);
}

const TensorType* ScalarTy(DataType dtype) { return TensorTy(dtype, std::span<const Dim>{}); }

const TupleType* TupleTy(std::span<const Type* const> fields) {
  TypeStore& s = Store();
  std::lock_guard<std::mutex> lock(s.mu);
  TupleType probe(fields);
  auto it = s.tuples.find(&probe);
  if (it != s.tuples.end()) return *it;
  auto* t = s.arena.New<TupleType>(s.arena.CopyArray(fields));
  s.tuples.insert(t);
  return t;
}

const FuncType* FuncTy(std::span<const Type* const> params, const Type* ret,
                       std::span<const TypeVar* const> type_params) {
  TypeStore& s = Store();
  std::lock_guard<std::mutex> lock(s.mu);
  FuncType probe(params, ret, type_params);
  auto it = s.funcs.find(&probe);
  if (it != s.funcs.end()) return *it;
  auto* t = s.arena.New<FuncType>(s.arena.CopyArray(params), ret,
                                  s.arena.CopyArray(type_params));
  s.funcs.insert(t);
  return t;
}

const RefType* RefTy(const Type* value) {
  TypeStore& s = Store();
  std::lock_guard<std::mutex> lock(s.mu);
  RefType probe(value);
  auto it = s.refs.find(&probe);
  if (it != s.refs.end()) return *it;
  auto* t = s.arena.New<RefType>(value);
  s.refs.insert(t);
  return t;
}

const GlobalTypeVar* GlobalTypeVarTy(std::string_view name) {
  TypeStore& s = Store();
  std::lock_guard<std::mutex> lock(s.mu);
  auto [it, inserted] = s.global_type_vars.try_emplace(std::string(name), nullptr);
  if (inserted) it->second = s.arena.New<GlobalTypeVar>(s.arena.CopyString(name));
  return it->second;
}

const TypeCall* TypeCallTy(const Type* func, std::span<const Type* const> args) {
  TypeStore& s = Store();
  std::lock_guard<std::mutex> lock(s.mu);
  TypeCall probe(func, args);
  auto it = s.calls.find(&probe);
  if (it != s.calls.end()) return *it;
  auto* t = s.arena.New<TypeCall>(func, s.arena.CopyArray(args));
  s.calls.insert(t);
  return t;
}

const TypeVar* NewTypeVar(std::string_view name) {
  TypeStore& s = Store();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.arena.New<TypeVar>(s.arena.CopyString(name), s.next_id++);
}

const IncompleteType* NewIncompleteType() {
  TypeStore& s = Store();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.arena.New<IncompleteType>(s.next_id++);
}

std::string ShapeToString(std::span<const Dim> shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    const Dim& d = shape[i];
    if (d.is_any()) {
      out += "?";
    } else {
      out += fmt::format("{}{}", d.value, d.wide ? "i64" : "");
    }
  }
  if (shape.size() == 1) out += ",";
  out += ")";
  return out;
}

namespace {

void AppendTensorType(const TensorType& t, std::string& out) {
  if (t.rank() == 0) {
    out += t.dtype().ToString();
    return;
  }
  // TVM prints a rank-1 shape without the trailing comma: (32).
  out += "Tensor[(";
  for (size_t i = 0; i < t.shape().size(); ++i) {
    if (i) out += ", ";
    const Dim& d = t.shape()[i];
    out += d.is_any() ? std::string("?") : fmt::format("{}{}", d.value, d.wide ? "i64" : "");
  }
  out += fmt::format("), {}]", t.dtype().ToString());
}

// Appends the text of a type to `out`: one buffer for the whole type, and
// an explicit stack rather than recursion. Building each field's string and
// copying it into its parent's made a type nested N deep cost O(N^2) (a
// chain of 5000 nested tuples printed with --types took 70 s), and
// recursing overflowed the stack at about 50000 levels, which a chain of
// let-bound tuples reaches without any nesting in its text.
class TypeTextWriter {
 public:
  explicit TypeTextWriter(std::string& out) : out_(out) {}

  void Append(const Type* root) {
    PushType(root);
    while (!stack_.empty()) {
      const Piece piece = stack_.back();
      stack_.pop_back();
      if (!piece.is_type) {
        out_ += piece.text;
      } else if (piece.type == nullptr) {
        out_ += "_";
      } else {
        Open(piece.type);
      }
    }
  }

 private:
  struct Piece {
    bool is_type;
    const Type* type;       // when is_type (nullptr prints "_")
    std::string_view text;  // otherwise: static text or an interned name
  };

  void PushText(std::string_view text) { stack_.push_back({false, nullptr, text}); }
  void PushType(const Type* t) { stack_.push_back({true, t, {}}); }
  // Pushed last to first, so that they pop in order with ", " between.
  void PushList(std::span<const Type* const> types) {
    for (size_t i = types.size(); i-- > 0;) {
      PushType(types[i]);
      if (i) PushText(", ");
    }
  }

  // Writes the text of `t` up to its first child type and pushes the rest.
  void Open(const Type* t) {
    switch (t->kind()) {
      case TypeKind::kTensor:
        AppendTensorType(*static_cast<const TensorType*>(t), out_);
        break;
      case TypeKind::kTuple: {
        auto fields = static_cast<const TupleType*>(t)->fields();
        out_ += "(";
        PushText(fields.size() == 1 ? ",)" : ")");
        PushList(fields);
        break;
      }
      case TypeKind::kFunc:
        OpenFunc(static_cast<const FuncType*>(t));
        break;
      case TypeKind::kTypeVar:
        out_ += static_cast<const TypeVar*>(t)->name();
        break;
      case TypeKind::kIncomplete:
        out_ += "_";
        break;
      case TypeKind::kRef:
        out_ += "ref(";
        PushText(")");
        PushType(static_cast<const RefType*>(t)->value());
        break;
      case TypeKind::kGlobalTypeVar:
        out_ += static_cast<const GlobalTypeVar*>(t)->name();
        break;
      case TypeKind::kTypeCall: {
        auto* tc = static_cast<const TypeCall*>(t);
        PushText("]");
        PushList(tc->args());
        PushText("[");
        PushType(tc->func());
        break;
      }
    }
  }

  // fn [T, U](params) -> ret
  void OpenFunc(const FuncType* ft) {
    out_ += "fn ";
    if (!ft->type_params().empty()) {
      out_ += "[";
      for (size_t i = 0; i < ft->type_params().size(); ++i) {
        if (i) out_ += ", ";
        out_ += ft->type_params()[i]->name();
      }
      out_ += "]";
    }
    out_ += "(";
    PushType(ft->ret());
    PushText(") -> ");
    PushList(ft->params());
  }

  std::string& out_;
  std::vector<Piece> stack_;
};

void AppendType(const Type* root, std::string& out) { TypeTextWriter(out).Append(root); }

}  // namespace

std::string TypeToString(const Type* t) {
  std::string out;
  AppendType(t, out);
  return out;
}

}  // namespace carve
