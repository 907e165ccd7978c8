// The small types partition_report.h hands in (LetBoundLoss, PreparedAway)
// and ReachableFromMain.
#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/byoc/partition_report.h"

namespace carve {

absl::flat_hash_set<const Function*> ReachableFromMain(const Module& mod) {
  absl::flat_hash_set<const Function*> seen;
  std::vector<const Function*> work;
  if (const Function* main = mod.Lookup("main")) work.push_back(main);
  while (!work.empty()) {
    const Function* fn = work.back();
    work.pop_back();
    if (!seen.insert(fn).second) continue;
    PostOrderVisit(fn, [&](const Expr* e) {
      if (const GlobalVar* gv = DynCast<GlobalVar>(e)) {
        if (const Function* callee = mod.Lookup(gv->name())) work.push_back(callee);
      }
    });
  }
  return seen;
}

std::string LetBoundLoss::OpsText() const {
  std::string out;
  for (const auto& [name, n] : ops) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, n);
  return out;
}

std::string LetBoundLoss::FreeInputsText() const {
  std::string out;
  for (size_t i = 0; i < free_inputs.size() && i < 3; ++i) {
    out += (out.empty() ? "" : ", ") + free_inputs[i];
  }
  if (free_inputs.size() > 3) out += fmt::format(" and {} more", free_inputs.size() - 3);
  return out;
}

int LetBoundLoss::total() const {
  int n = 0;
  for (const auto& [name, count] : ops) n += count;
  return n;
}

const PreparedAway::Removed* PreparedAway::Find(const SpanKey& span) const {
  for (const Removed& r : removed) {
    if (r.span == span) return &r;
  }
  return nullptr;
}

std::string PreparedAway::Text(const Removed& r) const {
  return fmt::format(
      "folded, simplified or rewritten away by {}'s preparation pass {} (step {} of {}: {})",
      backend, r.pass, r.step, passes.size(), summaries[r.step - 1]);
}

}  // namespace carve
