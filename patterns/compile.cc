#include "patterns/compile.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "patterns/builders.h"
#include "patterns/predicate.h"
#include "support/status_macros.h"

namespace carve {

RootFilter RootFilter::Any() {
  RootFilter f;
  f.kinds_ = ~0u;
  return f;
}

bool RootFilter::admits_everything() const { return kinds_ == ~0u; }

bool RootFilter::Admits(const Expr* e) const {
  return Admits(e->kind(), e->kind() == ExprKind::kCall ? Cast<Call>(e)->op() : nullptr);
}

bool RootFilter::Admits(ExprKind kind, const OpInfo* call_op) const {
  if (HasKind(kind)) return true;
  return call_op != nullptr && std::find(ops_.begin(), ops_.end(), call_op) != ops_.end();
}

void RootFilter::AddOp(const OpInfo* op) {
  if (HasKind(ExprKind::kCall) || std::find(ops_.begin(), ops_.end(), op) != ops_.end()) return;
  // A long alternation of ops admits any call instead: the filter is a
  // necessary condition, and this keeps building every node's filter
  // linear in the pattern's size.
  if (ops_.size() == kMaxOps) {
    AddKind(ExprKind::kCall);
    ops_.clear();
    return;
  }
  ops_.push_back(op);
}

void RootFilter::Union(const RootFilter& other) {
  kinds_ |= other.kinds_;
  for (const OpInfo* op : other.ops_) AddOp(op);
}

std::optional<uint32_t> CompiledPattern::IdOf(const PatternNode* node) const {
  auto it = ids_.find(node);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::optional<uint32_t> CompiledPattern::CaptureId(std::string_view name) const {
  for (const auto& [n, id] : captures_) {
    if (n == name) return id;
  }
  return std::nullopt;
}

// Builds a CompiledPattern: post-order numbering, validation, generated
// re-associations, root filter.
class PatternCompiler {
 public:
  explicit PatternCompiler(const Pattern& pattern) : out_(std::make_shared<CompiledPattern>()) {
    out_->pattern_ = pattern;
  }

  absl::StatusOr<std::shared_ptr<const CompiledPattern>> Run() {
    CARVE_RETURN_IF_ERROR(out_->pattern_.status());
    CARVE_RETURN_IF_ERROR(Number());
    CARVE_RETURN_IF_ERROR(CollectCaptures());
    CARVE_RETURN_IF_ERROR(CheckWhereClauses());
    out_->num_source_ = out_->nodes_.size();
    Reassociate();
    ComputeFilters();
    return std::shared_ptr<const CompiledPattern>(std::move(out_));
  }

 private:
  // The children a node is numbered through (a recursive reference: its
  // target).
  static std::vector<Pattern> SourceChildren(const Pattern& p) {
    if (const auto* rec = DynCast<RecursivePattern>(p.get())) {
      Pattern target = rec->target();
      return target ? std::vector<Pattern>{target} : std::vector<Pattern>{};
    }
    return {p->children().begin(), p->children().end()};
  }

  // Post-order numbering with an explicit stack (patterns may be recursive).
  absl::Status Number() {
    struct Frame {
      Pattern p;
      std::vector<Pattern> kids;
      size_t next = 0;
    };
    std::vector<Frame> stack;
    absl::flat_hash_set<const PatternNode*> entered;
    stack.push_back({out_->pattern_, SourceChildren(out_->pattern_)});
    entered.insert(out_->pattern_.get());
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.kids.size()) {
        Pattern kid = f.kids[f.next++];
        if (entered.insert(kid.get()).second) stack.push_back({kid, SourceChildren(kid)});
        continue;
      }
      const auto* rec = DynCast<RecursivePattern>(f.p.get());
      if (rec != nullptr && !rec->target()) {
        return absl::InvalidArgumentError(fmt::format(
            "recursive pattern '{}' has no target (its root was released)", rec->name()));
      }
      Add(f.p);
      stack.pop_back();
    }
    out_->root_ = out_->ids_.at(out_->pattern_.get());
    // Children ids, now that every node has one.
    for (uint32_t id = 0; id < out_->nodes_.size(); ++id) {
      out_->nodes_[id].children_begin = static_cast<uint32_t>(out_->child_ids_.size());
      for (const Pattern& kid : SourceChildren(handles_[id])) {
        out_->child_ids_.push_back(out_->ids_.at(kid.get()));
      }
      out_->nodes_[id].num_children =
          static_cast<uint32_t>(out_->child_ids_.size()) - out_->nodes_[id].children_begin;
    }
    return absl::OkStatus();
  }

