// IndexedGraph's post-dominator tree: TVM's LCA construction (consumers
// first, src/relay/ir/indexed_graph.cc), with an Euler tour of the tree so
// that PostDominates is O(1).
#include "patterns/graph.h"

#include <utility>
#include <vector>

namespace carve {

uint32_t IndexedGraph::Lca(uint32_t a, uint32_t b) const {
  while (a != b) {
    if (a == kNone || b == kNone) return kNone;
    if (depth_[a] < depth_[b]) {
      b = ipdom_[b];
    } else if (depth_[a] > depth_[b]) {
      a = ipdom_[a];
    } else {
      a = ipdom_[a];
      b = ipdom_[b];
    }
  }
  return a;
}

void IndexedGraph::ComputePostDominators() const {
  ComputeImmediatePostDominators();
  BuildPostDominatorChildren();
  NumberEulerTour();
  has_postdom_ = true;
}

// TVM's construction: a node's immediate post-dominator is the LCA of its
// consumers in the tree built so far. Consumers have larger indices, so one
// reverse sweep sees them first.
void IndexedGraph::ComputeImmediatePostDominators() const {
  size_t n = size();
  ipdom_.assign(n, kNone);
  depth_.assign(n, 1);
  for (size_t k = n; k-- > 0;) {
    uint32_t i = static_cast<uint32_t>(k);
    auto outs = outputs(i);
    if (i == root() || outs.empty()) continue;
    uint32_t p = outs[0];
    for (size_t j = 1; j < outs.size() && p != kNone; ++j) p = Lca(p, outs[j]);
    ipdom_[i] = p;
    depth_[i] = p == kNone ? 1 : depth_[p] + 1;
  }
}

// The tree's children lists (CSR), for PostDominated and the Euler tour.
void IndexedGraph::BuildPostDominatorChildren() const {
  size_t n = size();
  tree_begin_.assign(n + 1, 0);
  for (uint32_t i = 0; i < n; ++i) {
    if (ipdom_[i] != kNone) ++tree_begin_[ipdom_[i] + 1];
  }
  for (size_t i = 0; i < n; ++i) tree_begin_[i + 1] += tree_begin_[i];
  tree_ids_.resize(tree_begin_[n]);
  std::vector<uint32_t> fill(tree_begin_.begin(), tree_begin_.end() - 1);
  for (uint32_t i = 0; i < n; ++i) {
    if (ipdom_[i] != kNone) tree_ids_[fill[ipdom_[i]]++] = i;
  }
}

// Entry and exit times of an iterative DFS over each tree of the forest:
// `a` is an ancestor of `b` exactly when b's interval nests in a's, so
// PostDominates is two compares.
void IndexedGraph::NumberEulerTour() const {
  size_t n = size();
  tin_.assign(n, 0);
  tout_.assign(n, 0);
  uint32_t clock = 0;
  std::vector<std::pair<uint32_t, uint32_t>> stack;  // (node, next child offset)
  for (size_t k = n; k-- > 0;) {
    if (ipdom_[k] != kNone) continue;
    stack.emplace_back(static_cast<uint32_t>(k), tree_begin_[k]);
    tin_[k] = clock++;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < tree_begin_[node + 1]) {
        uint32_t child = tree_ids_[next++];
        tin_[child] = clock++;
        stack.emplace_back(child, tree_begin_[child]);
      } else {
        tout_[node] = clock++;
        stack.pop_back();
      }
    }
  }
}

uint32_t IndexedGraph::PostDominator(uint32_t i) const {
  if (!has_postdom_) ComputePostDominators();
  return ipdom_[i];
}

bool IndexedGraph::PostDominates(uint32_t a, uint32_t b) const {
  if (!has_postdom_) ComputePostDominators();
  return a != b && tin_[a] < tin_[b] && tout_[b] < tout_[a];
}

std::span<const uint32_t> IndexedGraph::PostDominated(uint32_t i) const {
  if (!has_postdom_) ComputePostDominators();
  return {tree_ids_.data() + tree_begin_[i], tree_begin_[i + 1] - tree_begin_[i]};
}

}  // namespace carve
