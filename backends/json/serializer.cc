#include "backends/json/serializer.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "backends/json/attr_codec.h"
#include "fmt/format.h"
#include "ir/visit.h"
#include "support/diagnostics.h"
#include "support/status_macros.h"

namespace carve {
namespace {

using Entries = std::vector<JsonEntry>;

// The function literal called by `call` when it is a composite, else null.
const Function* CompositeCallee(const Call* call) {
  const Function* fn = DynCast<Function>(call->callee());
  return fn != nullptr && fn->HasAttr("Composite") ? fn : nullptr;
}

absl::Status Unsupported(const Expr* e, std::string_view what) {
  return SpanError(e->span(),
                   fmt::format("the JSON graph format cannot express {} in an offloaded function",
                               what),
                   absl::StatusCode::kUnimplemented);
}

// Appends one shape and dtype per tensor of `type` (a tensor or a tuple of
// tensors).
absl::Status SetOutputs(const Expr* e, const Type* type, JsonNode& node) {
  if (type == nullptr) {
    return SpanError(e->span(), "the offloaded function is not typed",
                     absl::StatusCode::kFailedPrecondition);
  }
  std::vector<const Type*> fields;
  if (const TupleType* tuple = DynCast<TupleType>(type)) {
    fields.assign(tuple->fields().begin(), tuple->fields().end());
  } else {
    fields.push_back(type);
  }
  for (const Type* field : fields) {
    const TensorType* t = DynCast<TensorType>(field);
    if (t == nullptr) {
      return SpanError(e->span(), fmt::format("the JSON graph holds tensors only, got {}",
                                              TypeToString(field)),
                       absl::StatusCode::kUnimplemented);
    }
    std::vector<int64_t> dims;
    for (const Dim& d : t->shape()) dims.push_back(d.is_any() ? -1 : d.value);
    node.shapes.push_back(std::move(dims));
    node.dtypes.push_back(t->dtype());
  }
  node.num_outputs = static_cast<uint32_t>(fields.size());
  return absl::OkStatus();
}

// True for the leaves of a composite body: parameters and constants.
bool IsLeaf(const Expr* e) { return Isa<Var>(e) || Isa<Constant>(e); }

// The composite body as one entry per node in post-order (see the header):
// `nn.conv2d(i0,i1)`, `add(#0,i2)`, `Tuple(i0,i1)`, `TupleGetItem0(#2)`.
absl::StatusOr<std::vector<std::string>> DescribeBody(const Function* composite,
                                                      const std::vector<const Expr*>& leaves) {
  absl::flat_hash_map<const Expr*, std::string> ref;
  for (size_t i = 0; i < leaves.size(); ++i) ref[leaves[i]] = fmt::format("i{}", i);
  std::vector<std::string> entries;
  for (const Expr* e : PostOrder(composite->body())) {
    if (IsLeaf(e) || Isa<OpExpr>(e)) continue;
    std::string head;
    std::vector<const Expr*> args;
    if (const Call* c = DynCast<Call>(e); c != nullptr && c->op() != nullptr) {
      head = std::string(c->op()->name);
      args.assign(c->args().begin(), c->args().end());
    } else if (const Tuple* t = DynCast<Tuple>(e)) {
      head = "Tuple";
      args.assign(t->fields().begin(), t->fields().end());
    } else if (const TupleGetItem* g = DynCast<TupleGetItem>(e)) {
      head = fmt::format("TupleGetItem{}", g->index());
      args.push_back(g->tuple());
    } else {
      return Unsupported(e, "this node inside a composite");
    }
    std::string text = head + "(";
    for (size_t i = 0; i < args.size(); ++i) text += (i ? "," : "") + ref[args[i]];
    ref[e] = fmt::format("#{}", entries.size());
    entries.push_back(text + ")");
  }
  return entries;
}

class Serializer {
 public:
  explicit Serializer(std::string symbol) { out_.graph.symbol = std::move(symbol); }

