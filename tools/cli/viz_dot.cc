// DOT text of a viz graph: nodes filled with their target's colour, regions
// and composites as nested clusters, edges labelled with shapes.
#include <algorithm>
#include <map>

#include "fmt/format.h"
#include "tools/cli/viz_writers.h"
#include "tools/cli/viz_style.h"

namespace carve::viz {
namespace {

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out + "\"";
}

// Long reasons (a failed `where` clause) are wrapped at spaces into at most
// kReasonLines lines of kReasonWidth characters, and cut after that: the
// clause that failed comes last in the text, so one cut line lost it. The
// full text is in the tooltip and the HTML details.
constexpr size_t kReasonWidth = 48;
constexpr int kReasonLines = 3;

std::string Wrap(const std::string& s, int max_lines = kReasonLines) {
  std::string out;
  size_t start = 0;
  for (int line = 0; start < s.size(); ++line) {
    if (line == max_lines) {
      // Make room for "..." on the last line kept.
      size_t newline = out.rfind('\n');
      size_t last = out.size() - (newline == std::string::npos ? 0 : newline + 1);
      if (last + 3 > kReasonWidth) out.resize(out.size() - (last + 3 - kReasonWidth));
      return out + "...";
    }
    size_t end = s.size();
    if (end - start > kReasonWidth) {
      size_t space = s.rfind(' ', start + kReasonWidth);
      end = space != std::string::npos && space > start ? space : start + kReasonWidth;
    }
    out += (line ? "\n" : "") + s.substr(start, end - start);
    start = end < s.size() && s[end] == ' ' ? end + 1 : end;
  }
  return out;
}

std::string NodeLabel(const Node& n, bool summary) {
  if (summary && !n.target.empty()) {
    return fmt::format("{}\n{}\n{}", n.name, n.target, n.label);
  }
  std::string label = n.name.empty() || n.name == n.label ? n.label
                                                          : fmt::format("{}\n{}", n.name, n.label);
  if (!n.reason.empty()) {
    size_t start = 0;
    while (start < n.reason.size()) {
      size_t end = n.reason.find("; ", start);
      if (end == std::string::npos) end = n.reason.size();
      label += "\n" + Wrap(n.reason.substr(start, end - start));
      start = end + 2;
    }
  }
  return label;
}

std::string Tooltip(const Node& n) {
  std::string t = n.label;
  if (!n.type.empty()) t += "\n" + n.type;
  if (!n.attrs.empty()) t += "\n" + n.attrs;
  t += "\ntarget: " + (n.target.empty() ? std::string("host") : n.target);
  if (!n.reason.empty()) t += "\n" + n.reason;
  return t;
}

// The ops the preparation removed, as the label of one note: a title, then
// per pass how many it removed and which, cut after kReasonLines lines (the
// tooltip lists them all).
std::string RemovedLabel(const Graph& g) {
  std::map<std::string, std::vector<std::string>> by_pass;
  std::vector<std::string> passes;  // in order of first removal
  for (const RemovedOp& r : g.removed) {
    std::vector<std::string>& ops = by_pass[r.pass];
    if (ops.empty()) passes.push_back(r.pass);
    ops.push_back(r.name.empty() ? r.op : fmt::format("{} {}", r.name, r.op));
  }
  std::string label = fmt::format("removed before partitioning by\n{}'s preparation passes:",
                                   g.removed_by);
  for (const std::string& pass : passes) {
    const std::vector<std::string>& ops = by_pass[pass];
    label += "\n" + Wrap(fmt::format("{}: {} op{}: {}", pass, ops.size(),
                                     ops.size() == 1 ? "" : "s", fmt::join(ops, ", ")));
  }
  return label;
}

std::string RemovedTooltip(const Graph& g) {
  std::string t;
  for (const RemovedOp& r : g.removed) {
    t += fmt::format("{}{}{}: {}", t.empty() ? "" : "\n", r.name.empty() ? "" : r.name + " ",
                     r.op, r.reason);
  }
  return t;
}

class DotWriter {
 public:
  explicit DotWriter(const Graph& g) : g_(g), palette_(g) {
    children_.resize(g.clusters.size());
    members_.resize(g.clusters.size() + 1);
    for (size_t c = 0; c < g.clusters.size(); ++c) {
      if (g.clusters[c].parent >= 0) children_[g.clusters[c].parent].push_back(c);
    }
    for (size_t i = 0; i < g.nodes.size(); ++i) members_[g.nodes[i].cluster + 1].push_back(i);
    // A cluster is drawn when a node of it (or of a nested one) is shown.
    used_.assign(g.clusters.size(), false);
    for (const Node& n : g.nodes) {
      for (int c = n.cluster; c >= 0; c = g.clusters[c].parent) used_[c] = true;
    }
  }

