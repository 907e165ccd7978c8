#include "patterns/partition.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ir/type.h"
#include "patterns/compile_cache.h"
#include "patterns/graph.h"
#include "patterns/group.h"
#include "patterns/rebuild.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// The parameter names `FunctionVar_<g>_<k>` of composites, made once per
// group number: every entry of a composite table numbers its groups from 0,
// so a table's later entries reuse the earlier entries' names (one arena
// string per group number, no formatting) instead of copying them again.
class ParamNames {
 public:
  // Makes room for group numbers below `groups` at once (no growth copies
  // left behind on the heap).
  void Reserve(size_t groups) {
    if (groups > blocks_.size()) blocks_.resize(groups);
  }
  // FunctionVar_<group>_0 ... FunctionVar_<group>_<count - 1>. The span is
  // valid until the next call; the names live in `arena` (all calls must
  // pass the same one).
  std::span<const std::string_view> Get(int group, size_t count, Arena* arena) {
    auto g = static_cast<size_t>(group);
    if (g >= blocks_.size()) blocks_.resize(g + 1);
    Block& block = blocks_[g];
    if (block.count < count) {
      text_.clear();
      for (size_t k = 0; k < count; ++k) AppendName(group, k);
      block = {arena->CopyString(text_).data(), static_cast<uint32_t>(count)};
    }
    views_.clear();
    const char* p = block.text;
    for (size_t k = 0; k < count; ++k) {
      size_t length = kPrefix.size() + Digits(static_cast<size_t>(group)) + 1 + Digits(k);
      views_.emplace_back(p, length);
      p += length;
    }
    return views_;
  }

 private:
  static constexpr std::string_view kPrefix = "FunctionVar_";
  static size_t Digits(size_t v) {
    size_t n = 1;
    for (; v >= 10; v /= 10) ++n;
    return n;
  }
  // Without fmt's parsing: on the hot path of large partitions.
  void AppendName(int group, size_t k) {
    char digits[24];
    text_ += kPrefix;
    text_.append(digits, std::to_chars(digits, digits + sizeof(digits), group).ptr);
    text_ += '_';
    text_.append(digits, std::to_chars(digits, digits + sizeof(digits), k).ptr);
  }

  struct Block {
    const char* text = nullptr;  // the names, back to back
    uint32_t count = 0;
  };
  std::vector<Block> blocks_;  // by group number
  std::string text_;
  std::vector<std::string_view> views_;
};

// Builds group bodies: the group's nodes rebuilt over fresh parameters,
// their children found through graph edges (no hashing for calls, tuples
// and projections) and their new versions kept per group member (Enter).
class BodyBuilder {
 public:
  // Originals are read from `rebuilder` (GraphRebuilder::Original): a
  // group's body nodes are not processed before its root, and a body node
  // that stays in the graph, processed earlier, was rebuilt with the same
  // kind, attributes, span and type, which is all a body reads of it.
  BodyBuilder(const IndexedGraph& graph, const GraphRebuilder& rebuilder, IRBuilder& b,
              ParamNames& names)
      : graph_(graph), rebuilder_(rebuilder), b_(b), names_(names) {}

  // `args` are the call's arguments (group.inputs rebuilt). With
  // options.typed, and when every argument and the root have types, the
  // parameters take their argument's type (as annotation and checked type),
  // the function returns the root's type and has its function type.
  const Function* Build(const Group& group, const PartitionOptions& options,
                        std::span<const Expr* const> args) {
    bool typed = options.typed && Node(group.root)->checked_type() != nullptr;
    for (size_t k = 0; typed && k < args.size(); ++k) typed = args[k]->checked_type() != nullptr;
    params_.clear();
    param_types_.clear();
    Enter(group);
    std::span<const std::string_view> names =
        names_.Get(group.number, group.inputs.size(), b_.arena());
    for (size_t k = 0; k < group.inputs.size(); ++k) {
      const Type* t = typed ? args[k]->checked_type() : nullptr;
      const Var* p = b_.MakeVarWithStableName(names[k], t, Span{});
      if (typed) {
        p->set_checked_type(t);
        param_types_.push_back(t);
      }
      params_.push_back(p);
      out_[k] = p;
      changed_[k] = 1;
    }
    for (uint32_t n : group.nodes) Rebuild(n, group);
    const Expr* body = Out(group.root);
    const Type* ret = typed ? body->checked_type() : nullptr;
    const Function* fn = b_.MakeFunction(params_, body, ret, FunctionAttrs(group, options));
    if (typed) fn->set_checked_type(FunctionType(ret));
    return fn;
  }

