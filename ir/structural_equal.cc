#include "ir/structural_equal.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ir/adt.h"
#include "ir/structural_equal_local.h"
#include "ir/structural_path.h"

namespace carve {
namespace {

using structural_equal_internal::AttrsDiff;
using structural_equal_internal::ConstantDiff;
using structural_equal_internal::IsGraphNode;
using structural_equal_internal::KindName;
using structural_equal_internal::VarName;

// The comparison engine: an explicit stack of node pairs, each expanded once
// (local fields compared, children pushed) and finished once all of its
// children compared equal.
class Comparer {
 public:
  Comparer(const EqualOptions& options, std::string root)
      : options_(options), root_(std::move(root)) {}

  std::optional<StructuralDiff> Run(const Expr* a, const Expr* b) {
    stack_.push_back(Task{a, b, -1, PathStep{}, false});
    while (!stack_.empty() && !diff_.has_value()) {
      size_t i = stack_.size() - 1;
      if (stack_[i].expanded) {
        Finish(stack_[i]);
        stack_.pop_back();
        continue;
      }
      stack_[i].expanded = true;
      if (!Expand(i)) break;
    }
    return std::move(diff_);
  }

 private:
  struct Task {
    const Expr* a;
    const Expr* b;
    int32_t parent;  // index in stack_ of the task that pushed this one
    PathStep step;   // how the parent reaches this pair
    bool expanded;
  };

  // Compares the pair at stack_[i]. Returns false once a difference is
  // recorded; pushes the child pairs that remain to be compared.
  bool Expand(size_t i) {
    const Expr* a = stack_[i].a;
    const Expr* b = stack_[i].b;
    if (a == nullptr || b == nullptr) {
      if (a == b) return Done(i);
      return Fail(i, "",
                  fmt::format("expressions differ: {} vs {}", a ? KindName(a->kind()) : "nothing",
                              b ? KindName(b->kind()) : "nothing"));
    }
    if (a->kind() != b->kind()) {
      return Fail(
          i, "",
          fmt::format("expressions differ: {} vs {}", KindName(a->kind()), KindName(b->kind())));
    }
    if (IsGraphNode(a)) {
      auto it = lhs_map_.find(a);
      if (it != lhs_map_.end()) return it->second == b ? Done(i) : Fail(i, "", Remapped(a, b));
      if (rhs_map_.contains(b)) return Fail(i, "", Remapped(a, b));
    } else if (value_pairs_.contains(std::make_pair(a, b))) {
      return Done(i);
    }
    return ExpandKind(i);
  }

  // Expand's dispatch on the (equal) kind of a pair not compared before.
  bool ExpandKind(size_t i) {
    const Expr* a = stack_[i].a;
    const Expr* b = stack_[i].b;
    switch (a->kind()) {
      case ExprKind::kVar:
        return ExpandVar(i);
      case ExprKind::kGlobalVar:
        return ExpandGlobal(i);
      case ExprKind::kConstant:
        return ExpandConstant(i);
      case ExprKind::kOp:
        if (a == b) return Done(i);
        return Fail(i, "",
                    fmt::format("operators differ: {} vs {}", Cast<OpExpr>(a)->name(),
                                Cast<OpExpr>(b)->name()));
      case ExprKind::kCall:
        return ExpandCall(i);
      case ExprKind::kTuple:
        return ExpandTuple(i);
      case ExprKind::kTupleGetItem:
        return ExpandProjection(i);
      case ExprKind::kLet:
        return ExpandLet(i);
      case ExprKind::kIf:
        return ExpandIf(i);
      case ExprKind::kFunction:
        return ExpandFunction(i);
      case ExprKind::kRefCreate:
      case ExprKind::kRefRead:
      case ExprKind::kRefWrite:
        return ExpandRef(i);
      case ExprKind::kConstructor:
        if (ConstructorsEqual(Cast<Constructor>(a), Cast<Constructor>(b))) return Done(i);
        return Fail(i, "",
                    fmt::format("constructors differ: {} vs {}", Cast<Constructor>(a)->name(),
                                Cast<Constructor>(b)->name()));
      case ExprKind::kMatch:
        return ExpandMatch(i);
    }
    return Done(i);
  }

  bool ExpandLet(size_t i) {
    auto* x = Cast<Let>(stack_[i].a);
    auto* y = Cast<Let>(stack_[i].b);
    // Reverse order: the variable is bound (mapped) before value and body.
    Push(i, x->body(), y->body(), PathStep{PathField::kBody});
    Push(i, x->value(), y->value(), PathStep{PathField::kValue});
    Push(i, x->var(), y->var(), PathStep{PathField::kVar});
    return true;
  }