  static bool ReadsTypes(const PatternNode* p) {
    switch (p->kind()) {
      case PatternKind::kType:
      case PatternKind::kDType:
      case PatternKind::kShape:
        return true;
      case PatternKind::kWhere: {
        std::vector<const Predicate*> stack = {&Cast<WherePattern>(p)->predicate()};
        while (!stack.empty()) {
          const Predicate* q = stack.back();
          stack.pop_back();
          for (const PredicateTerm& t : q->terms()) {
            if (t.kind != PredicateTerm::Kind::kLiteral && t.kind != PredicateTerm::Kind::kAttr) {
              return true;
            }
          }
          for (const auto& o : q->operands()) stack.push_back(o.get());
        }
        return false;
      }
      default:
        return false;
    }
  }

  uint32_t Add(const Pattern& p) {
    uint32_t id = static_cast<uint32_t>(out_->nodes_.size());
    CompiledNode n;
    n.node = p.get();
    n.kind = p->kind();
    out_->nodes_.push_back(n);
    out_->ids_.emplace(p.get(), id);
    handles_.push_back(p);
    if (n.kind == PatternKind::kDominator) out_->has_dominator_ = true;
    if (ReadsTypes(p.get())) out_->needs_types_ = true;
    return id;
  }

  absl::Status CollectCaptures() {
    for (uint32_t id = 0; id < out_->nodes_.size(); ++id) {
      const auto* cap = DynCast<CapturePattern>(out_->nodes_[id].node);
      if (cap == nullptr) continue;
      std::optional<uint32_t> prev = out_->CaptureId(cap->name());
      if (prev) {
        return absl::InvalidArgumentError(
            fmt::format("capture ?{} names two different sub-patterns", cap->name()));
      }
      out_->captures_.emplace_back(cap->name(), id);
    }
    return absl::OkStatus();
  }

  // Capture names bound inside the subtree of `id`.
  absl::flat_hash_set<std::string> CapturesUnder(uint32_t id) const {
    absl::flat_hash_set<std::string> names;
    absl::flat_hash_set<uint32_t> seen = {id};
    std::vector<uint32_t> stack = {id};
    while (!stack.empty()) {
      uint32_t n = stack.back();
      stack.pop_back();
      if (const auto* cap = DynCast<CapturePattern>(out_->nodes_[n].node))
        names.insert(cap->name());
      for (uint32_t c : out_->children(n)) {
        if (seen.insert(c).second) stack.push_back(c);
      }
    }
    return names;
  }

  absl::Status CheckWhereClauses() {
    for (uint32_t id = 0; id < out_->nodes_.size(); ++id) {
      const auto* where = DynCast<WherePattern>(out_->nodes_[id].node);
      if (where == nullptr) continue;
      absl::flat_hash_set<std::string> bound = CapturesUnder(out_->children(id)[0]);
      for (const std::string& name : where->predicate().Captures()) {
        if (!name.empty() && !bound.contains(name)) {
          return absl::InvalidArgumentError(fmt::format(
              "where clause uses ?{}, which the pattern it applies to does not bind", name));
        }
      }
    }
    return absl::OkStatus();
  }

  // --- Re-association (why: CompilePattern in compile.h) ---

  const CallPattern* BinaryCall(uint32_t id, const OpInfo* op) const {
    const auto* call = DynCast<CallPattern>(out_->nodes_[id].node);
    if (call == nullptr || call->any_args() || call->args().size() != 2 || call->op() != op) {
      return nullptr;
    }
    return call;
  }

  // A generated call node `callee(args...)`, with its own alternatives when
  // `with_alternatives`.
  uint32_t NewCall(uint32_t callee, std::vector<uint32_t> args, bool with_alternatives) {
    std::vector<Pattern> arg_patterns;
    for (uint32_t a : args) arg_patterns.push_back(handles_[a]);
    Pattern p = IsCall(handles_[callee], std::move(arg_patterns));
    out_->generated_.push_back(p);
    uint32_t id = static_cast<uint32_t>(out_->nodes_.size());
    CompiledNode n;
    n.node = p.get();
    n.kind = PatternKind::kCall;
    n.children_begin = static_cast<uint32_t>(out_->child_ids_.size());
    n.num_children = static_cast<uint32_t>(args.size() + 1);
    out_->child_ids_.push_back(callee);
    for (uint32_t a : args) out_->child_ids_.push_back(a);
    out_->nodes_.push_back(n);
    handles_.push_back(p);
    if (with_alternatives) AddAlternatives(id);
    return id;
  }

