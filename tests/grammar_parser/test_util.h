// Helpers shared by the parser tests.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "grammar/parser.h"
#include "ir/adt.h"
#include "ir/expr.h"
#include "support/diagnostics.h"
#include "tests/common/file_util.h"

namespace carve::testing_util {

inline std::string CorpusPath(const std::string& name) {
  return std::string(CARVE_SHARED_DIR) + "/corpus/" + name;
}

// The rendered diagnostics of a failed parse ("" when it succeeded).
template <typename T>
std::string Diagnostics(const absl::StatusOr<T>& result) {
  return result.ok() ? std::string() : RenderStatus(result.status());
}

// "line:col: message" for each diagnostic of `status`, one per line; notes
// follow their error as "  note line:col: message".
inline std::string Locations(const absl::Status& status) {
  std::string out;
  auto where = [](Span span) {
    const SourceFile* file = SourceManager::Global().Get(span.file);
    if (file == nullptr) return std::string("?:?");
    LineCol lc = file->Resolve(span.begin);
    return std::to_string(lc.line) + ":" + std::to_string(lc.column);
  };
  for (const Diagnostic& d : StatusToDiagnostics(status)) {
    out += where(d.span) + ": " + d.message + "\n";
    for (const Note& n : d.notes) out += "  note " + where(n.span) + ": " + n.message + "\n";
  }
  return out;
}

// A compact, recursive rendering of an expression for structural checks:
// calls `op(args)`, constants `dtype:value`, vars `%name`, tuples `(a, b)`,
// projections `t.0`, lets `let %x = v; body`, `if(c){t}{e}`, functions
// `fn(%x){body}`, references as written. Not for deep trees.
inline std::string Sexp(const Expr* e) {
  switch (e->kind()) {
    case ExprKind::kVar:
      return "%" + std::string(Cast<Var>(e)->name());
    case ExprKind::kGlobalVar:
      return "@" + std::string(Cast<GlobalVar>(e)->name());
    case ExprKind::kOp:
      return std::string(Cast<OpExpr>(e)->name());
    case ExprKind::kConstant: {
      const NDArray& a = Cast<Constant>(e)->data();
      if (a.rank() != 0) return "const" + a.dtype().ToString();
      if (a.dtype().is_float())
        return fmt::format("{}:{:g}", a.dtype().ToString(), a.GetAsDouble(0));
      return fmt::format("{}:{}", a.dtype().ToString(), int64_t(a.GetAsDouble(0)));
    }
    case ExprKind::kCall: {
      const Call* c = Cast<Call>(e);
      std::string out = Sexp(c->callee()) + "(";
      for (size_t i = 0; i < c->args().size(); ++i) out += (i ? ", " : "") + Sexp(c->args()[i]);
      return out + ")";
    }
    case ExprKind::kTuple: {
      std::string out = "(";
      auto fields = Cast<Tuple>(e)->fields();
      for (size_t i = 0; i < fields.size(); ++i) out += (i ? ", " : "") + Sexp(fields[i]);
      return out + (fields.size() == 1 ? ",)" : ")");
    }
    case ExprKind::kTupleGetItem:
      return Sexp(Cast<TupleGetItem>(e)->tuple()) + "." +
             std::to_string(Cast<TupleGetItem>(e)->index());
    case ExprKind::kLet: {
      const Let* l = Cast<Let>(e);
      return "let " + Sexp(l->var()) + " = " + Sexp(l->value()) + "; " + Sexp(l->body());
    }
    case ExprKind::kIf: {
      const If* i = Cast<If>(e);
      return "if(" + Sexp(i->cond()) + "){" + Sexp(i->then_branch()) + "}{" +
             Sexp(i->else_branch()) + "}";
    }
    case ExprKind::kFunction: {
      const Function* f = Cast<Function>(e);
      std::string out = "fn(";
      for (size_t i = 0; i < f->params().size(); ++i) out += (i ? ", " : "") + Sexp(f->params()[i]);
      return out + "){" + Sexp(f->body()) + "}";
    }
    case ExprKind::kRefCreate:
      return "ref(" + Sexp(Cast<RefCreate>(e)->value()) + ")";
    case ExprKind::kRefRead:
      return "ref_read(" + Sexp(Cast<RefRead>(e)->ref()) + ")";
    case ExprKind::kRefWrite:
      return "ref_write(" + Sexp(Cast<RefWrite>(e)->ref()) + ", " +
             Sexp(Cast<RefWrite>(e)->value()) + ")";
    case ExprKind::kConstructor:
      return std::string(Cast<Constructor>(e)->name());
    case ExprKind::kMatch: {
      const Match* m = Cast<Match>(e);
      std::string out = m->complete() ? "match(" : "match?(";
      out += Sexp(m->data()) + "){";
      for (const Clause& c : m->clauses()) out += "_ => " + Sexp(c.rhs) + ", ";
      return out + "}";
    }
  }
  return "?";
}

}  // namespace carve::testing_util