  bool ExpandIf(size_t i) {
    auto* x = Cast<If>(stack_[i].a);
    auto* y = Cast<If>(stack_[i].b);
    Push(i, x->else_branch(), y->else_branch(), PathStep{PathField::kElse});
    Push(i, x->then_branch(), y->then_branch(), PathStep{PathField::kThen});
    Push(i, x->cond(), y->cond(), PathStep{PathField::kCond});
    return true;
  }

  // ref(v), ref_read(r), ref_write(r, v): pushed in reverse, so r before v.
  bool ExpandRef(size_t i) {
    const Expr* a = stack_[i].a;
    const Expr* b = stack_[i].b;
    switch (a->kind()) {
      case ExprKind::kRefCreate:
        Push(i, Cast<RefCreate>(a)->value(), Cast<RefCreate>(b)->value(),
             PathStep{PathField::kValue});
        break;
      case ExprKind::kRefRead:
        Push(i, Cast<RefRead>(a)->ref(), Cast<RefRead>(b)->ref(), PathStep{PathField::kRef});
        break;
      default:
        Push(i, Cast<RefWrite>(a)->value(), Cast<RefWrite>(b)->value(),
             PathStep{PathField::kValue});
        Push(i, Cast<RefWrite>(a)->ref(), Cast<RefWrite>(b)->ref(), PathStep{PathField::kRef});
        break;
    }
    return true;
  }

  // Constructors are module-level names: equal when they name the same
  // constructor of the same data type.
  static bool ConstructorsEqual(const Constructor* x, const Constructor* y) {
    return x == y || (x->name() == y->name() && x->belongs_to() == y->belongs_to() &&
                      x->tag() == y->tag());
  }

  // Same shape, constructor for constructor; the variables bound are
  // collected in order to be compared (and mapped) as binders.
  bool PatternsEqual(const AdtPattern* x, const AdtPattern* y,
                     std::vector<std::pair<const Var*, const Var*>>* vars) {
    if (x->kind() != y->kind() || x->fields().size() != y->fields().size()) return false;
    if (x->kind() == AdtPattern::Kind::kVar) {
      vars->emplace_back(x->var(), y->var());
      return true;
    }
    if (x->kind() == AdtPattern::Kind::kConstructor &&
        !ConstructorsEqual(x->constructor(), y->constructor())) {
      return false;
    }
    for (size_t k = 0; k < x->fields().size(); ++k) {
      if (!PatternsEqual(x->fields()[k], y->fields()[k], vars)) return false;
    }
    return true;
  }

  bool ExpandMatch(size_t i) {
    auto* x = Cast<Match>(stack_[i].a);
    auto* y = Cast<Match>(stack_[i].b);
    if (x->complete() != y->complete()) {
      return Fail(i, ".complete", "one match is complete (`match`), the other not (`match?`)");
    }
    if (x->clauses().size() != y->clauses().size()) {
      return Fail(i, ".clauses",
                  fmt::format("matches have {} and {} clauses", x->clauses().size(),
                              y->clauses().size()));
    }
    // Pushed in reverse: the scrutinee is compared first, then each clause's
    // variables (bound) before its right-hand side.
    std::vector<std::vector<std::pair<const Var*, const Var*>>> vars(x->clauses().size());
    for (size_t k = 0; k < x->clauses().size(); ++k) {
      if (!PatternsEqual(x->clauses()[k].lhs, y->clauses()[k].lhs, &vars[k])) {
        return Fail(i, fmt::format(".clauses[{}].lhs", k),
                    fmt::format("the patterns of clause {} differ", k));
      }
    }
    for (size_t k = x->clauses().size(); k-- > 0;) {
      Push(i, x->clauses()[k].rhs, y->clauses()[k].rhs, PathStep{PathField::kClause, int32_t(k)});
      for (size_t v = vars[k].size(); v-- > 0;) {
        Push(i, vars[k][v].first, vars[k][v].second, PathStep{PathField::kPatternVar, int32_t(k)});
      }
    }
    Push(i, x->data(), y->data(), PathStep{PathField::kData});
    return true;
  }

