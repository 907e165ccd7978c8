#include "patterns/captures.h"

#include <vector>

namespace carve {

absl::flat_hash_set<std::string> CapturesBoundOnEveryMatch(const CompiledPattern& pattern) {
  // Source nodes are in post-order, so children are done before parents. A
  // recursive reference points up to an ancestor: it adds nothing.
  std::vector<absl::flat_hash_set<std::string>> bound(pattern.num_source_nodes());
  for (uint32_t id = 0; id < pattern.num_source_nodes(); ++id) {
    const CompiledNode& n = pattern.node(id);
    auto kids = pattern.children(id);
    absl::flat_hash_set<std::string>& out = bound[id];
    switch (n.kind) {
      case PatternKind::kRecursive:
        break;
      case PatternKind::kAlt:
        for (const std::string& name : bound[kids[0]]) {
          if (bound[kids[1]].contains(name)) out.insert(name);
        }
        break;
      case PatternKind::kDominator:  // parent, path, child: the path may match nothing
        out = bound[kids[0]];
        out.insert(bound[kids[2]].begin(), bound[kids[2]].end());
        break;
      default:
        for (uint32_t k : kids) out.insert(bound[k].begin(), bound[k].end());
        if (const auto* c = DynCast<CapturePattern>(n.node)) out.insert(c->name());
        break;
    }
  }
  return bound.empty() ? absl::flat_hash_set<std::string>{} : bound[pattern.root()];
}

}  // namespace carve