  absl::StatusOr<SerializedFunction> Run(const Function* fn) {
    for (const Var* p : fn->params()) {
      JsonNode node;
      node.op = "input";
      node.name = std::string(p->name());
      const Type* type = p->checked_type() ? p->checked_type() : p->annotation();
      CARVE_ASSIGN_OR_RETURN(memo_[p], AddNode(p, type, std::move(node)));
    }
    CARVE_RETURN_IF_ERROR(Visit(fn->body()));
    out_.graph.heads = memo_[fn->body()];
    return std::move(out_);
  }

 private:
  // One step of the iterative traversal: `stage` 0 = enter, 1 = children
  // done, 2 = (let only) body done.
  struct Frame {
    const Expr* e;
    int stage;
  };

  absl::Status Visit(const Expr* root) {
    std::vector<Frame> stack{{root, 0}};
    while (!stack.empty()) {
      Frame f = stack.back();
      stack.pop_back();
      if (f.stage == 0 && memo_.contains(f.e)) continue;
      CARVE_RETURN_IF_ERROR(Step(f, stack));
    }
    return absl::OkStatus();
  }

  absl::Status Step(const Frame& f, std::vector<Frame>& stack) {
    const Expr* e = f.e;
    switch (e->kind()) {
      case ExprKind::kVar:
        return SpanError(e->span(), fmt::format("unbound variable %{}", Cast<Var>(e)->name()),
                         absl::StatusCode::kFailedPrecondition);
      case ExprKind::kConstant: return VisitConstant(Cast<Constant>(e)).status();
      case ExprKind::kCall: return StepCall(f, stack);
      case ExprKind::kTuple: return StepTuple(f, stack);
      case ExprKind::kTupleGetItem: return StepGetItem(f, stack);
      case ExprKind::kLet: return StepLet(f, stack);
      case ExprKind::kIf: return Unsupported(e, "an if");
      case ExprKind::kFunction: return Unsupported(e, "a function value");
      case ExprKind::kGlobalVar: return Unsupported(e, "a global function value");
      case ExprKind::kOp: return Unsupported(e, "an operator value");
      case ExprKind::kRefCreate:
      case ExprKind::kRefRead:
      case ExprKind::kRefWrite: return Unsupported(e, "a reference");
      case ExprKind::kConstructor:
      case ExprKind::kMatch: return Unsupported(e, "an algebraic data type");
    }
    return absl::InternalError("unknown expression kind");
  }

  // Pushes the exit frame of `e` and then its children (in reverse, so they
  // are visited left to right).
  static void Descend(const Expr* e, std::span<const Expr* const> children,
                      std::vector<Frame>& stack) {
    stack.push_back({e, 1});
    for (size_t i = children.size(); i-- > 0;) stack.push_back({children[i], 0});
  }

  absl::Status StepCall(const Frame& f, std::vector<Frame>& stack) {
    const Call* call = Cast<Call>(f.e);
    if (f.stage == 0) {
      if (call->op() == nullptr && CompositeCallee(call) == nullptr) {
        return Unsupported(call, "a call of a global, a local or a non-composite function");
      }
      Descend(call, call->args(), stack);
      return absl::OkStatus();
    }
    JsonNode node;
    node.op = "kernel";
    if (const Function* composite = CompositeCallee(call)) {
      CARVE_RETURN_IF_ERROR(DescribeComposite(composite, call, node));
    } else {
      for (const Expr* arg : call->args()) Append(node.inputs, memo_[arg]);
      node.name = std::string(call->op()->name);
      EncodeAttrs(call->attrs(), "", node.attrs);
    }
    CARVE_ASSIGN_OR_RETURN(memo_[call], AddNode(call, call->checked_type(), std::move(node)));
    return absl::OkStatus();
  }