 private:
  // A group's entries live in slots: its inputs' first, then its body
  // nodes' (every input of a body node is one of them). A small group finds
  // a node's slot by search, a large one through a table by node (filled
  // for each large group), so no array over the whole graph is touched for
  // the usual few-node groups.
  static constexpr size_t kSearchedMembers = 32;
  void Enter(const Group& group) {
    group_ = &group;
    size_t members = group.inputs.size() + group.nodes.size();
    out_.assign(members, nullptr);
    changed_.assign(members, 0);
    if (members <= kSearchedMembers) return;
    if (slot_by_node_.empty()) slot_by_node_.resize(graph_.size());
    uint32_t in = static_cast<uint32_t>(group.inputs.size());
    for (uint32_t j = 0; j < group.nodes.size(); ++j) slot_by_node_[group.nodes[j]] = in + j;
    for (uint32_t k = in; k-- > 0;) slot_by_node_[group.inputs[k]] = k;  // as the search finds
  }
  uint32_t SlotOf(uint32_t n) const {
    const Group& g = *group_;
    if (g.inputs.size() + g.nodes.size() > kSearchedMembers) return slot_by_node_[n];
    for (uint32_t k = 0; k < g.inputs.size(); ++k) {
      if (g.inputs[k] == n) return k;
    }
    for (uint32_t j = 0; j < g.nodes.size(); ++j) {
      if (g.nodes[j] == n) return static_cast<uint32_t>(g.inputs.size()) + j;
    }
    return IndexedGraph::kNone;  // not a member (callers ask about members only)
  }
  // A member's new version and whether it differs from the node.
  const Expr* Out(uint32_t n) const {
    uint32_t slot = SlotOf(n);
    return slot == IndexedGraph::kNone ? Node(n) : out_[slot];
  }
  bool Changed(uint32_t n) const {
    uint32_t slot = SlotOf(n);
    return slot != IndexedGraph::kNone && changed_[slot] != 0;
  }

  // The function type of the last group's signature is reused while
  // signatures repeat (FuncTy interns under a lock).
  const Type* FunctionType(const Type* ret) {
    if (last_func_type_ == nullptr || ret != last_ret_ || param_types_ != last_param_types_) {
      last_func_type_ = FuncTy(param_types_, ret);
      last_ret_ = ret;
      last_param_types_ = param_types_;
    }
    return last_func_type_;
  }

  void Rebuild(uint32_t n, const Group& group) {
    const Expr* e = Node(n);
    bool changed = false;
    for (uint32_t in : graph_.inputs(n)) changed |= Changed(in);
    if (Isa<Let>(e)) changed = true;  // its value is not an input: rebuilt by lookup below
    uint32_t slot = SlotOf(n);
    out_[slot] = e;
    changed_[slot] = 0;
    if (!changed) return;
    auto inputs = graph_.inputs(n);
    const Expr* r = nullptr;
    scratch_.clear();
    for (uint32_t in : inputs) scratch_.push_back(Out(in));
    if (const auto* call = DynCast<Call>(e); call && inputs.size() == call->args().size() + 1) {
      r = b_.MakeCall(scratch_[0], std::span<const Expr* const>(scratch_).subspan(1), call->attrs(),
                      call->span());
    } else if (const auto* t = DynCast<Tuple>(e); t && inputs.size() == t->fields().size()) {
      r = b_.MakeTuple(scratch_, e->span());
    } else if (const auto* g = DynCast<TupleGetItem>(e); g && inputs.size() == 1) {
      r = b_.MakeTupleGetItem(scratch_[0], g->index(), g->span());
    } else {
      r = RebuildNode(
          e,
          [&](const Expr* c) {
            uint32_t i = graph_.IndexOf(c);
            return i == IndexedGraph::kNone || !InGroup(i, group) ? c : Out(i);
          },
          b_);
    }
    r->set_checked_type(e->checked_type());
    out_[slot] = r;
    changed_[slot] = r != e;
  }

