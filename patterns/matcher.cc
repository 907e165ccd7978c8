#include "patterns/matcher.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "patterns/attr_match.h"
#include "patterns/describe.h"
#include "patterns/expr_equal.h"
#include "patterns/predicate.h"

namespace carve {

std::string PathToString(std::span<const PathStep> path) {
  std::string out;
  for (const PathStep& s : path) {
    if (!out.empty()) out += ", ";
    switch (s.kind) {
      case PathStep::Kind::kCallee:
        out += "callee";
        break;
      case PathStep::Kind::kArg:
        out += fmt::format("arg {}", s.index);
        break;
      case PathStep::Kind::kField:
        out += fmt::format("field {}", s.index);
        break;
      case PathStep::Kind::kTuple:
        out += "tuple";
        break;
      case PathStep::Kind::kCond:
        out += "condition";
        break;
      case PathStep::Kind::kThen:
        out += "then branch";
        break;
      case PathStep::Kind::kElse:
        out += "else branch";
        break;
      case PathStep::Kind::kVar:
        out += "let variable";
        break;
      case PathStep::Kind::kValue:
        out += "let value";
        break;
      case PathStep::Kind::kBody:
        out += "body";
        break;
      case PathStep::Kind::kParam:
        out += fmt::format("param {}", s.index);
        break;
      case PathStep::Kind::kDominatorInput:
        out += fmt::format("input %{}", s.index);
        break;
    }
  }
  return out;
}

Matcher::Matcher(std::shared_ptr<const CompiledPattern> pattern, const IndexedGraph* graph)
    : pattern_(std::move(pattern)), graph_(graph), bound_(pattern_->size(), nullptr) {}

Matcher::~Matcher() = default;

bool Matcher::Match(const Expr* expr) { return Match(expr, kNoIndex); }

bool Matcher::Match(const Expr* expr, uint32_t index) {
  Rollback(0);
  memoize_ = true;
  depth_ = 0;
  depth_exceeded_ = false;
  path_.clear();
  failure_.reset();
  failures_.clear();
  bool ok = Visit(pattern_->root(), expr, graph_ != nullptr ? index : kNoIndex);
  if (!ok && !failures_.empty()) failure_ = std::move(failures_.back());
  return ok;
}

uint32_t Matcher::InputIndex(uint32_t idx, size_t k, size_t count) const {
  // (Without a graph every index is kNoIndex.)
  return idx == kNoIndex ? kNoIndex : graph_->InputIndex(idx, k, count);
}

const Expr* Matcher::Capture(std::string_view name) const {
  std::optional<uint32_t> id = pattern_->CaptureId(name);
  return id ? bound_[*id] : nullptr;
}

void Matcher::Bind(uint32_t id, const Expr* e, uint32_t idx) {
  bool primary = bound_[id] == nullptr;
  if (primary) bound_[id] = e;
  trail_.push_back({id, idx, e});
  primary_.push_back(primary);
}

void Matcher::Rollback(size_t mark) {
  while (trail_.size() > mark) {
    if (primary_.back()) bound_[trail_.back().pattern_id] = nullptr;
    trail_.pop_back();
    primary_.pop_back();
  }
}

bool Matcher::Closer(const MatchFailure& than) const {
  if (path_.size() != than.path.size()) return path_.size() > than.path.size();
  return trail_.size() > than.progress;
}

template <typename F>
bool Matcher::Fail(uint32_t id, const Expr* e, F&& reason) {
  if (explain_ && (failures_.empty() || Closer(failures_.back()))) {
    failures_.push_back(MatchFailure{e, id, reason(), path_, trail_.size()});
  }
  return false;
}

bool Matcher::Visit(uint32_t id, const Expr* e, uint32_t idx) {
  if (memoize_ && bound_[id] != nullptr) {
    if (bound_[id] == e) return true;
    return Fail(id, e, [&] {
      return fmt::format("this sub-pattern is shared and already matched {}, not {}",
                         Describe(bound_[id]), Describe(e));
    });
  }
  if (depth_ >= kMaxDepth) {
    depth_exceeded_ = true;
    return Fail(id, e, [] { return fmt::format("pattern nesting deeper than {}", kMaxDepth); });
  }
  size_t mark = trail_.size();
  const size_t failures = failures_.size();
  ++depth_;
  bool ok = VisitKind(id, e, idx);
  --depth_;
  if (ok) {
    // A failure inside a sub-pattern that matched after all (an
    // alternative, an optional op, a commuted call) is not why the match
    // failed: forget it, or a `nn.pad?` before a failing where clause
    // would be reported as "expected nn.pad".
    failures_.resize(failures);
    Bind(id, e, idx);
  } else {
    Rollback(mark);
  }
  return ok;
}

bool Matcher::VisitChild(uint32_t id, const Expr* e, PathStep step, uint32_t idx) {
  if (!explain_) return Visit(id, e, idx);
  path_.push_back(step);
  bool ok = Visit(id, e, idx);
  path_.pop_back();
  return ok;
}

bool Matcher::VisitKind(uint32_t id, const Expr* e, uint32_t idx) {
  const CompiledNode& n = pattern_->node(id);
  auto expected = [&] {
    return fmt::format("expected {}, got {}", DescribePattern(n.node), Describe(e));
  };
  switch (n.kind) {
    case PatternKind::kWildcard:
      return true;
    case PatternKind::kOp: {
      const auto* op = DynCast<OpExpr>(e);
      return (op != nullptr && op->info() == Cast<OperatorPattern>(n.node)->op()) ||
             Fail(id, e, expected);
    }
    case PatternKind::kExpr:
      return ExprStructurallyEqual(Cast<ExprPattern>(n.node)->expr(), e) || Fail(id, e, expected);
    case PatternKind::kVar: {
      const auto* v = DynCast<Var>(e);
      const std::string& name = Cast<VarPattern>(n.node)->name();
      return (v != nullptr && (name.empty() || v->name() == name)) || Fail(id, e, expected);
    }
    case PatternKind::kConstant:
      return Isa<Constant>(e) || Fail(id, e, expected);
    case PatternKind::kCall:
      return VisitCall(id, e, idx);
    case PatternKind::kTuple:
      return VisitTuple(id, e, idx);
    case PatternKind::kTupleGetItem: {
      const auto* g = DynCast<TupleGetItem>(e);
      int index = Cast<TupleGetItemPattern>(n.node)->index();
      if (g == nullptr || (index >= 0 && index != g->index())) return Fail(id, e, expected);
      return VisitChild(pattern_->children(id)[0], g->tuple(), {PathStep::Kind::kTuple},
                        InputIndex(idx, 0, 1));
    }
    case PatternKind::kIf:
    case PatternKind::kLet:
      return VisitLetOrIf(id, e);
    case PatternKind::kFunction:
      return VisitFunction(id, e);
    case PatternKind::kAlt: {
      auto kids = pattern_->children(id);
      return Visit(kids[0], e, idx) || Visit(kids[1], e, idx);
    }
    case PatternKind::kAttr:
      return VisitAttr(id, e, idx);
    case PatternKind::kType:
    case PatternKind::kDType:
    case PatternKind::kShape:
      return VisitTypeConstraint(id, e, idx);
    case PatternKind::kDominator:
      return VisitDominator(id, e, idx);
    case PatternKind::kCapture:
    case PatternKind::kRecursive:
      return Visit(pattern_->children(id)[0], e, idx);
    case PatternKind::kWhere:
      return VisitWhere(id, e, idx);
    case PatternKind::kInvalid:
      return Fail(id, e, [&] { return *n.node->error(); });
  }
  return false;
}

bool Matcher::MatchArgs(std::span<const uint32_t> pats, std::span<const Expr* const> args,
                        bool swap, uint32_t call_idx) {
  size_t mark = trail_.size();
  // Arguments left to right; swapped, the patterns run in reverse (TVM
  // matches the reversed pattern list against the args), which decides what
  // shared sub-patterns and alternations bind first.
  for (size_t arg = 0; arg < pats.size(); ++arg) {
    uint32_t pat = pats[swap ? pats.size() - 1 - arg : arg];
    if (!VisitChild(pat, args[arg], {PathStep::Kind::kArg, static_cast<uint32_t>(arg)},
                    InputIndex(call_idx, 1 + arg, 1 + args.size()))) {
      Rollback(mark);
      return false;
    }
  }
  return true;
}

bool Matcher::VisitCall(uint32_t id, const Expr* e, uint32_t idx) {
  const auto* call = DynCast<Call>(e);
  const auto* pat = Cast<CallPattern>(pattern_->node(id).node);
  if (call == nullptr) {
    return Fail(id, e, [&] {
      return fmt::format("expected {}, got {}", DescribePattern(pat), Describe(e));
    });
  }
  auto kids = pattern_->children(id);
  size_t mark = trail_.size();
  // An op callee is checked here rather than through the callee's visit, so
  // that an explanation reads "expected a call of nn.relu, got a call of add"
  // at the call itself.
  const OpInfo* want = pat->op();
  bool callee_ok =
      want != nullptr && call->op() != want
          ? Fail(id, e,
                 [&] {
                   return fmt::format("expected {}, got {}", DescribePattern(pat), Describe(e));
                 })
          : VisitChild(kids[0], call->callee(), {PathStep::Kind::kCallee},
                       InputIndex(idx, 0, 1 + call->args().size()));
  if (callee_ok) {
    if (pat->any_args()) return true;
    auto arg_pats = kids.subspan(1);
    if (arg_pats.size() != call->args().size()) {
      return Fail(id, e, [&] {
        return fmt::format("expected {}, got {}", DescribePattern(pat), Describe(e));
      });
    }
    if (MatchArgs(arg_pats, call->args(), false, idx)) return true;
    // Commutativity is an op fact from the registry, never an op name here
    // (shared/spec/patterns.md; TVM retries only add and multiply).
    const OpInfo* op = pat->op();
    return op != nullptr && op->commutative() && arg_pats.size() == 2 &&
           MatchArgs(arg_pats, call->args(), true, idx);
  }
  Rollback(mark);
  for (uint32_t alt : pattern_->alternatives(id)) {
    if (Visit(alt, e, idx)) return true;
    Rollback(mark);
  }
  return false;
}

bool Matcher::VisitTuple(uint32_t id, const Expr* e, uint32_t idx) {
  const auto* tuple = DynCast<Tuple>(e);
  const auto* pat = Cast<TuplePattern>(pattern_->node(id).node);
  auto kids = pattern_->children(id);
  if (tuple == nullptr || (!pat->any_fields() && kids.size() != tuple->fields().size())) {
    return Fail(id, e, [&] {
      return fmt::format("expected {}, got {}", DescribePattern(pat), Describe(e));
    });
  }
  if (pat->any_fields()) return true;
  for (size_t i = 0; i < kids.size(); ++i) {
    if (!VisitChild(kids[i], tuple->fields()[i], {PathStep::Kind::kField, uint32_t(i)},
                    InputIndex(idx, i, kids.size()))) {
      return false;
    }
  }
  return true;
}

bool Matcher::VisitFunction(uint32_t id, const Expr* e) {
  const auto* fn = DynCast<Function>(e);
  const auto* pat = Cast<FunctionPattern>(pattern_->node(id).node);
  auto kids = pattern_->children(id);
  size_t num_params = kids.size() - 1;
  if (fn == nullptr || (!pat->any_params() && num_params != fn->params().size())) {
    return Fail(id, e, [&] {
      return fmt::format("expected {}, got {}", DescribePattern(pat), Describe(e));
    });
  }
  if (!pat->any_params()) {
    for (size_t i = 0; i < num_params; ++i) {
      if (!VisitChild(kids[i], fn->params()[i], {PathStep::Kind::kParam, uint32_t(i)})) {
        return false;
      }
    }
  }
  return VisitChild(kids.back(), fn->body(), {PathStep::Kind::kBody});
}

bool Matcher::VisitLetOrIf(uint32_t id, const Expr* e) {
  auto kids = pattern_->children(id);
  if (pattern_->node(id).kind == PatternKind::kIf) {
    const auto* i = DynCast<If>(e);
    if (i == nullptr) return Fail(id, e, [&] { return "expected an if, got " + Describe(e); });
    return VisitChild(kids[0], i->cond(), {PathStep::Kind::kCond}) &&
           VisitChild(kids[1], i->then_branch(), {PathStep::Kind::kThen}) &&
           VisitChild(kids[2], i->else_branch(), {PathStep::Kind::kElse});
  }
  const auto* l = DynCast<Let>(e);
  if (l == nullptr) return Fail(id, e, [&] { return "expected a let, got " + Describe(e); });
  return VisitChild(kids[0], l->var(), {PathStep::Kind::kVar}) &&
         VisitChild(kids[1], l->value(), {PathStep::Kind::kValue}) &&
         VisitChild(kids[2], l->body(), {PathStep::Kind::kBody});
}

bool Matcher::VisitAttr(uint32_t id, const Expr* e, uint32_t idx) {
  if (!Visit(pattern_->children(id)[0], e, idx)) return false;
  const auto* pat = Cast<AttrPattern>(pattern_->node(id).node);
  if (!Isa<Call>(e) && !Isa<Function>(e) && !Isa<OpExpr>(e)) {
    return Fail(id, e, [&] {
      return "attributes can only be checked on calls, functions and ops, not on " + Describe(e);
    });
  }
  for (const AttrEntry& want : pat->attrs()) {
    std::optional<AttrValue> have = NodeAttr(e, want.key);
    if (!have) {
      return Fail(id, e,
                  [&] { return fmt::format("{} has no attribute '{}'", Describe(e), want.key); });
    }
    bool same = Isa<Function>(e) ? AttrValuesStructurallyEqual(want.value, *have)
                                 : CallAttrMatches(want.value, *have);
    if (!same) {
      return Fail(id, e, [&] {
        return fmt::format("attribute {} is {}, expected {}", want.key, AttrValueToString(*have),
                           AttrValueToString(want.value));
      });
    }
  }
  return true;
}

bool Matcher::VisitTypeConstraint(uint32_t id, const Expr* e, uint32_t idx) {
  const CompiledNode& n = pattern_->node(id);
  const Type* t = e->checked_type();
  if (t == nullptr) {
    return Fail(id, e, [&] {
      return Describe(e) + " has no inferred type (run InferType before matching types)";
    });
  }
  const auto* tensor = DynCast<TensorType>(t);
  bool ok = false;
  std::string want;
  if (n.kind == PatternKind::kType) {
    ok = Cast<TypePattern>(n.node)->type() == t;
    want = TypeToString(Cast<TypePattern>(n.node)->type());
  } else if (n.kind == PatternKind::kDType) {
    ok = tensor != nullptr && tensor->dtype() == Cast<DTypePattern>(n.node)->dtype();
    want = "dtype " + Cast<DTypePattern>(n.node)->dtype().ToString();
  } else {
    const auto* shape = Cast<ShapePattern>(n.node);
    ok = tensor != nullptr && shape->Matches(tensor->shape());
    want = "a tensor of the pattern's shape";
  }
  if (!ok) {
    return Fail(id, e,
                [&] { return fmt::format("type is {}, expected {}", TypeToString(t), want); });
  }
  return Visit(pattern_->children(id)[0], e, idx);
}

bool Matcher::VisitWhere(uint32_t id, const Expr* e, uint32_t idx) {
  if (!Visit(pattern_->children(id)[0], e, idx)) return false;
  const auto* pat = Cast<WherePattern>(pattern_->node(id).node);
  CaptureResolver resolve = [&](std::string_view name) -> const Expr* {
    return name.empty() ? e : Capture(name);
  };
  std::string why;
  if (EvaluatePredicate(pat->predicate(), resolve, explain_ ? &why : nullptr) == Truth::kTrue) {
    return true;
  }
  return Fail(id, e, [&] { return "where clause: " + why; });
}

const IndexedGraph* Matcher::GraphFor(const Expr* e) {
  if (graph_ != nullptr && graph_->IndexOf(e) != IndexedGraph::kNone) return graph_;
  if (own_graph_ == nullptr || own_graph_->node(own_graph_->root()) != e) {
    own_graph_ = std::make_unique<IndexedGraph>(e);
  }
  return own_graph_.get();
}

bool Matcher::VisitDominator(uint32_t id, const Expr* e, uint32_t idx) {
  auto kids = pattern_->children(id);  // parent, path, child
  if (!Visit(kids[2], e, idx)) return false;
  const IndexedGraph* g = GraphFor(e);
  const IndexedGraph* saved = graph_;
  graph_ = g;
  uint32_t start = g->IndexOf(e);
  bool ok = MatchesPath(kids[0], kids[1], start);
  memoize_ = true;
  ok = ok && DominatesParent(kids[0], start);
  graph_ = saved;
  if (ok) return true;
  return Fail(id, e, [&] {
    return "no single node matching the dominator's parent is reached from here through nodes "
           "matching its path";
  });
}

// TVM's MatchesPath, iteratively: every input of `start` but a call's callee
// must match `parent` or match `path` and, in turn, satisfy MatchesPath; a
// node without such inputs (a variable, a constant) fails, as in TVM v0.16,
// so a path never runs into a graph input. `parent` is memoized (it binds
// one node); `path` is not. Nodes already verified are not re-walked: once
// `parent` is bound their verdict cannot change.
bool Matcher::MatchesPath(uint32_t parent, uint32_t path, uint32_t start) {
  struct Frame {
    uint32_t node;
    uint32_t next;
    uint32_t counted;
  };
  std::vector<Frame> stack = {{start, 0, 0}};
  absl::flat_hash_set<uint32_t> verified;
  while (!stack.empty()) {
    Frame& f = stack.back();
    auto inputs = graph_->inputs(f.node);
    if (f.next < inputs.size()) {
      uint32_t in = inputs[f.next++];
      const Expr* node = graph_->node(f.node);
      const Expr* input = graph_->node(in);
      if (const auto* call = DynCast<Call>(node); call != nullptr && input == call->callee()) {
        continue;
      }
      ++f.counted;
      memoize_ = true;
      if (Visit(parent, input)) continue;
      memoize_ = false;
      if (!Visit(path, input)) return false;
      if (!verified.contains(in)) stack.push_back({in, 0, 0});
      continue;
    }
    if (f.counted == 0) return false;
    verified.insert(f.node);
    stack.pop_back();
  }
  return true;
}

bool Matcher::DominatesParent(uint32_t parent, uint32_t start) {
  if (const Expr* p = bound_[parent]; p != nullptr) {
    uint32_t index = graph_->IndexOf(p);
    return index != IndexedGraph::kNone && graph_->PostDominates(start, index);
  }
  // Not reached after a successful MatchesPath (which binds the parent), but
  // kept faithful to TVM: search the post-dominated subtree.
  std::vector<uint32_t> stack = {start};
  while (!stack.empty()) {
    uint32_t n = stack.back();
    stack.pop_back();
    for (uint32_t child : graph_->PostDominated(n)) {
      if (Visit(parent, graph_->node(child))) return true;
      stack.push_back(child);
    }
  }
  return false;
}

bool MatchPattern(const Pattern& pattern, const Expr* expr) {
  auto compiled = CompilePattern(pattern);
  if (!compiled.ok()) return false;
  Matcher matcher(*compiled, nullptr);
  return matcher.Match(expr);
}

}  // namespace carve
