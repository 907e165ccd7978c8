#include "tools/cli/viz_graph.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ir/attrs.h"
#include "ir/module.h"
#include "ir/type.h"
#include "ir/visit.h"
#include "passes/byoc/annotation.h"
#include "tools/cli/node_name_hint.h"

namespace carve::viz {
namespace {

int64_t TypeBytes(const Type* t) {
  if (const TupleType* tuple = t == nullptr ? nullptr : DynCast<TupleType>(t)) {
    int64_t sum = 0;
    for (const Type* f : tuple->fields()) sum += TypeBytes(f);
    return sum;
  }
  const TensorType* tt = t == nullptr ? nullptr : DynCast<TensorType>(t);
  if (tt == nullptr || !tt->is_static()) return 0;
  return tt->num_elements() * ((tt->dtype().bits * tt->dtype().lanes + 7) / 8);
}

// "Tensor[(1, 64), float32]" -> "(1, 64) float32": shorter edge labels.
std::string ShapeLabel(const Type* t) {
  if (t == nullptr) return "";
  std::string s = TypeToString(t);
  if (s.starts_with("fn ")) return "fn";  // a whole signature would swamp the picture
  if (s.starts_with("Tensor[") && s.ends_with("]")) {
    s = s.substr(7, s.size() - 8);
    size_t comma = s.rfind("), ");
    if (comma != std::string::npos) s = s.substr(0, comma + 1) + " " + s.substr(comma + 3);
  }
  return s;
}

std::string AttrsText(const Call* call) {
  if (call->attrs() == nullptr) return "";
  std::string out;
  for (const AttrEntry& e : call->attrs()->entries()) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{}={}", e.key, AttrValueToString(e.value));
  }
  return out;
}

class Builder {
 public:
  Builder(const NodeNames& names, const std::vector<TargetSpecPtr>& backends,
          const PlacementRecord* record, const SpanNames* input_names)
      : names_(names), input_names_(input_names) {
    for (const auto& [gv, fn] : names.module().Functions()) functions_[gv] = fn;
    for (const TargetSpecPtr& b : backends) g_.targets.push_back(b->name());
    if (record != nullptr) MapRecord(*record);
  }

  absl::StatusOr<Graph> Build() {
    const Function* main = nullptr;
    for (const auto& [gv, fn] : functions_) {
      if (gv->name() == "main") main = fn;
    }
    if (main == nullptr) return absl::InvalidArgumentError("the module has no @main");
    g_.output = Expand(main, {}, -1);
    return std::move(g_);
  }

 private:
  // Adds the nodes of `fn`'s body in cluster `cluster`, its parameters bound
  // to the nodes `args` (empty for @main: parameters become input nodes).
  // Returns the node of the body's result.
  int Expand(const Function* fn, const std::vector<int>& args, int cluster) {
    absl::flat_hash_map<const Expr*, int> ids;
    for (size_t i = 0; i < fn->params().size() && i < args.size(); ++i) {
      ids[fn->params()[i]] = args[i];
    }
    std::vector<const Expr*> order = PostOrder(fn->body());
    // Composite bodies are expanded at their call, in their own cluster.
    absl::flat_hash_set<const Expr*> inner;
    for (const Expr* e : order) {
      const Call* call = DynCast<Call>(e);
      if (call != nullptr && call->callee()->kind() == ExprKind::kFunction) {
        PostOrderVisit(call->callee(), [&](const Expr* x) { inner.insert(x); });
      }
    }
    const std::string target = cluster >= 0 ? g_.clusters[cluster].target : "";
    for (const Expr* e : order) {
      if (inner.contains(e) || ids.contains(e) || e->kind() == ExprKind::kOp ||
          e->kind() == ExprKind::kGlobalVar || e->kind() == ExprKind::kFunction) {
        continue;
      }
      ids[e] = Visit(e, ids, cluster, target);
    }
    auto it = ids.find(fn->body());
    return it == ids.end() ? -1 : it->second;
  }

  int Visit(const Expr* e, const absl::flat_hash_map<const Expr*, int>& ids, int cluster,
            const std::string& target) {
    std::vector<int> operands;
    ForEachChild(e, [&](const Expr* c) {
      auto it = ids.find(c);
      if (it != ids.end()) operands.push_back(it->second);
    });
    if (const Call* call = DynCast<Call>(e)) {
      if (std::optional<int> result = ExpandCall(call, operands, cluster, target)) return *result;
    }
    return AddNode(e, MakeNode(e, cluster, target), operands, ids);
  }