  void AddAlternatives(uint32_t id) {
    // Bound the work on pathological nestings; each level uses strictly
    // smaller sub-patterns, so this only guards against blow-up.
    if (out_->nodes_.size() > out_->num_source_ + 4096) return;
    std::vector<uint32_t> alts;
    std::vector<uint32_t> kids(out_->children(id).begin(), out_->children(id).end());
    if (BinaryCall(id, divide_) != nullptr && BinaryCall(kids[1], multiply_) != nullptr) {
      // divide(multiply(a, b), c) -> multiply(b, divide(a, c)), multiply(a, divide(b, c))
      std::vector<uint32_t> mul(out_->children(kids[1]).begin(), out_->children(kids[1]).end());
      for (int i = 0; i < 2; ++i) {
        uint32_t div = NewCall(kids[0], {mul[1 + i], kids[2]}, true);
        alts.push_back(NewCall(mul[0], {mul[1 + (i + 1) % 2], div}, false));
      }
    } else if (BinaryCall(id, multiply_) != nullptr) {
      // multiply(x, divide(a, c)) -> divide(multiply(a, x), c), first divide arg only.
      for (int i = 0; i < 2; ++i) {
        if (BinaryCall(kids[1 + i], divide_) == nullptr) continue;
        std::vector<uint32_t> d(out_->children(kids[1 + i]).begin(),
                                out_->children(kids[1 + i]).end());
        uint32_t mul = NewCall(kids[0], {d[1], kids[1 + (i + 1) % 2]}, true);
        alts.push_back(NewCall(d[0], {mul, d[2]}, false));
        break;
      }
    }
    if (alts.empty()) return;
    out_->nodes_[id].alternatives_begin = static_cast<uint32_t>(out_->child_ids_.size());
    out_->nodes_[id].num_alternatives = static_cast<uint32_t>(alts.size());
    out_->child_ids_.insert(out_->child_ids_.end(), alts.begin(), alts.end());
  }

  void Reassociate() {
    multiply_ = FindOp("multiply");
    divide_ = FindOp("divide");
    if (multiply_ == nullptr || divide_ == nullptr) return;
    for (uint32_t id = 0; id < out_->num_source_; ++id) {
      if (out_->nodes_[id].kind == PatternKind::kCall) AddAlternatives(id);
    }
  }

  // --- Root filter ---

  RootFilter CalleeOps(uint32_t callee, absl::flat_hash_set<uint32_t> seen) const {
    RootFilter f;
    const PatternNode* n = out_->nodes_[callee].node;
    if (const auto* op = DynCast<OperatorPattern>(n)) {
      f.AddOp(op->op());
      return f;
    }
    if (n->kind() == PatternKind::kAlt && seen.insert(callee).second) {
      for (uint32_t c : out_->children(callee)) f.Union(CalleeOps(c, seen));
      return f;
    }
    if ((n->kind() == PatternKind::kAttr || n->kind() == PatternKind::kCapture) &&
        seen.insert(callee).second) {
      return CalleeOps(out_->children(callee)[0], seen);
    }
    f.AddKind(ExprKind::kCall);
    return f;
  }

  // Every node's filter, each computed once, so that the matcher's
  // prefilter (group.cc) can reject a whole alternation of calls of other
  // ops in one test. A node met again while its own filter is being
  // computed (a recursive pattern) admits everything.
  void ComputeFilters() {
    out_->filters_.resize(out_->nodes_.size());
    filter_state_.assign(out_->nodes_.size(), kNotComputed);
    for (uint32_t id = 0; id < out_->nodes_.size(); ++id) Filter(id);
  }

  const RootFilter& Filter(uint32_t id) {
    static const RootFilter* const kAny = new RootFilter(RootFilter::Any());
    if (filter_state_[id] == kComputing) return *kAny;
    if (filter_state_[id] == kNotComputed) {
      filter_state_[id] = kComputing;
      out_->filters_[id] = FilterOf(id);
      filter_state_[id] = kComputed;
    }
    return out_->filters_[id];
  }