  absl::Status DescribeComposite(const Function* composite, const Call* call, JsonNode& node) {
    node.name = std::string(composite->GetStringAttr("Composite"));
    node.attrs["PartitionedFromPattern"] = {
        std::string(composite->GetStringAttr("PartitionedFromPattern"))};
    const Call* anchor = CompositeAnchor(composite);
    if (anchor != nullptr) EncodeAttrs(anchor->attrs(), "", node.attrs);
    absl::flat_hash_map<const OpInfo*, int> seen;
    for (const Expr* e : PostOrder(composite->body())) {
      const Call* c = DynCast<Call>(e);
      if (c != nullptr && c != anchor && c->op() != nullptr) {
        EncodeAttrs(c->attrs(), CompositeAttrPrefix(c->op()->name, seen[c->op()]++), node.attrs);
      }
    }
    absl::flat_hash_map<const Var*, size_t> param_index;
    for (size_t i = 0; i < composite->params().size(); ++i) {
      param_index[composite->params()[i]] = i;
    }
    std::vector<const Expr*> leaves = CompositeLeaves(composite);
    for (const Expr* leaf : leaves) {
      if (const Constant* c = DynCast<Constant>(leaf)) {
        CARVE_ASSIGN_OR_RETURN(Entries entries, VisitConstant(c));
        Append(node.inputs, entries);
      } else if (auto it = param_index.find(Cast<Var>(leaf)); it != param_index.end()) {
        Append(node.inputs, memo_[call->args()[it->second]]);
      } else {
        return SpanError(leaf->span(), "a composite body reads a variable it does not bind",
                         absl::StatusCode::kFailedPrecondition);
      }
    }
    CARVE_ASSIGN_OR_RETURN(node.attrs["body"], DescribeBody(composite, leaves));
    return absl::OkStatus();
  }

  absl::Status StepTuple(const Frame& f, std::vector<Frame>& stack) {
    const Tuple* tuple = Cast<Tuple>(f.e);
    if (f.stage == 0) {
      Descend(tuple, tuple->fields(), stack);
      return absl::OkStatus();
    }
    Entries entries;
    for (const Expr* field : tuple->fields()) Append(entries, memo_[field]);
    memo_[tuple] = std::move(entries);
    return absl::OkStatus();
  }

  absl::Status StepGetItem(const Frame& f, std::vector<Frame>& stack) {
    const TupleGetItem* item = Cast<TupleGetItem>(f.e);
    if (f.stage == 0) {
      const Expr* tuple = item->tuple();
      Descend(item, std::span<const Expr* const>(&tuple, 1), stack);
      return absl::OkStatus();
    }
    const Entries& tuple = memo_[item->tuple()];
    if (item->index() < 0 || static_cast<size_t>(item->index()) >= tuple.size()) {
      return SpanError(item->span(), fmt::format("projection .{} of a value with {} outputs",
                                                 item->index(), tuple.size()));
    }
    memo_[item] = {tuple[item->index()]};
    return absl::OkStatus();
  }