  // A call of a function drawn as a cluster of its own (a composite, or a
  // region function with a Compiler attribute): expands it and returns the
  // node of its result. nullopt for any other call, which is one node.
  std::optional<int> ExpandCall(const Call* call, const std::vector<int>& operands, int cluster,
                                const std::string& target) {
    if (const Function* callee = DynCast<Function>(call->callee())) {
      std::string_view composite = CompositeName(call);
      int c =
          AddCluster(composite.empty() ? "fn" : std::string(composite), false, target, cluster);
      return Expand(callee, operands, c);
    }
    const GlobalVar* gv = DynCast<GlobalVar>(call->callee());
    if (gv == nullptr) return std::nullopt;
    auto f = functions_.find(gv);
    std::string_view compiler =
        f == functions_.end() ? "" : f->second->GetStringAttr(attr::kCompiler);
    if (compiler.empty()) return std::nullopt;
    int c = AddCluster(std::string(gv->name()), true, std::string(compiler), cluster);
    ++in_region_function_;
    int result = Expand(f->second, operands, c);
    --in_region_function_;
    // The call is not drawn (its region is): its name, the one `print`
    // shows for `%2 = @tvmgen_..._1(%0, %1)`, goes to the region's
    // result, so that `--around %2` finds it. A name the result has
    // from inside the region function would be ambiguous anyway (each
    // function numbers its own nodes from %0).
    std::string name = names_.Name(call);
    if (input_names_ == nullptr && result >= 0 && name.starts_with('%')) {
      g_.nodes[result].name = std::move(name);
    }
    return result;
  }

  // The node drawn for `e`: its name, place, type and label.
  Node MakeNode(const Expr* e, int cluster, const std::string& target) const {
    Node n;
    // Only names users can type (%3, %x); inlined nodes are named by their
    // printed text, which the label already says better.
    n.name = names_.Name(e);
    // A region function numbers its nodes from %0 again: such a name would
    // be taken for the node of @main that has it (`--around`, `why --at`).
    if (!n.name.starts_with('%') || (in_region_function_ > 0 && e->kind() != ExprKind::kVar)) {
      n.name.clear();
    }
    if (input_names_ != nullptr && e->kind() != ExprKind::kVar) n.name = InputName(e);
    n.cluster = cluster;
    n.target = target;
    n.type = e->checked_type() != nullptr ? TypeToString(e->checked_type()) : "";
    if (const Call* call = DynCast<Call>(e)) {
      LabelCall(call, target, n);
    } else {
      n.label = NonCallLabel(e);
    }
    return n;
  }

  // An op call's label is the op (with its attributes, and why the host
  // runs it); other calls are named by their callee.
  void LabelCall(const Call* call, const std::string& target, Node& n) const {
    if (call->op() != nullptr) {
      n.label = std::string(call->op()->name);
      n.is_op = true;
      n.attrs = AttrsText(call);
      if (target.empty()) n.reason = HostReason(call);
    } else if (const GlobalVar* gv = DynCast<GlobalVar>(call->callee())) {
      n.label = fmt::format("@{}", gv->name());
    } else {
      n.label = "call";
    }
  }

  std::string NonCallLabel(const Expr* e) const {
    switch (e->kind()) {
      case ExprKind::kVar:
        return names_.Role(e) == "a parameter" ? "input" : "var";
      case ExprKind::kConstant:
        return "const";
      case ExprKind::kTuple:
        return "tuple";
      case ExprKind::kTupleGetItem:
        return fmt::format(".{}", Cast<TupleGetItem>(e)->index());
      case ExprKind::kLet:
        return "let";
      case ExprKind::kIf:
        return "if";
      default:
        return "expr";
    }
  }

  // Adds `n` for `e`, with an edge from each operand labelled by the shape
  // flowing along it. Returns the new node's id.
  int AddNode(const Expr* e, Node n, const std::vector<int>& operands,
              const absl::flat_hash_map<const Expr*, int>& ids) {
    int id = static_cast<int>(g_.nodes.size());
    g_.nodes.push_back(std::move(n));
    for (int from : operands) {
      g_.edges.push_back(Edge{from, id, "", 0});
    }
    size_t k = g_.edges.size() - operands.size();
    ForEachChild(e, [&](const Expr* c) {
      if (!ids.contains(c)) return;
      g_.edges[k].label = ShapeLabel(c->checked_type());
      g_.edges[k].bytes = TypeBytes(c->checked_type());
      ++k;
    });
    return id;
  }

