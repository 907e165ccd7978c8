#include "patterns/describe.h"

#include "fmt/format.h"
#include "ir/adt.h"
#include "ir/type.h"

namespace carve {
namespace {

std::string CalleeText(const Expr* callee) {
  if (const auto* op = DynCast<OpExpr>(callee)) return std::string(op->name());
  if (const auto* gv = DynCast<GlobalVar>(callee)) return fmt::format("@{}", gv->name());
  if (const auto* v = DynCast<Var>(callee)) return fmt::format("%{}", v->name());
  if (Isa<Function>(callee)) return "a function literal";
  return "an expression";
}

std::string Plural(size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

}  // namespace

std::string DescribeExpr(const Expr* e) {
  switch (e->kind()) {
    case ExprKind::kVar:
      return fmt::format("the variable %{}", Cast<Var>(e)->name());
    case ExprKind::kGlobalVar:
      return fmt::format("the global @{}", Cast<GlobalVar>(e)->name());
    case ExprKind::kConstant: {
      const NDArray& d = Cast<Constant>(e)->data();
      if (d.rank() == 0) {
        return fmt::format("the {} constant {}", d.dtype().ToString(), d.GetAsDouble(0));
      }
      std::vector<Dim> dims;
      for (int64_t x : d.shape()) dims.push_back(Dim{x, false});
      return fmt::format("a constant of type {} and shape {}", d.dtype().ToString(),
                         ShapeToString(dims));
    }
    case ExprKind::kOp:
      return fmt::format("the operator {}", Cast<OpExpr>(e)->name());
    case ExprKind::kCall: {
      const auto* c = Cast<Call>(e);
      return fmt::format("a call of {} with {}", CalleeText(c->callee()),
                         Plural(c->args().size(), "arg"));
    }
    case ExprKind::kTuple:
      return fmt::format("a tuple of {}", Plural(Cast<Tuple>(e)->fields().size(), "field"));
    case ExprKind::kTupleGetItem:
      return fmt::format("the projection .{}", Cast<TupleGetItem>(e)->index());
    case ExprKind::kLet:
      return fmt::format("a let of %{}", Cast<Let>(e)->var()->name());
    case ExprKind::kIf:
      return "an if";
    case ExprKind::kFunction:
      return fmt::format("a function literal with {}",
                         Plural(Cast<Function>(e)->params().size(), "param"));
    case ExprKind::kRefCreate:
      return "a ref";
    case ExprKind::kRefRead:
      return "a ref_read";
    case ExprKind::kRefWrite:
      return "a ref_write";
    case ExprKind::kConstructor:
      return fmt::format("the constructor {}", Cast<Constructor>(e)->name());
    case ExprKind::kMatch:
      return fmt::format("a match with {}", Plural(Cast<Match>(e)->clauses().size(), "clause"));
  }
  return "an expression";
}

std::string DescribeExpr(const Expr* e, const NodeNamer& namer) {
  NodeRef ref = namer ? namer(e) : NodeRef{};
  if (ref.handle.empty()) return DescribeExpr(e);
  if (!ref.role.empty()) return fmt::format("{} ({})", ref.handle, ref.role);
  switch (e->kind()) {
    case ExprKind::kVar:
      return fmt::format("{} (a variable)", ref.handle);
    case ExprKind::kGlobalVar:
      return fmt::format("{} (a global)", ref.handle);
    case ExprKind::kOp:
      return fmt::format("{} (an operator)", ref.handle);
    case ExprKind::kLet:
      return fmt::format("{} (a let)", ref.handle);
    default:
      return fmt::format("{} ({})", ref.handle, DescribeExpr(e));
  }
}

std::string DescribePattern(const PatternNode* p) {
  switch (p->kind()) {
    case PatternKind::kWildcard:
      return "any expression";
    case PatternKind::kOp:
      return fmt::format("the operator {}", Cast<OperatorPattern>(p)->op()->name);
    case PatternKind::kExpr: {
      const Expr* want = Cast<ExprPattern>(p)->expr();
      if (Isa<Constant>(want) && Cast<Constant>(want)->data().rank() == 0) return DescribeExpr(want);
      return fmt::format("an expression equal to {}", DescribeExpr(want));
    }
    case PatternKind::kVar: {
      const std::string& name = Cast<VarPattern>(p)->name();
      return name.empty() ? "a variable" : fmt::format("a variable named %{}", name);
    }
    case PatternKind::kConstant:
      return "a constant";
    case PatternKind::kCall: {
      const auto* c = Cast<CallPattern>(p);
      std::string callee = c->op() ? std::string(c->op()->name) : "any callee";
      if (c->any_args()) return fmt::format("a call of {}", callee);
      return fmt::format("a call of {} with {}", callee, Plural(c->args().size(), "arg"));
    }
    case PatternKind::kTuple: {
      const auto* t = Cast<TuplePattern>(p);
      if (t->any_fields()) return "a tuple";
      return fmt::format("a tuple of {}", Plural(t->fields().size(), "field"));
    }
    case PatternKind::kTupleGetItem: {
      int index = Cast<TupleGetItemPattern>(p)->index();
      return index < 0 ? "a projection" : fmt::format("the projection .{}", index);
    }
    case PatternKind::kIf:
      return "an if";
    case PatternKind::kLet:
      return "a let";
    case PatternKind::kFunction:
      return "a function literal";
    case PatternKind::kCapture:
      return fmt::format("?{} ({})", Cast<CapturePattern>(p)->name(),
                         DescribePattern(Cast<CapturePattern>(p)->inner().get()));
    case PatternKind::kRecursive:
      return fmt::format("a recursive reference to {}", Cast<RecursivePattern>(p)->name());
    default:
      return std::string(PatternKindName(p->kind()));
  }
}

}  // namespace carve