  std::string Write() {
    out_ = "digraph carve {\n"
           "  rankdir=TB;\n"
           "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
           "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n";
    for (size_t c = 0; c < g_.clusters.size(); ++c) {
      if (g_.clusters[c].parent < 0) WriteCluster(c, "  ");
    }
    for (size_t i : members_[0]) WriteNode(i, "  ");
    if (!g_.removed.empty()) {
      out_ += fmt::format(
          "  removed [id=\"removed\", shape=note, style=filled, fillcolor=\"#ffffff\", "
          "label={}, tooltip={}];\n",
          Quote(RemovedLabel(g_)), Quote(RemovedTooltip(g_)));
    }
    if (!g_.lost.empty()) {
      std::string label = g_.lost[0];
      for (size_t i = 1; i < g_.lost.size(); ++i) label += "\n" + Wrap(g_.lost[i]);
      out_ += fmt::format(
          "  lost [id=\"lost\", shape=note, style=filled, fillcolor=\"#ffffff\", "
          "label={}, tooltip={}];\n",
          Quote(label), Quote(fmt::format("{}", fmt::join(g_.lost, "\n"))));
    }
    for (const Edge& e : g_.edges) {
      out_ += fmt::format("  n{} -> n{}", e.from, e.to);
      if (!e.label.empty()) out_ += fmt::format(" [label={}]", Quote(e.label));
      out_ += ";\n";
    }
    out_ += "}\n";
    return out_;
  }

 private:
  void WriteCluster(size_t c, const std::string& indent) {
    if (!used_[c]) return;
    const Cluster& cl = g_.clusters[c];
    std::string label = cl.region ? fmt::format("{} ({})", cl.name, cl.target) : cl.name;
    out_ += fmt::format("{}subgraph cluster_{} {{\n", indent, c);
    std::string in = indent + "  ";
    out_ += fmt::format("{}label={}; fontname=\"Helvetica\"; fontsize=10;\n", in, Quote(label));
    if (cl.region) {
      out_ += fmt::format("{}style=\"filled,rounded\"; fillcolor=\"{}\"; color=\"{}\";\n", in,
                          palette_.Light(cl.target), palette_.Fill(cl.target));
    } else {
      out_ += fmt::format("{}style=\"dashed,rounded\"; color=\"#666666\";\n", in);
    }
    for (size_t child : children_[c]) WriteCluster(child, in);
    for (size_t i : members_[c + 1]) WriteNode(i, in);
    out_ += indent + "}\n";
  }

  void WriteNode(size_t i, const std::string& indent) {
    const Node& n = g_.nodes[i];
    out_ += fmt::format("{}n{} [id=\"n{}\", label={}, fillcolor=\"{}\", tooltip={}", indent, i,
                        i, Quote(NodeLabel(n, g_.summary)), palette_.Fill(n.target),
                        Quote(Tooltip(n)));
    if (n.label == "input" || n.label == "const") out_ += ", shape=ellipse";
    if (static_cast<int>(i) == g_.output) out_ += ", penwidth=2";
    out_ += "];\n";
  }

  const Graph& g_;
  Palette palette_;
  std::vector<std::vector<size_t>> children_;
  std::vector<std::vector<size_t>> members_;  // [cluster + 1] -> nodes directly in it
  std::vector<bool> used_;
  std::string out_;
};

}  // namespace

std::string WriteDot(const Graph& g) { return DotWriter(g).Write(); }

}  // namespace carve::viz