  int AddCluster(std::string name, bool region, std::string target, int parent) {
    g_.clusters.push_back(Cluster{std::move(name), region, std::move(target), parent});
    return static_cast<int>(g_.clusters.size()) - 1;
  }

  // The record was built on the module `names_` printed; its re-parsed
  // copy has the same op calls in the same order (PlacementRecord::Order).
  void MapRecord(const PlacementRecord& record) {
    std::vector<const Call*> calls = PlacementRecord::Order(names_.module());
    const std::vector<Placement>& placements = record.placements();
    if (calls.size() != placements.size()) return;
    for (size_t i = 0; i < calls.size(); ++i) {
      if (calls[i]->op()->name != placements[i].op) return;
    }
    for (size_t i = 0; i < calls.size(); ++i) placement_[calls[i]] = &placements[i];
  }

  // Why no backend took this host op, per backend ("dnnl: unsupported op"),
  // from the placement record.
  std::string HostReason(const Call* call) const {
    auto it = placement_.find(call);
    if (it == placement_.end()) return "";
    std::vector<std::string> parts;
    for (size_t b = 0; b < it->second->verdicts.size(); ++b) {
      parts.push_back(fmt::format("{}: {}", g_.targets[b], it->second->verdicts[b].Text()));
    }
    return fmt::format("{}", fmt::join(parts, "; "));
  }

  // The input's name of an op call: the placement's call is a node of the
  // partitioned module, which kept the input's spans.
  std::string InputName(const Expr* e) const {
    const Call* call = DynCast<Call>(e);
    auto placed = call != nullptr ? placement_.find(call) : placement_.end();
    if (placed == placement_.end()) return "";
    auto it = input_names_->find(PrunedOps::Key(placed->second->call));
    return it == input_names_->end() ? "" : it->second;
  }

  const NodeNames& names_;
  const SpanNames* input_names_;
  int in_region_function_ = 0;  // inside a global function offloaded to a backend
  absl::flat_hash_map<const Call*, const Placement*> placement_;
  std::map<const GlobalVar*, const Function*> functions_;
  Graph g_;
};

}  // namespace

std::string FormatBytes(int64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
}

absl::StatusOr<Graph> BuildGraph(const NodeNames& names,
                                 const std::vector<TargetSpecPtr>& backends,
                                 const PlacementRecord* record, const SpanNames* input_names) {
  return Builder(names, backends, record, input_names).Build();
}

SpanNames InputNames(const NodeNames& names) {
  SpanNames out;
  for (const auto& entry : names.module().Functions()) {
    PostOrderVisit(entry.second, [&](const Expr* e) {
      const Call* call = DynCast<Call>(e);
      if (call == nullptr || call->op() == nullptr || !e->span().valid()) return;
      std::string name = names.Name(e);
      // `%N`, or `@main` for a function's final expression (`why --at @main`).
      if (name.starts_with('%') || name.starts_with('@')) {
        out.try_emplace(PrunedOps::Key(e), std::move(name));
      }
    });
  }
  return out;
}

std::vector<std::string> LostNote(const LetBoundLoss* loss) {
  if (loss == nullptr) return {};
  const char* where = !loss->in_clauses ? "let-bound regions"
                      : loss->in_lets   ? "let-bound regions and regions in match clauses"
                                        : "regions in match clauses";
  return {fmt::format("lost to {}: {} op{} never run", where, loss->total(),
                      loss->total() == 1 ? "" : "s"),
          loss->OpsText(), fmt::format("free inputs of @main: {}", loss->FreeInputsText())};
}

std::vector<RemovedOp> RemovedOps(const PreparedAway& prepared, const SpanNames& input_names) {
  std::vector<RemovedOp> out;
  for (const PreparedAway::Removed& r : prepared.removed) {
    auto it = input_names.find(r.span);
    out.push_back({it == input_names.end() ? "" : it->second, r.op,
                   fmt::format("{} (step {} of {})", r.pass, r.step, prepared.passes.size()),
                   prepared.Text(r)});
  }
  return out;
}