  // PartitionedFromPattern first, then the caller's attributes; interned
  // once per distinct label (a graph repeats a few labels many times,
  // often in a row: the last one is compared before hashing).
  const Attrs* FunctionAttrs(const Group& group, const PartitionOptions& options) {
    if (last_attrs_ != nullptr && group.label == last_label_) return last_attrs_;
    last_label_ = group.label;
    auto it = attrs_by_label_.find(group.label);
    if (it != attrs_by_label_.end()) return last_attrs_ = it->second;
    const Attrs* attrs =
        WithAttr(EmptyAttrs(), "PartitionedFromPattern", AttrValue::Str(group.label));
    for (const AttrEntry& a : options.attrs) attrs = WithAttr(attrs, a.key, a.value);
    attrs_by_label_.emplace(group.label, attrs);
    return last_attrs_ = attrs;
  }

  // Inputs and body nodes of `group` hold this group's entries.
  static bool InGroup(uint32_t i, const Group& group) {
    return std::find(group.inputs.begin(), group.inputs.end(), i) != group.inputs.end() ||
           std::find(group.nodes.begin(), group.nodes.end(), i) != group.nodes.end();
  }

  const Expr* Node(uint32_t n) const { return rebuilder_.Original(n); }

  const IndexedGraph& graph_;
  const GraphRebuilder& rebuilder_;
  IRBuilder& b_;
  ParamNames& names_;
  const Group* group_ = nullptr;
  std::vector<const Expr*> out_;        // by slot
  std::vector<uint8_t> changed_;        // by slot
  std::vector<uint32_t> slot_by_node_;  // large groups only
  std::vector<const Expr*> scratch_;
  std::vector<const Var*> params_;
  std::vector<const Type*> param_types_;
  const Type* last_func_type_ = nullptr;
  const Type* last_ret_ = nullptr;
  std::vector<const Type*> last_param_types_;
  absl::flat_hash_map<std::string_view, const Attrs*> attrs_by_label_;
  std::string_view last_label_;
  const Attrs* last_attrs_ = nullptr;
};

// How many calls of each op a graph holds, kept up to date across the
// entries of a composite table without rebuilding the graph, so that an
// entry whose root op is gone is skipped before any graph is built.
using OpCounts = absl::flat_hash_map<const OpInfo*, int64_t>;

OpCounts CountOps(const IndexedGraph& graph) {
  OpCounts counts;
  for (uint32_t i = 0; i < graph.size(); ++i) {
    if (graph.call_op(i) != nullptr) ++counts[graph.call_op(i)];
  }
  return counts;
}

// Which body nodes of `group` stay in the graph once it is partitioned
// (stays[k] for group.nodes[k]): an interior node stays (the group
// duplicates it) when a node outside the group uses it, or when an interior
// node that stays does. The root never stays (its call replaces it).
void FindStaying(const IndexedGraph& graph, const Group& group, std::vector<uint8_t>& stays) {
  // Body nodes are in post-order: consumers inside the group come later.
  stays.assign(group.nodes.size(), 0);
  for (size_t k = group.nodes.size(); k-- > 0;) {
    uint32_t n = group.nodes[k];
    if (n == group.root) continue;
    for (uint32_t out : graph.outputs(n)) {
      auto it = std::find(group.nodes.begin(), group.nodes.end(), out);
      if (it == group.nodes.end() || (out != group.root && stays[it - group.nodes.begin()])) {
        stays[k] = 1;
        break;
      }
    }
  }
}

// The calls a partitioned group takes out of the graph: its root and the
// body nodes that do not stay (FindStaying), as marked in `deferred`
// (MarkDeferred).
void RemoveGroupOps(const IndexedGraph& graph, const Group& group, OpCounts& counts,
                    std::span<const uint8_t> deferred) {
  for (uint32_t n : group.nodes) {
    const OpInfo* op = graph.call_op(n);
    if (op != nullptr && deferred[n]) --counts[op];
  }
}

