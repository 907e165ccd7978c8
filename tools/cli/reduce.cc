#include "tools/cli/reduce.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "ir/module.h"
#include "ir/type.h"
#include "ir/visit.h"
#include "passes/infer/infer_type.h"
#include "support/cancellation.h"
#include "support/source.h"

namespace carve::cli {
namespace {

// Every candidate is parsed, and a parse registers its text with the
// SourceManager, which keeps it for the life of the process unless a Scope
// drops it: each phase and each validity check holds one around the modules
// it parses, so a reduction of a large file over thousands of candidates
// keeps its memory flat.
std::optional<Module> ParseTyped(const std::string& text) {
  absl::StatusOr<Module> mod = ParseModule("reduce-candidate.relay", text);
  if (!mod.ok() || !InferType(*mod).ok()) return std::nullopt;
  return std::move(*mod);
}

// The search state: the smallest interesting text so far.
class Search {
 public:
  Search(std::string text, const InterestingFn& interesting, ReduceStats& stats)
      : best_(std::move(text)), interesting_(interesting), stats_(stats) {}
  const std::string& best() const { return best_; }

  // Accepts `candidate` when it is smaller (`smaller` decides), valid and
  // still interesting.
  // Nothing is accepted once Ctrl-C asked to stop (every phase then ends).
  bool Try(const std::string& candidate, bool smaller) {
    if (!smaller || candidate == best_ || stopped()) return false;
    if (!IsValidRelay(candidate)) {
      ++stats_.invalid;
      return false;
    }
    ++stats_.candidates;
    if (!interesting_(candidate)) return false;
    ++stats_.accepted;
    best_ = candidate;
    return true;
  }
  bool TrySmaller(const std::string& candidate) {
    return Try(candidate, candidate.size() < best_.size());
  }
  bool stopped() const { return CancellationRequested(); }

 private:
  std::string best_;
  const InterestingFn& interesting_;
  ReduceStats& stats_;
};

// Replaces nodes by given expressions, not descending below them.
class Replacer : public ExprMutator {
 public:
  Replacer(Arena* arena, const absl::flat_hash_map<const Expr*, const Expr*>& map)
      : ExprMutator(arena), map_(map) {}

 protected:
  bool VisitChildren(const Expr* e) override { return !map_.contains(e); }
  const Expr* Rewrite(const Expr* e) override {
    auto it = map_.find(e);
    return it != map_.end() ? it->second : Rebuild(e);
  }