  bool ExpandVar(size_t i) {
    auto* x = Cast<Var>(stack_[i].a);
    auto* y = Cast<Var>(stack_[i].b);
    if (!options_.ignore_types && !TypesEqual(x->annotation(), y->annotation())) {
      return Fail(i, ".type",
                  fmt::format("types of {} and {} differ: {} vs {}", VarName(x), VarName(y),
                              TypeToString(x->annotation()), TypeToString(y->annotation())));
    }
    // TVM's VarNode::SEqualReduce compares virtual_device_ too.
    if (!SameVirtualDevice(x->virtual_device(), y->virtual_device())) {
      auto repr = [](const VirtualDevice* d) {
        return d == nullptr ? std::string("VirtualDevice(?)") : VirtualDeviceRepr(*d);
      };
      return Fail(i, ".virtual_device",
                  fmt::format("virtual devices of {} and {} differ: {} vs {}", VarName(x),
                              VarName(y), repr(x->virtual_device()), repr(y->virtual_device())));
    }
    return true;  // Finish records the correspondence.
  }

  bool ExpandGlobal(size_t i) {
    auto* x = Cast<GlobalVar>(stack_[i].a);
    auto* y = Cast<GlobalVar>(stack_[i].b);
    if (x->name() == y->name()) return Done(i);
    return Fail(i, "", fmt::format("globals differ: @{} vs @{}", x->name(), y->name()));
  }

  bool ExpandConstant(size_t i) {
    auto diff = ConstantDiff(Cast<Constant>(stack_[i].a), Cast<Constant>(stack_[i].b));
    if (diff.has_value()) return Fail(i, diff->suffix, diff->message);
    return true;
  }

  bool ExpandCall(size_t i) {
    auto* x = Cast<Call>(stack_[i].a);
    auto* y = Cast<Call>(stack_[i].b);
    bool x_op = Isa<OpExpr>(x->callee());
    bool y_op = Isa<OpExpr>(y->callee());
    // Operator callees are compared here so that the message names the ops.
    if ((x_op || y_op) && x->callee() != y->callee()) {
      std::string lhs = x_op ? std::string(x->op()->name) : KindName(x->callee()->kind());
      std::string rhs = y_op ? std::string(y->op()->name) : KindName(y->callee()->kind());
      return Fail(i, ".callee", fmt::format("callees differ: {} vs {}", lhs, rhs));
    }
    if (auto diff = AttrsDiff(x->attrs(), y->attrs())) {
      return Fail(i, diff->suffix, diff->message);
    }
    if (x->args().size() != y->args().size()) {
      return Fail(
          i, ".args",
          fmt::format("calls have {} and {} arguments", x->args().size(), y->args().size()));
    }
    for (size_t k = x->args().size(); k-- > 0;) {
      Push(i, x->args()[k], y->args()[k], PathStep{PathField::kArg, int32_t(k)});
    }
    if (!x_op) Push(i, x->callee(), y->callee(), PathStep{PathField::kCallee});
    return true;
  }

  bool ExpandTuple(size_t i) {
    auto* x = Cast<Tuple>(stack_[i].a);
    auto* y = Cast<Tuple>(stack_[i].b);
    if (x->fields().size() != y->fields().size()) {
      return Fail(
          i, "",
          fmt::format("tuples have {} and {} fields", x->fields().size(), y->fields().size()));
    }
    for (size_t k = x->fields().size(); k-- > 0;) {
      Push(i, x->fields()[k], y->fields()[k], PathStep{PathField::kField, int32_t(k)});
    }
    return true;
  }

  bool ExpandProjection(size_t i) {
    auto* x = Cast<TupleGetItem>(stack_[i].a);
    auto* y = Cast<TupleGetItem>(stack_[i].b);
    if (x->index() != y->index()) {
      return Fail(i, ".index",
                  fmt::format("projections differ: .{} vs .{}", x->index(), y->index()));
    }
    Push(i, x->tuple(), y->tuple(), PathStep{PathField::kTuple});
    return true;
  }

  bool ExpandFunction(size_t i) {
    auto* x = Cast<Function>(stack_[i].a);
    auto* y = Cast<Function>(stack_[i].b);
    if (x->params().size() != y->params().size()) {
      return Fail(i, ".params",
                  fmt::format("functions have {} and {} parameters", x->params().size(),
                              y->params().size()));
    }
    if (!options_.ignore_types) {
      if (x->type_params().size() != y->type_params().size()) {
        return Fail(i, ".type_params",
                    fmt::format("functions have {} and {} type parameters", x->type_params().size(),
                                y->type_params().size()));
      }
      for (size_t k = 0; k < x->type_params().size(); ++k) {
        type_var_map_[x->type_params()[k]] = y->type_params()[k];
      }
      if (!TypesEqual(x->ret_type(), y->ret_type())) {
        return Fail(i, ".ret_type",
                    fmt::format("return types differ: {} vs {}", TypeToString(x->ret_type()),
                                TypeToString(y->ret_type())));
      }
    }
    if (auto diff = AttrsDiff(x->attrs(), y->attrs())) {
      return Fail(i, diff->suffix, diff->message);
    }
    Push(i, x->body(), y->body(), PathStep{PathField::kBody});
    for (size_t k = x->params().size(); k-- > 0;) {
      Push(i, x->params()[k], y->params()[k], PathStep{PathField::kParam, int32_t(k)});
    }
    return true;
  }