// Marks (deferred[i] = 1) the nodes a partition need not rebuild unless
// their group is rejected: the group's root and the interior nodes that do
// not stay. When the group's call replaces its root, nothing in the new
// graph uses their rebuilt versions (the function's body is built from the
// graph's nodes), so rebuilding them in order would only allocate nodes
// nothing reaches: two to three calls per composite on a typical table.
void MarkDeferred(const IndexedGraph& graph, const PatternGrouper& grouper,
                  std::vector<uint8_t>& deferred, std::vector<uint8_t>& stays) {
  deferred.assign(graph.size(), 0);
  for (size_t g = 0; g < grouper.num_groups(); ++g) {
    const Group group = grouper.group(g);
    FindStaying(graph, group, stays);
    for (size_t k = 0; k < group.nodes.size(); ++k) {
      if (!stays[k]) deferred[group.nodes[k]] = 1;
    }
  }
}

// What a partition changed in its graph, for IndexedGraph::Derive.
struct GraphEdit {
  std::vector<const Expr*> current;                 // by old node: its new version
  std::vector<IndexedGraph::Replacement> replaced;  // by ascending old node
  std::vector<uint32_t> replaced_inputs;            // the composite calls' inputs (old nodes)

  // Empties the lists, keeping their memory for the next partition.
  void ClearReplacements() {
    replaced.clear();
    replaced_inputs.clear();
  }
};

// The rebuild reads nodes and inputs only: the outputs (but a let graph's,
// see ReleaseDerivedTables), any post-dominators and the grouper's node ->
// group table are freed while it allocates the new nodes, the pass's peak,
// and made again if a later pattern needs this graph.
void ReleaseBeforeRebuild(IndexedGraph& graph, PatternGrouper& grouper) {
  graph.ReleaseDerivedTables();
  grouper.ReleaseGroupOf();
}

// Counts one replaced group in `stats`.
void CountPartitioned(const PartitionOptions& options, const Function* fn, const Expr* call,
                      PartitionStats& stats) {
  ++stats.partitioned;
  if (options.typed && (fn->checked_type() == nullptr || call->checked_type() == nullptr)) {
    ++stats.untyped;
  }
}

// Records in `edit` that `group`'s root (node `root`) became a call of its
// function with the group's inputs as arguments.
void RecordReplacement(const Group& group, uint32_t root, GraphEdit& edit) {
  edit.replaced.push_back({root, static_cast<uint32_t>(edit.replaced_inputs.size())});
  edit.replaced_inputs.insert(edit.replaced_inputs.end(), group.inputs.begin(), group.inputs.end());
}

// The rewritten version of `root`, the graph's root. Every node reaches the
// root, so an unchanged root means no node changed: when the rebuilder took
// the graph's nodes (`took`) the graph gets them back and serves the next
// pattern; otherwise `edit` (when not null) receives the new version of
// every node.
const Expr* FinishRebuild(IndexedGraph& graph, const Expr* root, GraphRebuilder& rebuilder,
                          bool took, GraphEdit* edit) {
  const Expr* out = rebuilder.At(graph.root());
  std::vector<const Expr*> current = std::move(rebuilder).Release();
  if (took && out == root) {
    graph.RestoreNodes(std::move(current));
  } else if (edit != nullptr) {
    edit->current = std::move(current);
  }
  return out;
}