 private:
  const absl::flat_hash_map<const Expr*, const Expr*>& map_;
};

// @main's nodes a reduction may replace, in post-order (operands first):
// calls, tuples, tuple fields, ifs and lets outside nested functions.
std::vector<const Expr*> ReplaceableNodes(const Function* main) {
  std::vector<const Expr*> order = PostOrder(main->body());
  absl::flat_hash_set<const Expr*> inner;
  for (const Expr* e : order) {
    if (const Function* f = DynCast<Function>(e)) {
      for (const Expr* x : PostOrder(f->body())) inner.insert(x);
    }
  }
  std::vector<const Expr*> out;
  for (const Expr* e : order) {
    ExprKind k = e->kind();
    bool kind_ok = k == ExprKind::kCall || k == ExprKind::kTuple ||
                   k == ExprKind::kTupleGetItem || k == ExprKind::kIf || k == ExprKind::kLet;
    const Type* t = e->checked_type();
    if (kind_ok && !inner.contains(e) && t != nullptr && t->kind() != TypeKind::kFunc) {
      out.push_back(e);
    }
  }
  return out;
}

// Prints `mod` with @main's body replaced by `body` (parameters: those of
// @main it still uses, then `extra`), and restores @main.
// Parameter names kept even when unused (ReduceRelay's `pinned`).
thread_local const std::vector<std::string>* g_pinned = nullptr;

bool Pinned(const Var* p) {
  if (g_pinned == nullptr) return false;
  return std::find(g_pinned->begin(), g_pinned->end(), p->name()) != g_pinned->end();
}

std::string PrintWithBody(Module& mod, const Expr* body, const std::vector<const Var*>& extra) {
  const Function* main = mod.Lookup("main");
  absl::flat_hash_set<const Var*> used;
  for (const Expr* e : PostOrder(body)) {
    if (const Var* v = DynCast<Var>(e)) used.insert(v);
  }
  std::vector<const Var*> params;
  for (const Var* p : main->params()) {
    if (used.contains(p) || Pinned(p)) params.push_back(p);
  }
  for (const Var* p : extra) {
    if (used.contains(p)) params.push_back(p);
  }
  IRBuilder b = mod.builder();
  const Function* fn = b.MakeFunction(params, body, nullptr, main->attrs(), main->type_params());
  mod.Add("main", fn);
  std::string text = PrintModule(mod);
  mod.Add("main", main);
  return text;
}

// Replaces `nodes` by fresh parameters of their types; returns the text.
std::string ReplaceByParams(Module& mod, const std::vector<const Expr*>& nodes) {
  const Function* main = mod.Lookup("main");
  absl::flat_hash_set<std::string> names;
  for (const Expr* e : PostOrder(main->body())) {
    if (const Var* v = DynCast<Var>(e)) names.insert(std::string(v->name()));
  }
  for (const Var* p : main->params()) names.insert(std::string(p->name()));
  IRBuilder b = mod.builder();
  absl::flat_hash_map<const Expr*, const Expr*> map;
  std::vector<const Var*> extra;
  int counter = 0;
  for (const Expr* e : nodes) {
    std::string name;
    do name = fmt::format("r{}", counter++);
    while (names.contains(name));
    const Var* v = b.MakeVar(name, e->checked_type());
    map[e] = v;
    extra.push_back(v);
  }
  Replacer r(mod.arena(), map);
  return PrintWithBody(mod, r.Mutate(main->body()), extra);
}

// Phase 1: one node as the whole body, smallest subgraph first.
bool NewRoot(Search& s) {
  SourceManager::Scope sources;
  std::optional<Module> mod = ParseTyped(s.best());
  if (!mod || mod->Lookup("main") == nullptr) return false;
  const Function* main = mod->Lookup("main");
  for (const Expr* e : ReplaceableNodes(main)) {
    if (s.stopped()) return false;
    if (e == main->body()) continue;
    if (s.TrySmaller(PrintWithBody(*mod, e, {}))) return true;
  }
  return false;
}

// Phase 2: drop one field of a tuple body.
bool DropOutputs(Search& s) {
  bool progress = false;
  for (size_t i = 0; !s.stopped(); ++i) {
    SourceManager::Scope sources;
    std::optional<Module> mod = ParseTyped(s.best());
    if (!mod || mod->Lookup("main") == nullptr) return progress;
    const Tuple* t = DynCast<Tuple>(mod->Lookup("main")->body());
    if (t == nullptr || i >= t->fields().size() || t->fields().size() < 2) return progress;
    std::vector<const Expr*> fields(t->fields().begin(), t->fields().end());
    fields.erase(fields.begin() + i);
    const Expr* body = fields.size() == 1 ? fields[0] : mod->builder().MakeTuple(fields);
    if (s.TrySmaller(PrintWithBody(*mod, body, {}))) {
      progress = true;
      --i;
    }
  }
  return progress;
}

// Phase 3: delta debugging over @main's nodes.
bool ReplaceChunks(Search& s) {
  bool progress = false;
  size_t n = 0;
  {
    SourceManager::Scope sources;
    std::optional<Module> mod = ParseTyped(s.best());
    if (!mod || mod->Lookup("main") == nullptr) return false;
    n = ReplaceableNodes(mod->Lookup("main")).size();
  }
  for (size_t chunk = std::max<size_t>(n / 2, 1); chunk >= 1; chunk /= 2) {
    for (size_t start = 0; !s.stopped(); start += chunk) {
      SourceManager::Scope sources;
      std::optional<Module> mod = ParseTyped(s.best());
      if (!mod) return progress;
      std::vector<const Expr*> nodes = ReplaceableNodes(mod->Lookup("main"));
      if (start >= nodes.size()) break;
      std::vector<const Expr*> part(nodes.begin() + start,
                                    nodes.begin() + std::min(nodes.size(), start + chunk));
      if (s.TrySmaller(ReplaceByParams(*mod, part))) {
        progress = true;
        start -= chunk;  // the list shrank: retry the same position
      }
    }
    if (chunk == 1) break;
  }
  return progress;
}

// Phase 4: a node replaced by an operand of the same type.
bool Hoist(Search& s) {
  SourceManager::Scope sources;
  std::optional<Module> mod = ParseTyped(s.best());
  if (!mod || mod->Lookup("main") == nullptr) return false;
  const Function* main = mod->Lookup("main");
  for (const Expr* e : ReplaceableNodes(main)) {
    if (s.stopped()) return false;
    const Call* call = DynCast<Call>(e);
    if (call == nullptr) continue;
    for (const Expr* arg : call->args()) {
      if (arg->checked_type() != e->checked_type()) continue;  // types are interned
      absl::flat_hash_map<const Expr*, const Expr*> map = {{e, arg}};
      Replacer r(mod->arena(), map);
      if (s.TrySmaller(PrintWithBody(*mod, r.Mutate(main->body()), {}))) return true;
    }
  }
  return false;
}

// Phase 5: delete a global function other than @main.
bool DropFunctions(Search& s) {
  SourceManager::Scope sources;
  std::optional<Module> mod = ParseTyped(s.best());
  if (!mod) return false;
  for (const auto& [gv, fn] : mod->Functions()) {
    if (gv->name() == "main" || s.stopped()) continue;
    std::optional<Module> copy = ParseTyped(s.best());
    copy->Remove(gv->name());
    if (s.TrySmaller(PrintModule(*copy))) return true;
  }
  return false;
}

// The end of the attribute value starting at `p`: the next ',' or ')' at
// bracket depth 0 outside quotes.
size_t ValueEnd(const std::string& t, size_t p) {
  int depth = 0;
  bool quoted = false;
  for (; p < t.size(); ++p) {
    char c = t[p];
    if (quoted) {
      if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '[' || c == '(') ++depth;
    else if ((c == ']' || c == ')') && depth > 0) --depth;
    else if ((c == ',' || c == ')' || c == '\n') && depth == 0) return p;
  }
  return p;
}

// Phase 6: delete one `, name=value` (the attribute's default applies).
bool DropAttributes(Search& s) {
  bool progress = false;
  for (size_t p = 0;;) {
    const std::string& t = s.best();
    p = t.find('=', p);
    if (p == std::string::npos || s.stopped()) return progress;
    size_t name = p;
    while (name > 0 && (std::isalnum(uint8_t(t[name - 1])) || t[name - 1] == '_')) --name;
    if (name < 2 || t.compare(name - 2, 2, ", ") != 0 || name == p) {
      ++p;
      continue;
    }
    std::string candidate = t.substr(0, name - 2) + t.substr(ValueEnd(t, p + 1));
    if (s.TrySmaller(candidate)) {
      progress = true;
      p = name - 2;
    } else {
      ++p;
    }
  }
}

// Phase 7: shrink integer literals (not names, floats or the version).
bool ShrinkNumbers(Search& s) {
  bool progress = false;
  for (size_t p = 0; p < s.best().size() && !s.stopped(); ++p) {
    const std::string& t = s.best();
    if (!std::isdigit(uint8_t(t[p]))) continue;
    char before = p > 0 ? t[p - 1] : ' ';
    size_t end = p;
    while (end < t.size() && std::isdigit(uint8_t(t[end]))) ++end;
    char after = end < t.size() ? t[end] : ' ';
    bool integer = !(std::isalnum(uint8_t(before)) || before == '_' || before == '%' ||
                     before == '.' || before == '-' || after == '.' || after == 'f' ||
                     after == 'e' || std::isalpha(uint8_t(after)));
    if (!integer || (t.compare(0, 2, "#[") == 0 && p < t.find('\n')) || end - p > 9) {
      p = end;
      continue;
    }
    int64_t n = std::stoll(t.substr(p, end - p));
    for (int64_t m : {int64_t(1), n / 2, n - 1}) {
      if (m < 1 || m >= n) continue;
      std::string candidate = t.substr(0, p) + std::to_string(m) + t.substr(end);
      if (s.Try(candidate, true)) {
        progress = true;
        break;
      }
    }
    // The literal at p is now smaller or unchanged: move past it.
    while (p < s.best().size() && std::isdigit(uint8_t(s.best()[p]))) ++p;
  }
  return progress;
}

}  // namespace

absl::Status CheckValidRelay(const std::string& name, const std::string& text) {
  absl::StatusOr<Module> mod = ParseModule(name, text);
  if (!mod.ok()) return mod.status();
  return InferType(*mod);
}

bool IsValidRelay(const std::string& text) {
  SourceManager::Scope sources;
  return ParseTyped(text).has_value();
}

std::string ReduceRelay(const std::string& text, const InterestingFn& interesting,
                        ReduceStats* stats, const std::vector<std::string>& pinned) {
  g_pinned = &pinned;
  ReduceStats local;
  ReduceStats& st = stats ? *stats : local;
  Search s(text, interesting, st);
  // Start from carve's own printing of the module when it still shows the
  // behaviour: every later candidate is printed the same way.
  {
    SourceManager::Scope sources;
    if (std::optional<Module> mod = ParseTyped(text)) s.Try(PrintModule(*mod), true);
  }
  for (bool progress = true; progress && !s.stopped();) {
    progress = false;
    progress |= NewRoot(s);
    progress |= DropOutputs(s);
    progress |= ReplaceChunks(s);
    progress |= Hoist(s);
    progress |= DropFunctions(s);
    if (progress) continue;
    progress |= DropAttributes(s);
    progress |= ShrinkNumbers(s);
  }
  g_pinned = nullptr;
  st.interrupted = s.stopped();
  return s.best();
}

}  // namespace carve::cli