  // Types are interned, so pointer equality decides, except for the
  // uninterned kinds: `_` matches `_`, and type variables match through the
  // type parameters of enclosing functions.
  bool TypesEqual(const Type* a, const Type* b) const {
    if (a == b) return true;
    if (a == nullptr || b == nullptr || a->kind() != b->kind()) return false;
    switch (a->kind()) {
      case TypeKind::kTensor:
        return false;
      case TypeKind::kIncomplete:
        return true;
      case TypeKind::kRef:
        return TypesEqual(static_cast<const RefType*>(a)->value(),
                          static_cast<const RefType*>(b)->value());
      case TypeKind::kGlobalTypeVar:  // interned by name
        return false;
      case TypeKind::kTypeCall: {
        auto* x = static_cast<const TypeCall*>(a);
        auto* y = static_cast<const TypeCall*>(b);
        if (x->args().size() != y->args().size() || !TypesEqual(x->func(), y->func())) {
          return false;
        }
        for (size_t k = 0; k < x->args().size(); ++k) {
          if (!TypesEqual(x->args()[k], y->args()[k])) return false;
        }
        return true;
      }
      case TypeKind::kTypeVar: {
        auto it = type_var_map_.find(static_cast<const TypeVar*>(a));
        return it != type_var_map_.end() && it->second == b;
      }
      case TypeKind::kTuple: {
        auto fa = static_cast<const TupleType*>(a)->fields();
        auto fb = static_cast<const TupleType*>(b)->fields();
        if (fa.size() != fb.size()) return false;
        for (size_t k = 0; k < fa.size(); ++k) {
          if (!TypesEqual(fa[k], fb[k])) return false;
        }
        return true;
      }
      case TypeKind::kFunc: {
        auto* x = static_cast<const FuncType*>(a);
        auto* y = static_cast<const FuncType*>(b);
        if (x->params().size() != y->params().size() ||
            x->type_params().size() != y->type_params().size() || !TypesEqual(x->ret(), y->ret())) {
          return false;
        }
        for (size_t k = 0; k < x->params().size(); ++k) {
          if (!TypesEqual(x->params()[k], y->params()[k])) return false;
        }
        return true;
      }
    }
    return false;
  }

  std::string Remapped(const Expr* a, const Expr* b) const {
    if (a->kind() == ExprKind::kVar) {
      auto it = lhs_map_.find(a);
      if (it != lhs_map_.end()) {
        return fmt::format("{} corresponds to {} elsewhere, not to {}", VarName(a),
                           VarName(it->second), VarName(b));
      }
      return fmt::format("{} corresponds to {} elsewhere, not to {}", VarName(b),
                         VarName(rhs_map_.at(b)), VarName(a));
    }
    return fmt::format("DAG sharing differs: {} shared on one side is not shared on the other",
                       KindName(a->kind()));
  }

  void Push(size_t parent, const Expr* a, const Expr* b, PathStep step) {
    stack_.push_back(Task{a, b, int32_t(parent), step, false});
  }

  // Marks stack_[i] as compared equal with no children left to compare.
  bool Done(size_t i) {
    Finish(stack_[i]);
    stack_.pop_back();
    return true;
  }

  // Records a pair whose whole subtree compared equal.
  void Finish(const Task& t) {
    if (t.a == nullptr || t.b == nullptr) return;
    if (IsGraphNode(t.a)) {
      lhs_map_.emplace(t.a, t.b);
      rhs_map_.emplace(t.b, t.a);
    } else if (t.a->kind() == ExprKind::kConstant || t.a->kind() == ExprKind::kTupleGetItem) {
      value_pairs_.emplace(t.a, t.b);
    }
  }

  bool Fail(size_t i, std::string_view suffix, std::string message) {
    std::vector<PathStep> steps;
    for (int32_t k = int32_t(i); stack_[k].parent >= 0; k = stack_[k].parent) {
      steps.push_back(stack_[k].step);
    }
    std::reverse(steps.begin(), steps.end());
    std::string path = RenderPath(root_, steps, suffix);
    StructuralDiff diff;
    diff.lhs_path = path;
    diff.rhs_path = std::move(path);
    diff.message = std::move(message);
    if (stack_[i].a) diff.lhs_span = stack_[i].a->span();
    if (stack_[i].b) diff.rhs_span = stack_[i].b->span();
    diff_ = std::move(diff);
    return false;
  }

