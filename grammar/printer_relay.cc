// The frame machine of RelayTextPrinter. Every Step* function handles the top
// frame: it either pushes a child frame (after recording where to resume in
// `stage`) or finishes, leaving its result in `ret_`. `frames_.back()` is
// re-read after every push, since pushing may move the frames.
#include "grammar/printer_relay.h"

#include "grammar/printer_text.h"

namespace carve::print_internal {

void RelayTextPrinter::BuildGraph(const Expr* root) {
  index_.clear();
  nodes_.clear();
  free_var_decls_.clear();
  std::vector<const Expr*> stack = {root};
  Index(root);
  auto edge = [&](const Expr* child) {
    size_t size = nodes_.size();
    NodeState& state = nodes_[Index(child)];
    if (state.parents < 2) ++state.parents;
    if (nodes_.size() > size) stack.push_back(child);
  };
  // Binders are not graph nodes; registering them now keeps the printing
  // from inserting.
  auto binder = [&](const Var* var) { Index(var); };
  while (!stack.empty()) {
    const Expr* e = stack.back();
    stack.pop_back();
    switch (e->kind()) {
      case ExprKind::kCall: {
        auto* call = Cast<Call>(e);
        edge(call->callee());
        for (const Expr* arg : call->args()) edge(arg);
        break;
      }
      case ExprKind::kTuple:
        for (const Expr* field : Cast<Tuple>(e)->fields()) edge(field);
        break;
      case ExprKind::kTupleGetItem:
        edge(Cast<TupleGetItem>(e)->tuple());
        break;
      case ExprKind::kIf: {
        auto* node = Cast<If>(e);
        edge(node->cond());
        edge(node->then_branch());
        edge(node->else_branch());
        break;
      }
      case ExprKind::kFunction: {
        auto* fn = Cast<Function>(e);
        for (const Var* param : fn->params()) binder(param);
        edge(fn->body());
        break;
      }
      case ExprKind::kLet: {
        auto* let = Cast<Let>(e);
        binder(let->var());
        edge(let->value());
        edge(let->body());
        break;
      }
      default:
        break;
    }
  }
}

DocId RelayTextPrinter::PrintDefinition(const GlobalVar* global, const Function* fn) {
  BuildGraph(fn);
  Push(Frame::kFunction, fn, /*flag=*/true);
  frames_.back().global = global;
  return Run().index;
}

DocId RelayTextPrinter::PrintStandalone(const Expr* expr) {
  BuildGraph(expr);
  Push(Frame::kScope, expr);
  return Run().index;
}

void RelayTextPrinter::Push(Frame::Kind kind, const Expr* expr, bool flag) {
  Frame frame;
  frame.kind = kind;
  frame.expr = expr;
  frame.flag = flag;
  frames_.push_back(frame);
}

Text RelayTextPrinter::Run() {
  while (!frames_.empty()) {
    switch (frames_.back().kind) {
      case Frame::kPrint: StepPrint(); break;
      case Frame::kVisit: StepVisit(); break;
      case Frame::kFunction: StepFunction(); break;
      case Frame::kIf: StepIf(); break;
      case Frame::kLet: StepLet(); break;
      case Frame::kScope: StepScope(); break;
    }
  }
  return ret_;
}

void RelayTextPrinter::StepPrint() {
  Frame& f = frames_.back();
  if (f.stage == 0 && !Visited(Index(f.expr))) {
    f.stage = 1;
    Push(Frame::kVisit, f.expr);
    return;
  }
  ret_ = FinishPrint(f.expr, f.flag);
  frames_.pop_back();
}

// TVM's ExpandDataflow: a post-order walk of the dataflow nodes below
// `f.expr`; the first child to come off the stack is the callee.
void RelayTextPrinter::StepVisit() {
  Frame& f = frames_.back();
  if (f.stage == 0) {
    f.stage = 1;
    f.base = dataflow_.size();
    uint32_t index = Index(f.expr);
    if (!Visited(index)) dataflow_.push_back({f.expr, index, false});
  }
  while (dataflow_.size() > f.base) {
    Pending top = dataflow_.back();
    if (Visited(top.index)) {
      dataflow_.pop_back();
    } else if (!top.expanded) {
      dataflow_.back().expanded = true;
      PushChildren(top.expr);
    } else if (Isa<Function>(top.expr) || Isa<If>(top.expr) || Isa<Let>(top.expr)) {
      // The leaf prints a body: its frame runs first, then this loop
      // resumes and finds the node visited.
      ExprKind kind = top.expr->kind();
      Push(kind == ExprKind::kFunction ? Frame::kFunction
           : kind == ExprKind::kIf     ? Frame::kIf
                                       : Frame::kLet,
           top.expr);
      return;
    } else {
      VisitLeaf(top.expr, top.index);
      dataflow_.pop_back();
    }
  }
  ret_ = State(f.expr).memo;
  frames_.pop_back();
}

// TVM PrintFunc: `fn [T](%p: T, Attr=v) -> R {` body `}`.
void RelayTextPrinter::StepFunction() {
  Frame& f = frames_.back();
  auto* fn = Cast<Function>(f.expr);
  if (f.stage == 0) {
    DocId id = docs_.New();
    f.doc = id;
    std::string* out = &docs_[id];
    if (f.flag) {
      out->append("def ");
      AppendText(out, GlobalText(f.global));
    } else {
      out->append("fn ");
    }
    if (!fn->type_params().empty()) {
      out->push_back('[');
      for (size_t i = 0; i < fn->type_params().size(); ++i) {
        if (i > 0) out->append(", ");
        out->append(fn->type_params()[i]->name());
      }
      out->push_back(']');
    }
    out->push_back('(');
    bool first = true;
    for (const Var* param : fn->params()) {
      if (!first) out->append(", ");
      first = false;
      AppendText(out, AllocVar(param, /*free=*/false));
    }
    AppendDictAttrs(out, fn->attrs(), &first);
    out->append(") ");
    if (fn->ret_type() != nullptr) {
      out->append("-> ");
      AppendType(out, fn->ret_type());
      out->push_back(' ');
    }
    out->push_back('{');
    AppendIndent(out);
    out->push_back('\n');
    f.stage = 1;
    Push(Frame::kScope, fn->body());
    return;
  }
  std::string* out = &docs_[f.doc];
  AppendText(out, ret_);
  AppendDedent(out);
  out->append("\n}");
  Text result = Text::Doc(f.doc);
  if (!f.flag) {
    AppendTypeInfo(out, fn);
    LeafDone(Index(fn), result);
  }
  ret_ = result;
  frames_.pop_back();
}

// TVM VisitExpr_(If): `if (cond) {` then `} else {` else `}`.
void RelayTextPrinter::StepIf() {
  Frame& f = frames_.back();
  auto* node = Cast<If>(f.expr);
  switch (f.stage) {
    case 0:
      f.doc = docs_.New();
      docs_[f.doc].append("if (");
      f.stage = 1;
      Push(Frame::kPrint, node->cond());
      return;
    case 1: {
      std::string* out = &docs_[f.doc];
      AppendText(out, ret_);
      out->append(") {");
      AppendIndent(out);
      out->push_back('\n');
      f.stage = 2;
      Push(Frame::kScope, node->then_branch());
      return;
    }
    case 2: {
      std::string* out = &docs_[f.doc];
      AppendText(out, ret_);
      AppendDedent(out);
      out->append("\n} else {");
      AppendIndent(out);
      out->push_back('\n');
      f.stage = 3;
      Push(Frame::kScope, node->else_branch());
      return;
    }
    default: {
      std::string* out = &docs_[f.doc];
      AppendText(out, ret_);
      AppendDedent(out);
      out->append("\n}");
      ret_ = Text::Doc(f.doc);
      LeafDone(Index(node), ret_);
      frames_.pop_back();
    }
  }
}

// TVM VisitExpr_(Let): one `let %x = value;` line per link of the chain, then
// the final body in its own scope. The lines share one document, which is the
// innermost scope from the first line on: bindings needed by the second value
// land after the first line, and so on.
void RelayTextPrinter::StepLet() {
  Frame& f = frames_.back();
  if (f.stage == 2) {
    auto* let = Cast<Let>(f.cursor);
    std::string* out = &docs_[f.doc];
    out->append("let ");
    AppendText(out, f.pending);
    out->append(" = ");
    AppendText(out, ret_);
    out->append(";\n");
    if (!f.flag) {
      f.flag = true;
      scopes_.push_back(f.doc);
    }
    f.cursor = let->body();
    if (!Isa<Let>(f.cursor)) {
      f.stage = 3;
      Push(Frame::kScope, f.cursor);
      return;
    }
  } else if (f.stage == 3) {
    AppendText(&docs_[f.doc], ret_);
    scopes_.pop_back();
    ret_ = Text::Doc(f.doc);
    LeafDone(Index(f.expr), ret_);
    frames_.pop_back();
    return;
  } else {
    f.doc = docs_.New();
    f.cursor = f.expr;
  }
  // Next link: name its variable before printing its value (a recursive
  // function refers to itself).
  auto* let = Cast<Let>(f.cursor);
  f.pending = AllocVar(let->var(), /*free=*/false);
  f.stage = 2;
  Push(Frame::kPrint, let->value(), /*try_inline=*/true);
}

// TVM PrintScope: a fresh document collects the bindings made while the tail
// is printed; the tail follows them.
void RelayTextPrinter::StepScope() {
  Frame& f = frames_.back();
  if (f.stage == 0) {
    f.doc = docs_.New();
    scopes_.push_back(f.doc);
    f.stage = 1;
    Push(Frame::kPrint, f.expr, /*try_inline=*/true);
    return;
  }
  AppendText(&docs_[f.doc], ret_);
  scopes_.pop_back();
  ret_ = Text::Doc(f.doc);
  frames_.pop_back();
}

Text RelayTextPrinter::FinishPrint(const Expr* e, bool try_inline) {
  NodeState& state = State(e);
  if (Isa<Var>(e)) {
    // References print the bare name; a free variable is declared on first use.
    if ((state.flags & kBound) == 0) {
      state.flags |= kBound;
      if (state.flags & kFreeVar) EmitLine("free_var ", free_var_decls_[e]);
    }
    return state.memo;
  }
  bool inline_expr = e->is_atom() || (try_inline && state.parents <= 1);
  if (inline_expr || (state.flags & kBound)) return state.memo;
  state.flags |= kBound;
  Text printed = state.memo;
  if (Isa<Let>(e)) printed = WrapInParens(printed);
  Text temp = Text::Temp(next_temp_++);
  state.memo = temp;
  std::string* out = &docs_[scopes_.back()];
  AppendText(out, temp);
  out->append(" = ");
  AppendText(out, printed);
  out->append(";\n");
  return temp;
}

void RelayTextPrinter::LeafDone(uint32_t index, Text text) {
  NodeState& state = nodes_[index];
  if ((state.flags & kVisited) == 0) {
    state.memo = text;
    state.flags |= kVisited;
  }
}

void RelayTextPrinter::EmitLine(std::string_view prefix, Text text) {
  std::string* out = &docs_[scopes_.back()];
  out->append(prefix);
  AppendText(out, text);
  out->append(";\n");
}

Text RelayTextPrinter::WrapInParens(Text text) {
  DocId id = docs_.New();
  std::string* out = &docs_[id];
  out->push_back('(');
  AppendIndent(out);
  out->push_back('\n');
  AppendText(out, text);
  AppendDedent(out);
  out->append("\n)");
  return Text::Doc(id);
}

}  // namespace carve::print_internal
