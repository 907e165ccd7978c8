// The terminal view: the graph as an indented tree from the output back to
// the inputs, one line per node, in the manner of TVM's relay_viz
// TermPlotter. A node reached again prints "(see above)" instead of its
// inputs, so a DAG prints in size linear in its edges.
#include <vector>

#include "fmt/format.h"
#include "tools/cli/viz_writers.h"

namespace carve::viz {
namespace {

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

}  // namespace

std::string WriteTerm(const Graph& g) {
  std::vector<std::vector<std::pair<int, std::string>>> inputs(g.nodes.size());
  std::vector<bool> has_user(g.nodes.size(), false);
  for (const Edge& e : g.edges) {
    inputs[e.to].push_back({e.from, e.label});
    has_user[e.from] = true;
  }
  // Roots: the output, then any node nobody reads (e.g. in an --around view).
  std::vector<int> roots;
  if (g.output >= 0) roots.push_back(g.output);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    if (!has_user[i] && static_cast<int>(i) != g.output) roots.push_back(static_cast<int>(i));
  }
  struct Item {
    int node;
    std::string prefix;  // drawn before the connector
    std::string connector;
    std::string edge;
  };
  std::vector<bool> printed(g.nodes.size(), false);
  std::string out;
  for (int root : roots) {
    std::vector<Item> stack = {{root, "", "", ""}};
    while (!stack.empty()) {
      Item it = std::move(stack.back());
      stack.pop_back();
      out += it.prefix + it.connector + Line(g, g.nodes[it.node]);
      if (!it.edge.empty()) out += "  : " + it.edge;
      if (printed[it.node] && !inputs[it.node].empty()) {
        out += " (see above)\n";
        continue;
      }
      out += "\n";
      printed[it.node] = true;
      std::string child_prefix =
          it.prefix + (it.connector.empty() ? "" : it.connector == "`--" ? "   " : "|  ");
      const auto& in = inputs[it.node];
      for (size_t k = in.size(); k-- > 0;) {
        stack.push_back({in[k].first, child_prefix, k + 1 == in.size() ? "`--" : "|--",
                         in[k].second});
      }
    }
  }
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