namespace {

// Why --around found no node named `name`: an op that preparation removed,
// a misspelt name (with the nearest one), or a node that never runs.
absl::Status MissingNodeError(const Graph& g, const std::string& name) {
  for (const RemovedOp& r : g.removed) {
    if (!name.empty() && r.name == name) {
      return absl::InvalidArgumentError(
          fmt::format("--around: {} ({}) is not in the graph: {}", name, r.op, r.reason));
    }
  }
  // A node of FILE can be missing because it never runs (g.lost): say so
  // rather than suggest the name is wrong.
  std::string lost = g.lost.empty()
                         ? ""
                         : fmt::format("; if it is a node of the file, it may be one of the ops "
                                       "that never run ({}): `carve why FILE --backend ... "
                                       "--at {}` says",
                                       g.lost[0], name);
  std::string hint = cli::SuggestNodeName(name, [&](const std::string& n) {
    for (const Node& node : g.nodes) {
      if (node.name == n) return true;
    }
    return false;
  });
  return absl::InvalidArgumentError(fmt::format(
      "--around: no node named '{}'{} (use the %N and %var names the module prints as){}", name,
      hint.empty() ? "" : fmt::format("; did you mean {}?", hint), lost));
}

// Edges taken both ways from `center`: each node's distance, -1 beyond
// `depth`.
std::vector<int> Distances(const Graph& g, int center, int depth) {
  std::vector<std::vector<int>> adj(g.nodes.size());
  for (const Edge& e : g.edges) {
    adj[e.from].push_back(e.to);
    adj[e.to].push_back(e.from);
  }
  std::vector<int> dist(g.nodes.size(), -1);
  std::deque<int> queue = {center};
  dist[center] = 0;
  while (!queue.empty()) {
    int n = queue.front();
    queue.pop_front();
    if (dist[n] == depth) continue;
    for (int m : adj[n]) {
      if (dist[m] < 0) {
        dist[m] = dist[n] + 1;
        queue.push_back(m);
      }
    }
  }
  return dist;
}

// The part of `g` whose nodes `keep` (renumbered in order), with the edges
// between them.
Graph Subgraph(const Graph& g, const std::vector<bool>& keep) {
  Graph out;
  out.clusters = g.clusters;
  out.targets = g.targets;
  out.removed_by = g.removed_by;
  out.lost = g.lost;
  std::vector<int> remap(g.nodes.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!keep[i]) continue;
    remap[i] = static_cast<int>(out.nodes.size());
    out.nodes.push_back(g.nodes[i]);
  }
  for (const Edge& e : g.edges) {
    if (remap[e.from] >= 0 && remap[e.to] >= 0) {
      out.edges.push_back(Edge{remap[e.from], remap[e.to], e.label, e.bytes});
    }
  }
  out.output = g.output >= 0 ? remap[g.output] : -1;
  return out;
}

}  // namespace

absl::StatusOr<Graph> Around(const Graph& g, const std::string& name, int depth) {
  int center = -1;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].name == name) center = static_cast<int>(i);
  }
  if (center < 0 || name.empty()) return MissingNodeError(g, name);
  std::vector<int> dist = Distances(g, center, depth);
  std::vector<bool> keep(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) keep[i] = dist[i] >= 0;
  return Subgraph(g, keep);
}