// Partitions in an existing graph (so that a table of patterns reuses one
// graph while nothing changes). `names` gives the composites' parameter
// names (shared across a table's entries). `counts` (optional) is updated
// for the calls the accepted groups remove; `edit` (optional) receives the
// changes when the expression changed.
const Expr* PartitionInGraph(const std::shared_ptr<const CompiledPattern>& pattern,
                             IndexedGraph& graph, Arena* arena, const PartitionOptions& options,
                             PartitionStats* stats, ParamNames& names, OpCounts* counts = nullptr,
                             GraphEdit* edit = nullptr) {
  const Expr* root = graph.node(graph.root());
  if (pattern->node(pattern->root()).kind == PatternKind::kFunction) return root;
  PatternGrouper grouper(pattern, graph);
  grouper.set_keep_bindings(false);
  grouper.Run();
  // Groups are read one at a time (PatternGrouper::group), not as records.
  size_t num_groups = grouper.num_groups();
  if (stats != nullptr) stats->groups = static_cast<int>(num_groups);
  if (num_groups == 0) return root;

  // Post-order rewrite: rebuild nodes whose children changed, replace
  // accepted group roots by calls of their functions. A group's deferred
  // nodes (MarkDeferred) are rebuilt only when its root is rejected.
  IRBuilder b(arena);
  // Groups are numbered in the order found: the last has the largest number.
  names.Reserve(static_cast<size_t>(grouper.group(num_groups - 1).number) + 1);
  std::vector<const Expr*> args;
  std::vector<uint8_t> stays, deferred;
  MarkDeferred(graph, grouper, deferred, stays);
  // When it can follow edges alone, the rebuilder keeps the current
  // versions in the graph's own node array (no second array of the graph's
  // size). Originals are then read from the rebuilder (Original) before
  // their node is processed.
  ReleaseBeforeRebuild(graph, grouper);
  const bool take = graph.RebuildsByEdges();
  GraphRebuilder rebuilder =
      take ? GraphRebuilder(graph, b, graph.TakeNodes()) : GraphRebuilder(graph, b);
  BodyBuilder bodies(graph, rebuilder, b, names);
  if (edit != nullptr) edit->ClearReplacements();
  // Groups were found consumers first: in descending root order, so the
  // next root met going forward is the last group not yet met.
  size_t next_group = num_groups;
  for (uint32_t i = 0; i < graph.size(); ++i) {
    if (!deferred[i]) {
      rebuilder.Rebuild(i);
      continue;
    }
    if (next_group == 0 || grouper.group(next_group - 1).root != i) continue;
    const Group group = grouper.group(--next_group);
    const Expr* pre = rebuilder.Original(i);
    if (options.check && !options.check(pre)) {
      // Rejected: the group's nodes are rebuilt as any others, in order.
      for (uint32_t n : group.nodes) {
        if (deferred[n]) rebuilder.Rebuild(n);
      }
      continue;
    }
    args.clear();
    for (uint32_t in : group.inputs) args.push_back(rebuilder.At(in));
    const Function* fn = bodies.Build(group, options, args);
    const Expr* call = b.MakeCall(fn, args);
    call->set_checked_type(pre->checked_type());
    rebuilder.Set(i, call);
    if (stats != nullptr) CountPartitioned(options, fn, call, *stats);
    if (counts != nullptr) RemoveGroupOps(graph, group, *counts, deferred);
    if (edit != nullptr) RecordReplacement(group, i, *edit);
  }
  return FinishRebuild(graph, root, rebuilder, take, edit);
}

// The ops every match of pattern node `id` calls: a call pattern with an op
// callee needs a call of that op whose args match the arg patterns (args of
// a graph node are graph nodes, so these calls are counted too); an
// alternation needs what both sides need; wrappers what their inner pattern
// needs. Anything else (and recursion) needs nothing, conservatively.
std::vector<const OpInfo*> RequiredOps(const CompiledPattern& p, uint32_t id,
                                       std::vector<uint32_t>& open) {
  if (std::find(open.begin(), open.end(), id) != open.end()) return {};
  open.push_back(id);
  std::vector<const OpInfo*> ops;
  auto kids = p.children(id);
  switch (p.node(id).kind) {
    case PatternKind::kCall: {
      const OpInfo* op = Cast<CallPattern>(p.node(id).node)->op();
      if (op == nullptr) break;
      ops.push_back(op);
      if (!Cast<CallPattern>(p.node(id).node)->any_args()) {
        for (uint32_t arg : kids.subspan(1)) {
          for (const OpInfo* o : RequiredOps(p, arg, open)) ops.push_back(o);
        }
      }
      // Re-associated alternatives (multiply/divide) are tried when the op
      // differs: a match needs only what every form needs.
      for (uint32_t alt : p.alternatives(id)) {
        std::vector<const OpInfo*> other = RequiredOps(p, alt, open);
        std::erase_if(ops, [&](const OpInfo* o) {
          return std::find(other.begin(), other.end(), o) == other.end();
        });
      }
      break;
    }
    case PatternKind::kAlt: {
      ops = RequiredOps(p, kids[0], open);
      std::vector<const OpInfo*> other = RequiredOps(p, kids[1], open);
      std::erase_if(ops, [&](const OpInfo* o) {
        return std::find(other.begin(), other.end(), o) == other.end();
      });
      break;
    }
    case PatternKind::kAttr:
    case PatternKind::kType:
    case PatternKind::kDType:
    case PatternKind::kShape:
    case PatternKind::kCapture:
    case PatternKind::kWhere:
      ops = RequiredOps(p, kids[0], open);
      break;
    default:
      break;
  }
  open.pop_back();
  return ops;
}

