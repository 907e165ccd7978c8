// The terminal view: the graph as an indented tree from the output back to
// the inputs, one line per node, in the manner of TVM's relay_viz
// TermPlotter. A node reached again prints "(see above)" instead of its
// inputs, and the indentation stops growing at kMaxDepth levels: a node
// there prints "(inputs below)" and its inputs follow as a tree of their
// own, so the output is linear in the graph's size even for a 100,000-op
// chain (an indentation that grew with the depth made it quadratic: 15 GB).
#include <deque>
#include <vector>

#include "fmt/format.h"
#include "tools/cli/viz_writers.h"

namespace carve::viz {
namespace {

// Levels of indentation before a subtree continues as a tree of its own.
constexpr int kMaxDepth = 16;

std::string Where(const Graph& g, const Node& n) {
  std::string where = n.target.empty() ? "host" : n.target;
  std::vector<std::string> path;
  for (int c = n.cluster; c >= 0; c = g.clusters[c].parent) path.push_back(g.clusters[c].name);
  for (auto it = path.rbegin(); it != path.rend(); ++it) where += " " + *it;
  return where;
}

std::string Line(const Graph& g, const Node& n) {
  std::string s = n.name.empty() || n.name == n.label ? n.label : n.name + " " + n.label;
  if (g.summary && !n.target.empty()) s = fmt::format("{} {}", n.name, n.label);
  s += fmt::format(" [{}]", Where(g, n));
  if (!n.reason.empty()) s += " -- " + n.reason;
  return s;
}

// The trees of one graph, written root by root; a subtree cut at kMaxDepth
// is queued as a root of its own.
class TreeWriter {
 public:
  explicit TreeWriter(const Graph& g)
      : g_(g), inputs_(g.nodes.size()), state_(g.nodes.size(), kNew) {
    std::vector<bool> has_user(g.nodes.size(), false);
    for (const Edge& e : g.edges) {
      inputs_[e.to].push_back({e.from, e.label});
      has_user[e.from] = true;
    }
    // Roots: the output, then any node nobody reads (e.g. in an --around view).
    if (g.output >= 0) roots_.push_back(g.output);
    for (size_t i = g.nodes.size(); i-- > 0;) {
      if (!has_user[i] && static_cast<int>(i) != g.output) roots_.push_back(static_cast<int>(i));
    }
  }

  std::string Write() {
    while (!roots_.empty()) {
      int root = roots_.front();
      roots_.pop_front();
      if (state_[root] == kPrinted) continue;
      state_[root] = kNew;  // a deferred node: its inputs follow now
      WriteTree(root);
    }
    return std::move(out_);
  }

 private:
  struct Item {
    int node;
    int depth;
    std::string prefix;  // drawn before the connector
    std::string connector;
    std::string edge;
  };
  enum State : char { kNew, kDeferred, kPrinted };

  void WriteTree(int root) {
    std::vector<Item> stack = {{root, 0, "", "", ""}};
    while (!stack.empty()) {
      Item it = std::move(stack.back());
      stack.pop_back();
      if (WriteNode(it)) PushInputs(it, stack);
    }
  }

  // Writes the line of `it`; true when its inputs are to follow below it.
  bool WriteNode(const Item& it) {
    out_ += it.prefix + it.connector + Line(g_, g_.nodes[it.node]);
    if (!it.edge.empty()) out_ += "  : " + it.edge;
    const auto& in = inputs_[it.node];
    if (state_[it.node] != kNew && !in.empty()) {
      out_ += state_[it.node] == kPrinted ? " (see above)\n" : " (see below)\n";
      return false;
    }
    if (it.depth == kMaxDepth && !in.empty()) {
      out_ += " (inputs below)\n";
      state_[it.node] = kDeferred;
      roots_.push_back(it.node);
      return false;
    }
    out_ += "\n";
    state_[it.node] = kPrinted;
    return true;
  }

  // Pushes `it`'s inputs so that the first is written first, indented under it.
  void PushInputs(const Item& it, std::vector<Item>& stack) const {
    const auto& in = inputs_[it.node];
    std::string child_prefix =
        it.prefix + (it.connector.empty() ? "" : it.connector == "`--" ? "   " : "|  ");
    for (size_t k = in.size(); k-- > 0;) {
      stack.push_back({in[k].first, it.depth + 1, child_prefix,
                       k + 1 == in.size() ? "`--" : "|--", in[k].second});
    }
  }

  const Graph& g_;
  std::vector<std::vector<std::pair<int, std::string>>> inputs_;
  std::vector<State> state_;
  std::deque<int> roots_;
  std::string out_;
};

}  // namespace

std::string WriteTerm(const Graph& g) {
  std::string out = TreeWriter(g).Write();
  if (!g.removed.empty()) {
    out += fmt::format("removed before partitioning by {}'s preparation passes:\n", g.removed_by);
    for (const RemovedOp& r : g.removed) {
      out += fmt::format("  {}{} -- {}\n", r.name.empty() ? "" : r.name + " ", r.op, r.reason);
    }
  }
  for (size_t i = 0; i < g.lost.size(); ++i) out += (i ? "  " : "") + g.lost[i] + "\n";
  return out;
}

}  // namespace carve::viz