namespace {

// The label of a run of host ops: how many, and which ops (the first few).
std::string RunLabel(const std::vector<const Node*>& run) {
  std::vector<std::string> ops;
  for (const Node* n : run) {
    if (std::find(ops.begin(), ops.end(), n->label) == ops.end()) ops.push_back(n->label);
  }
  std::string more = ops.size() > 3 ? ", ..." : "";
  if (ops.size() > 3) ops.resize(3);
  return fmt::format("{} host ops: {}{}", run.size(), fmt::join(ops, ", "), more);
}

// Chains of host ops (each the only box reading the one before, which is
// its only box input) become one box "N host ops": the summary of a graph
// that stays on the host (a 100,000-op chain, nothing offloaded) is then
// small too. `box` maps the nodes of `g` to out's nodes; both are renumbered.
void MergeHostChains(const Graph& g, Graph& out, std::vector<int>& box) {
  const size_t n = out.nodes.size();
  std::vector<absl::flat_hash_set<int>> preds(n), succs(n);
  for (const Edge& e : g.edges) {
    int a = box[e.from], b = box[e.to];
    if (a < 0 || b < 0 || a == b) continue;
    preds[b].insert(a);
    succs[a].insert(b);
  }
  auto host_op = [&](int i) { return out.nodes[i].target.empty() && out.nodes[i].is_op; };
  // Boxes are in evaluation order, so a chain's head comes first.
  std::vector<int> head(n);
  for (size_t i = 0; i < n; ++i) {
    head[i] = static_cast<int>(i);
    if (!host_op(i) || preds[i].size() != 1) continue;
    int p = *preds[i].begin();
    if (host_op(p) && succs[p].size() == 1) head[i] = head[p];
  }
  std::vector<std::vector<const Node*>> runs(n);
  for (size_t i = 0; i < n; ++i) runs[head[i]].push_back(&out.nodes[i]);
  std::vector<Node> nodes;
  std::vector<int> remap(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (head[i] != static_cast<int>(i)) continue;
    remap[i] = static_cast<int>(nodes.size());
    const std::vector<const Node*>& run = runs[i];
    Node merged = *run.front();
    if (run.size() > 1) {
      // From the first name to the last (@main's result has none).
      std::vector<std::string> named;
      for (const Node* m : run) {
        if (!m->name.empty()) named.push_back(m->name);
      }
      merged.name = named.empty()        ? ""
                    : named.size() == 1 ? named[0]
                                        : fmt::format("{}..{}", named.front(), named.back());
      merged.label = RunLabel(run);
      merged.type = run.back()->type;
      merged.attrs.clear();
      merged.ops = static_cast<int>(run.size());
      for (const Node* m : run) {
        if (m->reason != merged.reason) merged.reason.clear();
      }
    }
    nodes.push_back(std::move(merged));
  }
  for (size_t i = 0; i < n; ++i) remap[i] = remap[head[i]];
  for (int& b : box) b = b < 0 ? -1 : remap[b];
  out.nodes = std::move(nodes);
}

}  // namespace

namespace {

// Fills `out` with one box per region (counting its ops) and one per host
// node (weights and inputs left out); returns each node's box, -1 for none.
std::vector<int> BoxNodes(const Graph& g, Graph& out) {
  // The outermost region of each cluster (-1 when on the host).
  auto region_of = [&](int c) {
    int r = -1;
    for (; c >= 0; c = g.clusters[c].parent) {
      if (g.clusters[c].region) r = c;
    }
    return r;
  };
  std::vector<int> box(g.nodes.size(), -1);
  std::map<int, int> region_box;  // region cluster -> box node
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    int r = region_of(n.cluster);
    if (r >= 0) {
      auto [it, added] = region_box.try_emplace(r, static_cast<int>(out.nodes.size()));
      if (added) {
        Node b;
        b.name = g.clusters[r].name;
        b.target = g.clusters[r].target;
        out.nodes.push_back(b);
      }
      box[i] = it->second;
      out.nodes[it->second].ops += n.is_op ? 1 : 0;
      continue;
    }
    // Weights and inputs would outnumber the boxes: a summary shows the
    // regions and the host ops between them.
    if (n.label == "const" || n.label == "input") continue;
    box[i] = static_cast<int>(out.nodes.size());
    Node h = n;
    h.cluster = -1;
    out.nodes.push_back(h);
  }
  for (Node& n : out.nodes) {
    if (n.label.empty()) n.label = fmt::format("{} ops", n.ops);
  }
  return box;
}

// One edge per (box, box) pair, with the boundary bytes summed over the
// distinct source tensors.
void AddBoxEdges(const Graph& g, const std::vector<int>& box, Graph& out) {
  std::map<std::pair<int, int>, int64_t> bytes;
  absl::flat_hash_set<std::pair<int, int>> seen;  // (source node, target box)
  for (const Edge& e : g.edges) {
    int a = box[e.from], b = box[e.to];
    if (a < 0 || b < 0 || a == b) continue;
    if (!seen.insert({e.from, b}).second) continue;
    bytes[{a, b}] += e.bytes;
  }
  for (const auto& [ab, n] : bytes) {
    out.edges.push_back(Edge{ab.first, ab.second, FormatBytes(n), n});
  }
}

}  // namespace

Graph Summarize(const Graph& g, size_t max_boxes) {
  Graph out;
  out.targets = g.targets;
  out.summary = true;
  out.removed_by = g.removed_by;
  out.removed = g.removed;
  out.lost = g.lost;
  std::vector<int> box = BoxNodes(g, out);
  // Host ops keep a box each (with its reason) while the boxes are few; a
  // graph that mostly stays on the host needs its chains merged as well.
  if (out.nodes.size() > max_boxes) MergeHostChains(g, out, box);
  AddBoxEdges(g, box, out);
  out.output = g.output >= 0 ? box[g.output] : -1;
  return out;
}

}  // namespace carve::viz