  RootFilter FilterOf(uint32_t id) {
    const CompiledNode& n = out_->nodes_[id];
    RootFilter f;
    switch (n.kind) {
      case PatternKind::kWildcard:
      case PatternKind::kInvalid:
        return RootFilter::Any();
      case PatternKind::kOp:
        f.AddKind(ExprKind::kOp);
        break;
      case PatternKind::kExpr:
        f.AddKind(Cast<ExprPattern>(n.node)->expr()->kind());
        break;
      case PatternKind::kVar:
        f.AddKind(ExprKind::kVar);
        break;
      case PatternKind::kConstant:
        f.AddKind(ExprKind::kConstant);
        break;
      case PatternKind::kTuple:
        f.AddKind(ExprKind::kTuple);
        break;
      case PatternKind::kTupleGetItem:
        f.AddKind(ExprKind::kTupleGetItem);
        break;
      case PatternKind::kIf:
        f.AddKind(ExprKind::kIf);
        break;
      case PatternKind::kLet:
        f.AddKind(ExprKind::kLet);
        break;
      case PatternKind::kFunction:
        f.AddKind(ExprKind::kFunction);
        break;
      case PatternKind::kCall:
        f = CalleeOps(out_->children(id)[0], {});
        for (uint32_t alt : out_->alternatives(id)) f.Union(Filter(alt));
        break;
      case PatternKind::kAlt:
        for (uint32_t c : out_->children(id)) f.Union(Filter(c));
        break;
      case PatternKind::kDominator:
        return Filter(out_->children(id)[2]);
      case PatternKind::kAttr:
      case PatternKind::kType:
      case PatternKind::kDType:
      case PatternKind::kShape:
      case PatternKind::kCapture:
      case PatternKind::kWhere:
      case PatternKind::kRecursive:
        return Filter(out_->children(id)[0]);
    }
    return f;
  }

  std::shared_ptr<CompiledPattern> out_;
  std::vector<Pattern> handles_;  // by id
  enum FilterState : uint8_t { kNotComputed, kComputing, kComputed };
  std::vector<FilterState> filter_state_;  // by id, while ComputeFilters runs
  const OpInfo* multiply_ = nullptr;
  const OpInfo* divide_ = nullptr;
};

absl::StatusOr<std::shared_ptr<const CompiledPattern>> CompilePattern(const Pattern& pattern) {
  return PatternCompiler(pattern).Run();
}

absl::StatusOr<PatternSet> PatternSet::Build(
    const std::vector<std::pair<std::string, Pattern>>& patterns) {
  PatternSet set;
  for (const auto& [name, pattern] : patterns) {
    auto compiled = CompilePattern(pattern);
    if (!compiled.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("pattern '{}': {}", name, std::string(compiled.status().message())));
    }
    uint32_t index = static_cast<uint32_t>(set.entries_.size());
    const RootFilter& f = (*compiled)->root_filter();
    for (int k = 0; k <= static_cast<int>(ExprKind::kFunction); ++k) {
      if (f.HasKind(static_cast<ExprKind>(k))) set.by_kind_[k].push_back(index);
    }
    if (!f.HasKind(ExprKind::kCall)) {
      for (const OpInfo* op : f.ops()) set.by_op_[op].push_back(index);
    }
    set.entries_.push_back({name, *std::move(compiled)});
  }
  return set;
}

std::optional<size_t> PatternSet::Find(std::string_view name) const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].name == name) return i;
  }
  return std::nullopt;
}

void PatternSet::Candidates(const Expr* e, std::vector<uint32_t>* out) const {
  const std::vector<uint32_t>& by_kind = by_kind_[static_cast<int>(e->kind())];
  const std::vector<uint32_t>* by_op = nullptr;
  if (const auto* call = DynCast<Call>(e); call != nullptr && call->op() != nullptr) {
    auto it = by_op_.find(call->op());
    if (it != by_op_.end()) by_op = &it->second;
  }
  if (by_op == nullptr) {
    out->insert(out->end(), by_kind.begin(), by_kind.end());
    return;
  }
  // Both lists are sorted by priority; merge them.
  size_t start = out->size();
  out->resize(start + by_kind.size() + by_op->size());
  std::merge(by_kind.begin(), by_kind.end(), by_op->begin(), by_op->end(), out->begin() + start);
}

}  // namespace carve