  // Let: the value, then bind the variable, then the body.
  absl::Status StepLet(const Frame& f, std::vector<Frame>& stack) {
    const Let* let = Cast<Let>(f.e);
    if (f.stage == 0) {
      const Expr* value = let->value();
      Descend(let, std::span<const Expr* const>(&value, 1), stack);
    } else if (f.stage == 1) {
      memo_[let->var()] = memo_[let->value()];
      stack.push_back({let, 2});
      stack.push_back({let->body(), 0});
    } else {
      memo_[let] = memo_[let->body()];
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Entries> VisitConstant(const Constant* c) {
    if (auto it = memo_.find(c); it != memo_.end()) return it->second;
    JsonNode node;
    node.op = "const";
    node.name = fmt::format("{}_const_{}", out_.graph.symbol, out_.constants.size());
    out_.constants.emplace_back(node.name, c->data());
    const Type* type = c->checked_type();
    if (type == nullptr) {
      std::vector<Dim> dims;
      for (int64_t d : c->data().shape()) dims.push_back(Dim{d, false});
      type = TensorTy(c->data().dtype(), dims);
    }
    CARVE_ASSIGN_OR_RETURN(memo_[c], AddNode(c, type, std::move(node)));
    return memo_[c];
  }

  absl::StatusOr<Entries> AddNode(const Expr* e, const Type* type, JsonNode node) {
    CARVE_RETURN_IF_ERROR(SetOutputs(e, type, node));
    uint32_t nid = static_cast<uint32_t>(out_.graph.nodes.size());
    Entries entries;
    for (uint32_t i = 0; i < node.num_outputs; ++i) entries.push_back({nid, i, 0});
    out_.graph.nodes.push_back(std::move(node));
    out_.sources.push_back(e);
    return entries;
  }

  static void Append(Entries& to, const Entries& from) { to.insert(to.end(), from.begin(), from.end()); }

  SerializedFunction out_;
  absl::flat_hash_map<const Expr*, Entries> memo_;
};

// Labels of non-op nodes in PartitionedFromPattern (patterns.md section 1).
size_t NonOpLabelLength(std::string_view rest) {
  for (std::string_view fixed : {"Tuple_", "Call_", "Let_", "If_", "Function_", "Match_"}) {
    if (rest.starts_with(fixed)) return fixed.size();
  }
  constexpr std::string_view kGetItem = "TupleGetItem";
  if (!rest.starts_with(kGetItem)) return 0;
  size_t i = kGetItem.size();
  while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') ++i;
  return i < rest.size() && rest[i] == '_' ? i + 1 : 0;
}

}  // namespace

std::vector<const Expr*> CompositeLeaves(const Function* composite) {
  std::vector<const Expr*> leaves;
  absl::flat_hash_set<const Expr*> done;
  std::vector<std::pair<const Expr*, bool>> stack{{composite->body(), false}};
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    stack.pop_back();
    if (done.contains(e)) continue;
    if (IsLeaf(e) || expanded) {
      done.insert(e);
      if (IsLeaf(e)) leaves.push_back(e);
      continue;
    }
    stack.push_back({e, true});
    std::vector<const Expr*> computed, plain;
    ForEachChild(e, [&](const Expr* c) {
      if (Isa<OpExpr>(c)) return;
      (IsLeaf(c) ? plain : computed).push_back(c);
    });
    // Pushed in reverse so that computed children, then leaves, pop in order.
    for (size_t i = plain.size(); i-- > 0;) stack.push_back({plain[i], false});
    for (size_t i = computed.size(); i-- > 0;) stack.push_back({computed[i], false});
  }
  return leaves;
}

absl::StatusOr<SerializedFunction> SerializeFunction(const Function* fn, std::string symbol) {
  return Serializer(std::move(symbol)).Run(fn);
}

std::string ExternalSymbol(const Function* fn, std::string_view fallback) {
  std::string_view symbol = fn->GetStringAttr("global_symbol");
  return std::string(symbol.empty() ? fallback : symbol);
}

const Call* CompositeAnchor(const Function* composite) {
  const Call* last = nullptr;
  for (const Expr* e : PostOrder(composite->body())) {
    const Call* call = DynCast<Call>(e);
    if (call == nullptr || call->op() == nullptr) continue;
    if (call->op()->pattern > OpPattern::kInjective) return call;
    last = call;
  }
  return last;
}

std::string CompositeAttrPrefix(std::string_view op, int occurrence) {
  return occurrence == 0 ? fmt::format("{}.", op) : fmt::format("{}#{}.", op, occurrence + 1);
}

absl::StatusOr<std::vector<std::string>> SplitPatternLabel(std::string_view label) {
  std::vector<std::string> ops;
  size_t pos = 0;
  while (pos < label.size()) {
    std::string_view rest = label.substr(pos);
    if (size_t n = NonOpLabelLength(rest)) {
      ops.emplace_back(rest.substr(0, n - 1));
      pos += n;
      continue;
    }
    size_t best = 0;
    for (const OpInfo* op : AllOps()) {
      size_t n = op->name.size();
      if (n > best && rest.size() > n && rest.starts_with(op->name) && rest[n] == '_') best = n;
    }
    if (best == 0) {
      return absl::InvalidArgumentError(
          fmt::format("PartitionedFromPattern '{}': no operator at '{}'", label, rest));
    }
    ops.emplace_back(rest.substr(0, best));
    pos += best + 1;
  }
  return ops;
}

}  // namespace carve
