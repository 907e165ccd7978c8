#include "passes/byoc/annotation.h"

#include <string>
#include <utility>
#include <vector>

namespace carve {
namespace {

const OpInfo* BeginOp() {
  static const OpInfo* op = FindOp("annotation.compiler_begin");
  return op;
}

const OpInfo* EndOp() {
  static const OpInfo* op = FindOp("annotation.compiler_end");
  return op;
}

bool IsCallOf(const Expr* e, const OpExpr* op) {
  const Call* call = DynCast<Call>(e);
  return call != nullptr && op != nullptr && call->callee() == op;
}

// The interned CompilerAttrs for `target`. Interning takes a global lock, and
// passes annotate millions of edges with a handful of targets, so each thread
// keeps the few sets it has seen.
const Attrs* CompilerAttrs(const OpInfo* op, std::string_view target) {
  thread_local std::vector<std::pair<std::string, const Attrs*>> cache;
  for (const auto& [name, attrs] : cache) {
    if (name == target) return attrs;
  }
  const Attrs* attrs = WithField(DefaultAttrs(op->attrs), "compiler", AttrValue::Str(target));
  cache.emplace_back(std::string(target), attrs);
  return attrs;
}

const Call* MakeAnnotation(IRBuilder& builder, const OpExpr* op, const Expr* arg,
                           std::string_view target) {
  return MakeCompilerAnnotation(builder, op, arg, CompilerAttrs(op->info(), target));
}

bool IsTruthy(const AttrValue* v) {
  if (v == nullptr) return false;
  switch (v->kind()) {
    case AttrValue::Kind::kInt:
    case AttrValue::Kind::kBool:
      return v->as_int() != 0;
    case AttrValue::Kind::kFloat:
      return v->as_float() != 0;
    case AttrValue::Kind::kString:
      return !v->as_string().empty();
    default:
      return false;
  }
}

}  // namespace

const OpExpr* CompilerBeginOp() {
  static const OpExpr* op = GetOp(BeginOp());
  return op;
}

const OpExpr* CompilerEndOp() {
  static const OpExpr* op = GetOp(EndOp());
  return op;
}

bool IsCompilerBegin(const Expr* e) { return IsCallOf(e, CompilerBeginOp()); }
bool IsCompilerEnd(const Expr* e) { return IsCallOf(e, CompilerEndOp()); }
// One look at the callee (the region walks ask this of every node).
bool IsCompilerAnnotation(const Expr* e) {
  const Call* call = DynCast<Call>(e);
  if (call == nullptr) return false;
  const Expr* callee = call->callee();
  return callee == CompilerBeginOp() || callee == CompilerEndOp();
}

std::string_view AnnotationTarget(const Expr* e) {
  if (!IsCompilerAnnotation(e)) return {};
  const Attrs* attrs = Cast<Call>(e)->attrs();
  return attrs == nullptr ? std::string_view() : attrs->GetString("compiler");
}

const Attrs* CompilerAnnotationAttrs(const OpExpr* op, std::string_view target) {
  return CompilerAttrs(op->info(), target);
}

const Call* MakeCompilerAnnotation(IRBuilder& builder, const OpExpr* op, const Expr* arg,
                                   const Attrs* attrs) {
  const Call* call = builder.MakeCall(op, {arg}, attrs);
  call->set_checked_type(arg->checked_type());
  return call;
}

const Call* MakeCompilerBegin(IRBuilder& builder, const Expr* arg, std::string_view target) {
  return MakeAnnotation(builder, CompilerBeginOp(), arg, target);
}

const Call* MakeCompilerEnd(IRBuilder& builder, const Expr* arg, std::string_view target) {
  return MakeAnnotation(builder, CompilerEndOp(), arg, target);
}

std::string_view CompositeName(const Call* call) {
  const Function* fn = DynCast<Function>(call->callee());
  return fn == nullptr ? std::string_view() : fn->GetStringAttr(attr::kComposite);
}

bool IsOptimizableFunction(const Function* fn) {
  if (fn->HasAttr(attr::kCompiler)) return false;
  if (IsTruthy(fn->attrs()->Find(attr::kExtern))) return false;
  if (IsTruthy(fn->attrs()->Find(attr::kSkipOptimization))) return false;
  return true;
}

}  // namespace carve