  const EqualOptions& options_;
  std::string root_;
  std::vector<Task> stack_;
  absl::flat_hash_map<const Expr*, const Expr*> lhs_map_;
  absl::flat_hash_map<const Expr*, const Expr*> rhs_map_;
  absl::flat_hash_set<std::pair<const Expr*, const Expr*>> value_pairs_;
  absl::flat_hash_map<const TypeVar*, const TypeVar*> type_var_map_;
  std::optional<StructuralDiff> diff_;
};

StructuralDiff MissingGlobal(std::string_view name, const Function* present, bool on_left) {
  StructuralDiff diff;
  diff.lhs_path = diff.rhs_path = fmt::format("@{}", name);
  diff.message = fmt::format("@{} is defined only on the {}", name, on_left ? "left" : "right");
  (on_left ? diff.lhs_span : diff.rhs_span) = present->span();
  return diff;
}

// Type definitions: the same names, each with as many type parameters and
// the same constructors (names and field types, as printed).
std::optional<StructuralDiff> TypeDefinitionsDiff(const Module& a, const Module& b) {
  auto ta = a.TypeDefinitions();
  auto tb = b.TypeDefinitions();
  auto signature = [](const TypeData* data) {
    std::string out = fmt::format("{}/{}", data->header()->name(), data->type_vars().size());
    for (const Constructor* ctor : data->constructors()) {
      out += fmt::format(" {}(", ctor->name());
      for (const Type* input : ctor->inputs()) out += TypeToString(input) + ",";
      out += ")";
    }
    return out;
  };
  for (size_t k = 0; k < std::max(ta.size(), tb.size()); ++k) {
    const TypeData* x = k < ta.size() ? ta[k] : nullptr;
    const TypeData* y = k < tb.size() ? tb[k] : nullptr;
    if (x != nullptr && y != nullptr && signature(x) == signature(y)) continue;
    const TypeData* named = x != nullptr ? x : y;
    StructuralDiff diff;
    diff.lhs_path = diff.rhs_path = fmt::format("type {}", named->header()->name());
    if (x == nullptr || y == nullptr || x->header() != y->header()) {
      const TypeData* only = (y == nullptr || (x != nullptr && x->header()->name() < y->header()->name())) ? x : y;
      diff.lhs_path = diff.rhs_path = fmt::format("type {}", only->header()->name());
      diff.message = fmt::format("type {} is defined only on the {}", only->header()->name(),
                                 only == x ? "left" : "right");
    } else {
      diff.message = fmt::format("the definitions of type {} differ", x->header()->name());
    }
    return diff;
  }
  return std::nullopt;
}

}  // namespace

std::optional<StructuralDiff> StructuralDiffExprs(const Expr* a, const Expr* b,
                                                  const EqualOptions& options) {
  return Comparer(options, "<root>").Run(a, b);
}

std::optional<StructuralDiff> StructuralDiffModules(const Module& a, const Module& b,
                                                    const EqualOptions& options) {
  if (auto diff = TypeDefinitionsDiff(a, b)) return diff;
  auto fa = a.Functions();
  auto fb = b.Functions();
  // Both lists are sorted by name: merge them to find a one-sided name.
  size_t i = 0, j = 0;
  while (i < fa.size() || j < fb.size()) {
    if (j == fb.size() || (i < fa.size() && fa[i].first->name() < fb[j].first->name())) {
      return MissingGlobal(fa[i].first->name(), fa[i].second, /*on_left=*/true);
    }
    if (i == fa.size() || fb[j].first->name() < fa[i].first->name()) {
      return MissingGlobal(fb[j].first->name(), fb[j].second, /*on_left=*/false);
    }
    ++i;
    ++j;
  }
  for (size_t k = 0; k < fa.size(); ++k) {
    std::string root = fmt::format("@{}", fa[k].first->name());
    auto diff = Comparer(options, std::move(root)).Run(fa[k].second, fb[k].second);
    if (diff.has_value()) return diff;
  }
  return std::nullopt;
}

bool StructuralEqual(const Expr* a, const Expr* b, const EqualOptions& options) {
  return !StructuralDiffExprs(a, b, options).has_value();
}

bool StructuralEqual(const Module& a, const Module& b, const EqualOptions& options) {
  return !StructuralDiffModules(a, b, options).has_value();
}

}  // namespace carve
