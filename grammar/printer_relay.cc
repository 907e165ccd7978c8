// The frame machine of RelayTextPrinter. Every Step* function handles the top
// frame: it either pushes a child frame (after recording where to resume in
// `stage`) or finishes, leaving its result in `ret_`. `frames_.back()` is
// re-read after every push, since pushing may move the frames.
#include "grammar/printer_relay.h"

#include <algorithm>
#include <cstring>

#include "grammar/printer_text.h"

namespace carve::print_internal {

DocId RelayTextPrinter::PrintDefinition(const GlobalVar* global, const Function* fn) {
  ResetScratchScopes();
  BuildGraph(fn);
  Push(Frame::kFunction, fn, Slot(fn), /*flag=*/true);
  frames_.back().global = global;
  return Run().index;
}

void RelayTextPrinter::SetStream(std::string* out, size_t chunk, std::function<void()> flush) {
  stream_out_ = out;
  stream_chunk_ = chunk;
  stream_flush_ = std::move(flush);
}

void RelayTextPrinter::FlushBody() {
  size_t head = docs_[stream_def_].size();
  if (stream_def_pos_ < head) {
    docs_.RenderRange(stream_def_, stream_def_pos_, &stream_indent_, stream_out_);
    stream_def_pos_ = head;
  }
  // Emptied, the body keeps its capacity: the next line reuses it.
  docs_.RenderAndRelease(stream_body_, &stream_indent_, stream_out_);
  if (stream_out_->size() >= stream_chunk_) stream_flush_();
}

void RelayTextPrinter::FinishDefinition(DocId def) {
  size_t from = def == stream_def_ ? stream_def_pos_ : 0;
  docs_.RenderRange(def, from, &stream_indent_, stream_out_);
  stream_def_ = kNoDoc;
  stream_def_pos_ = 0;
}

DocId RelayTextPrinter::PrintStandalone(const Expr* expr) {
  ResetScratchScopes();
  BuildGraph(expr);
  Push(Frame::kScope, expr, Slot(expr));
  return Run().index;
}

void RelayTextPrinter::Push(Frame::Kind kind, const Expr* expr, uint32_t node, bool flag) {
  Frame frame;
  frame.kind = kind;
  frame.expr = expr;
  frame.node = node;
  frame.flag = flag;
  frames_.push_back(frame);
}

Text RelayTextPrinter::Run() {
  while (!frames_.empty()) {
    switch (frames_.back().kind) {
      case Frame::kPrint:
        StepPrint();
        break;
      case Frame::kVisit:
        StepVisit();
        break;
      case Frame::kFunction:
        StepFunction();
        break;
      case Frame::kIf:
        StepIf();
        break;
      case Frame::kLet:
        StepLet();
        break;
      case Frame::kScope:
        StepScope();
        break;
      case Frame::kMatch:
        StepMatch();
        break;
    }
  }
  return ret_;
}

void RelayTextPrinter::StepPrint() {
  Frame& f = frames_.back();
  if (f.stage == 0 && !Visited(f.node)) {
    f.stage = 1;
    Push(Frame::kVisit, f.expr, f.node);
    return;
  }
  ret_ = FinishPrint(f.expr, f.node, f.flag);
  frames_.pop_back();
}

// TVM's ExpandDataflow: a post-order walk of the dataflow nodes below
// `f.expr`; the first child to come off the stack is the callee.
void RelayTextPrinter::StepVisit() {
  Frame& f = frames_.back();
  if (f.stage == 0) {
    f.stage = 1;
    f.base = dataflow_.size();
    if (!Visited(f.node)) dataflow_.push_back({f.expr, f.node, false});
  }
  while (dataflow_.size() > f.base) {
    Pending top = dataflow_.back();
    if (Visited(top.node)) {
      dataflow_.pop_back();
    } else if (!top.expanded) {
      dataflow_.back().expanded = true;
      PushChildren(top.expr, top.node);
    } else if (ExprKind kind = nodes_[top.node].kind;
               kind == ExprKind::kFunction || kind == ExprKind::kIf || kind == ExprKind::kLet ||
               kind == ExprKind::kMatch) {
      // The leaf prints a body: its frame runs first, then this loop
      // resumes and finds the node visited. Nodes the body shares with the
      // enclosing scope are bound before it (then this loop comes back).
      if (HoistEscapingNodes(top.expr, top.node)) return;
      Push(kind == ExprKind::kFunction ? Frame::kFunction
           : kind == ExprKind::kIf     ? Frame::kIf
           : kind == ExprKind::kMatch  ? Frame::kMatch
                                       : Frame::kLet,
           top.expr, top.node);
      return;
    } else {
      VisitLeaf(top.expr, top.node);
      dataflow_.pop_back();
    }
  }
  ret_ = nodes_[f.node].memo;
  frames_.pop_back();
}

namespace {

// A definition's head: its fixed part and each parameter's declaration
// (`%name: Tensor[(...), float32]`), about.
constexpr size_t kHeadBytes = 160;
constexpr size_t kParamBytes = 48;

// Naming a parameter reads its Var and then its name's bytes, both usually
// cold (the graph walk only noted the Var's address), so these reads are
// started early enough to overlap: the first parameters' names up front (all
// of a composite's few), and later ones some parameters ahead of the one
// being named.
constexpr size_t kVarAhead = 8;
constexpr size_t kNameAhead = 4;

void PrefetchParams(std::span<const Var* const> params) {
  // Reading a Var's name is a load of the Var itself: a prefetch of the Var
  // just before would gain nothing. These loads do not depend on each other,
  // so the core has them in flight together.
  for (const Var* param : params.first(std::min(params.size(), kVarAhead))) {
    __builtin_prefetch(param->name().data());
  }
}

// While parameter `k` is named.
void PrefetchParam(std::span<const Var* const> params, size_t k) {
  if (k + kVarAhead < params.size()) __builtin_prefetch(params[k + kVarAhead]);
  if (k + kNameAhead < params.size()) __builtin_prefetch(params[k + kNameAhead]->name().data());
}

}  // namespace

// TVM PrintFunc: `fn [T](%p: T, Attr=v) -> R {` body `}`.
void RelayTextPrinter::StepFunction() {
  Frame& f = frames_.back();
  auto* fn = Cast<Function>(f.expr);
  if (f.stage == 0) {
    f.doc = docs_.New();
    std::string* out = &docs_[f.doc];
    if (f.flag) {
      // A definition's head holds a declaration per parameter (about 40
      // bytes each), and may hold thousands: room for it at once instead of
      // growing by doubling, which copies it and leaves the smaller blocks
      // behind.
      out->reserve(kHeadBytes + fn->params().size() * kParamBytes);
    }
    // A fn literal is written into a document reused from one literal to
    // the next, then frozen (see the end of this function).
    AppendFunctionHead(out, f);
    f.stage = 1;
    Push(Frame::kScope, fn->body(), Child(f.node, fn->params().size()));
    return;
  }
  std::string* out = &docs_[f.doc];
  AppendText(out, ret_);
  AppendDedent(out);
  out->append("\n}");
  if (f.flag) {
    ret_ = Text::Doc(f.doc);
  } else {
    AppendTypeInfo(out, fn);
    ret_ = Text::Doc(docs_.Freeze(*out));
    docs_.Release(f.doc);
    LeafDone(f.node, ret_);
  }
  frames_.pop_back();
}

// `def @name` or `fn`, then `[T](%p: T, Attr=v) -> R {`; names the
// parameters.
void RelayTextPrinter::AppendFunctionHead(std::string* out, const Frame& f) {
  auto* fn = Cast<Function>(f.expr);
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
  auto params = fn->params();
  PrefetchParams(params);
  for (size_t k = 0; k < params.size(); ++k) {
    if (!first) out->append(", ");
    first = false;
    PrefetchParam(params, k);
    // Declared in place: only the name has to stay in the arena.
    const Var* param = params[k];
    AppendDecl(out, param, NameVar(param, Child(f.node, k)));
  }
  AppendFunctionAttrs(out, fn->attrs(), first);
  // TVM PrintFunc: the function's virtual device after its attributes.
  if (fn->virtual_device() != nullptr && !fn->virtual_device()->IsFullyUnconstrained()) {
    if (!first || !fn->attrs()->empty()) out->append(", ");
    out->append("virtual_device=");
    AppendVirtualDevice(out, fn->virtual_device(), Devices());
  }
  out->append(") ");
  if (fn->ret_type() != nullptr) {
    out->append("-> ");
    AppendType(out, fn->ret_type());
    out->push_back(' ');
  }
  out->push_back('{');
  AppendIndent(out);
  out->push_back('\n');
}

// TVM VisitExpr_(If): `if (cond) {` then `} else {` else `}`; the condition
// is printed first (and bound unless it is an atom).
void RelayTextPrinter::StepIf() {
  Frame& f = frames_.back();
  auto* node = Cast<If>(f.expr);
  std::string* out = f.stage == 0 ? nullptr : &docs_[f.doc];
  switch (f.stage) {
    case 0:
      f.doc = docs_.New();
      docs_[f.doc].append("if (");
      f.stage = 1;
      Push(Frame::kPrint, node->cond(), Child(f.node, 0));
      return;
    case 1:
      AppendText(out, ret_);
      out->append(") {");
      AppendIndent(out);
      out->push_back('\n');
      f.stage = 2;
      Push(Frame::kScope, node->then_branch(), Child(f.node, 1));
      return;
    case 2:
      AppendText(out, ret_);
      AppendDedent(out);
      out->append("\n} else {");
      AppendIndent(out);
      out->push_back('\n');
      f.stage = 3;
      Push(Frame::kScope, node->else_branch(), Child(f.node, 2));
      return;
    default:
      AppendText(out, ret_);
      AppendDedent(out);
      out->append("\n}");
      ret_ = Text::Doc(f.doc);
      LeafDone(f.node, ret_);
      frames_.pop_back();
  }
}

// TVM VisitExpr_(Let): one `let %x = value;` line per link of the chain, then
// the final body in its own scope. The lines share one document, which is the
// innermost scope from the first line on: bindings needed by the second value
// land after the first line, and so on.
void RelayTextPrinter::StepLet() {
  Frame& f = frames_.back();
  if (f.stage == 2) {  // a value is printed
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
    uint32_t body = Child(f.link_node, 2);
    f.link = Cast<Let>(f.link)->body();
    f.link_node = body;
    if (!Isa<Let>(f.link)) {
      f.stage = 3;
      Push(Frame::kScope, f.link, f.link_node);
      return;
    }
  } else if (f.stage == 3) {  // the body is printed
    AppendText(&docs_[f.doc], ret_);
    scopes_.pop_back();
    ret_ = Text::Doc(f.doc);
    LeafDone(f.node, ret_);
    frames_.pop_back();
    return;
  } else {
    f.doc = docs_.New();
    f.link = f.expr;
    f.link_node = f.node;
  }
  // Next link: name its variable before printing its value (a recursive
  // function refers to itself).
  auto* let = Cast<Let>(f.link);
  f.pending = AllocVar(let->var(), Child(f.link_node, 0), /*free=*/false);
  f.stage = 2;
  Push(Frame::kPrint, let->value(), Child(f.link_node, 1), /*try_inline=*/true);
}

// TVM PrintScope: a fresh document collects the bindings made while the tail
// is printed; the tail follows them.
void RelayTextPrinter::StepScope() {
  Frame& f = frames_.back();
  if (f.stage == 0) {
    // A scope at depth 2 is a definition's body (frame 0 is its function),
    // at depth 1 a standalone expression's: the outermost text, kept as it
    // is. Any other scope is pushed by a function, if or let frame above
    // some kPrint frame, so it is nested in an enclosing scope's text and
    // finished (and frozen) before that one: the scratch document of its
    // depth serves.
    if (frames_.size() > 2) {
      f.doc = ScratchScope();
      f.flag = true;
    } else {
      f.doc = docs_.New();
    }
    if (frames_.size() == 2) {
      // A definition's body holds most of its text: reserve for about 48
      // bytes a node rather than grow by doubling, which copies the text and
      // touches twice its size in fresh pages (untouched reserve is free).
      // Streamed, it holds one line at a time.
      if (stream_out_ != nullptr && frames_[0].kind == Frame::kFunction && frames_[0].flag) {
        stream_def_ = frames_[0].doc;
        stream_def_pos_ = 0;
        stream_body_ = f.doc;
      } else {
        docs_[f.doc].reserve(nodes_.size() * 48);
      }
    }
    scopes_.push_back(f.doc);
    f.stage = 1;
    Push(Frame::kPrint, f.expr, f.node, /*try_inline=*/true);
    return;
  }
  AppendText(&docs_[f.doc], ret_);
  scopes_.pop_back();
  if (f.doc == stream_body_) stream_body_ = kNoDoc;
  ret_ = Text::Doc(f.flag ? CloseScratchScope(f.doc) : f.doc);
  frames_.pop_back();
}

// A nested body is written into the document kept for its depth, whose
// capacity stays from one body to the next, and frozen once finished: a
// partitioned function's composite bodies are tens of thousands of small
// documents, which would otherwise each grow by a chain of doublings.
DocId RelayTextPrinter::ScratchScope() {
  if (open_scratch_ == scratch_scopes_.size()) scratch_scopes_.push_back(docs_.New());
  return scratch_scopes_[open_scratch_++];  // empty (CloseScratchScope)
}

DocId RelayTextPrinter::CloseScratchScope(DocId scratch) {
  --open_scratch_;
  DocId frozen = docs_.Freeze(docs_[scratch]);
  // Emptied, it keeps its capacity for the next body of its depth, and holds
  // no stale text (counted by TotalBytes, kept by a non-streaming print).
  docs_[scratch].clear();
  return frozen;
}

Text RelayTextPrinter::FinishPrint(const Expr* e, uint32_t node, bool try_inline) {
  NodeState& state = nodes_[node];
  if (state.kind == ExprKind::kVar) {
    // References print the bare name; a free variable is declared on first use.
    if ((state.flags & kBound) == 0) {
      state.flags |= kBound;
      if (state.flags & kFreeVar) EmitLine("free_var ", free_var_decls_[e]);
    }
    return state.memo;
  }
  bool inline_expr = IsAtomKind(state.kind) || (try_inline && state.parents <= 1);
  if (inline_expr || (state.flags & kBound)) return state.memo;
  state.flags |= kBound;
  Text printed = state.memo;
  if (state.kind == ExprKind::kLet) printed = WrapInParens(printed);
  state.memo = Text::Temp(next_temp_++);
  std::string* out = &docs_[scopes_.back()];
  char line_start[24];
  char* p = WriteTemp(line_start, state.memo.index);
  std::memcpy(p, " = ", 3);
  out->append(line_start, size_t(p + 3 - line_start));
  AppendText(out, printed);
  out->append(";\n");
  // The node's text now lives in its binding, and nothing else refers to it
  // (users print the `%N`); when it is the newest text in the arena, reuse the
  // space. Along a chain this keeps the arena at the size of a few nodes.
  if (printed.kind == Text::kArena && printed.index + printed.size == arena_.size()) {
    arena_.resize(printed.index);
  }
  MaybeFlushBody();
  return state.memo;
}

void RelayTextPrinter::LeafDone(uint32_t node, Text text) {
  NodeState& state = nodes_[node];
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
  MaybeFlushBody();
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