std::vector<const OpInfo*> RequiredOps(const CompiledPattern& p) {
  std::vector<uint32_t> open;
  return RequiredOps(p, p.root(), open);
}

// False when the pattern can only match calls of ops the graph no longer
// calls (its root op, or an op every match needs), so that a table entry for
// absent ops costs nothing.
bool MayMatch(const CompiledPattern& pattern, const std::vector<const OpInfo*>& required,
              const OpCounts& counts) {
  auto present = [&](const OpInfo* op) {
    auto it = counts.find(op);
    return it != counts.end() && it->second > 0;
  };
  for (const OpInfo* op : required) {
    if (!present(op)) return false;
  }
  const RootFilter& f = pattern.root_filter();
  for (int k = 0; k <= static_cast<int>(ExprKind::kFunction); ++k) {
    if (f.HasKind(static_cast<ExprKind>(k))) return true;
  }
  return std::any_of(f.ops().begin(), f.ops().end(), present);
}

}  // namespace

const Expr* Partition(const std::shared_ptr<const CompiledPattern>& pattern, const Expr* expr,
                      Arena* arena, const PartitionOptions& options, PartitionStats* stats) {
  if (pattern->node(pattern->root()).kind == PatternKind::kFunction) return expr;
  IndexedGraph graph(expr, {.opaque_composites = true});
  ParamNames names;
  return PartitionInGraph(pattern, graph, arena, options, stats, names);
}

absl::StatusOr<const Expr*> Partition(const Pattern& pattern, const Expr* expr, Arena* arena,
                                      const PartitionOptions& options, PartitionStats* stats) {
  CARVE_ASSIGN_OR_RETURN(auto compiled, CompilePattern(pattern));
  return Partition(compiled, expr, arena, options, stats);
}

absl::StatusOr<const Expr*> PartitionComposites(const std::vector<CompositeEntry>& table,
                                                const Expr* expr, Arena* arena, bool typed,
                                                PartitionStats* stats) {
  // One graph serves every entry until an entry changes the expression; the
  // op counts follow the changes, so an entry whose root ops are gone costs a
  // few lookups and no graph.
  // After a change, the next graph is derived from the previous one and the
  // edit (IndexedGraph::Derive), when an entry needs it.
  std::unique_ptr<IndexedGraph> graph, previous;
  GraphEdit edit;
  ParamNames names;
  std::optional<OpCounts> counts;
  size_t size_hint = 0;
  for (const CompositeEntry& entry : table) {
    auto compiled = CompilePatternCached(entry.pattern);
    if (!compiled.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("composite '{}': {}", entry.name, std::string(compiled.status().message())));
    }
    if ((*compiled)->node((*compiled)->root()).kind == PatternKind::kFunction) continue;
    std::vector<const OpInfo*> required = RequiredOps(**compiled);
    if (counts && !MayMatch(**compiled, required, *counts)) continue;
    if (graph == nullptr && previous != nullptr) {
      graph = IndexedGraph::Derive(std::move(previous), edit.current, edit.replaced,
                                   edit.replaced_inputs);
      // Read by Derive only: freed before the next partition allocates.
      std::vector<const Expr*>().swap(edit.current);
    }
    if (graph == nullptr) {
      graph = std::make_unique<IndexedGraph>(
          expr, IndexedGraphOptions{.size_hint = size_hint, .opaque_composites = true});
      if (!counts) counts = CountOps(*graph);
      if (!MayMatch(**compiled, required, *counts)) continue;
    }
    PartitionOptions options;
    options.attrs.push_back({"Composite", AttrValue::Str(entry.name)});
    options.check = entry.check;
    options.typed = typed;
    PartitionStats entry_stats;
    const Expr* out =
        PartitionInGraph(*compiled, *graph, arena, options, &entry_stats, names, &*counts, &edit);
    if (stats != nullptr) {
      stats->groups += entry_stats.groups;
      stats->partitioned += entry_stats.partitioned;
      stats->untyped += entry_stats.untyped;
    }
    if (out != expr) {
      size_hint = graph->size() + graph->size() / 8;
      previous = std::move(graph);
      expr = out;
    }
  }
  return expr;
}

}  // namespace carve
