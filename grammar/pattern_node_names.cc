#include "grammar/pattern_node_names.h"

#include <cctype>

#include "fmt/format.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "ir/visit.h"

namespace carve {
namespace {

// Inlined nodes are named by their text, cut to one short line.
constexpr size_t kMaxTextName = 60;

// The `%N` of a node whose printed text starts at `begin`, when the text in
// front of it reads `%N = ` at the start of a statement; "" otherwise.
std::string GraphNameBefore(std::string_view text, size_t begin) {
  size_t i = begin;
  while (i > 0 && text[i - 1] == ' ') --i;
  if (i == 0 || text[i - 1] != '=') return "";
  --i;
  while (i > 0 && text[i - 1] == ' ') --i;
  size_t end = i;
  while (i > 0 && std::isdigit(static_cast<unsigned char>(text[i - 1]))) --i;
  if (i == end || i == 0 || text[i - 1] != '%') return "";
  --i;
  if (i > 0 && text[i - 1] != ' ' && text[i - 1] != '\n') return "";
  return std::string(text.substr(i, end - i));
}

}  // namespace

absl::StatusOr<NodeNames> NodeNames::ForModule(const Module& mod) {
  NodeNames names;
  PrintOptions options;  // as `carve fmt FILE`
  names.text_ = PrintModule(mod, options);
  absl::StatusOr<Module> reparsed = ParseModule("<printed>", names.text_);
  if (!reparsed.ok()) return reparsed.status();
  names.module_ = std::make_unique<Module>(std::move(*reparsed));
  for (const auto& [gv, fn] : names.module_->Functions()) names.NameFunction(gv, fn);
  return names;
}

void NodeNames::NameFunction(const GlobalVar* gv, const Function* fn) {
  PostOrderVisit(fn, [&](const Expr* e) {
    if (const auto* v = DynCast<Var>(e)) {
      by_name_.try_emplace(fmt::format("%{}", v->name()), Named{e, fn});
      return;
    }
    if (const auto* f = DynCast<Function>(e)) {
      for (const Var* p : f->params()) roles_.try_emplace(p, "a parameter");
    } else if (const auto* l = DynCast<Let>(e)) {
      roles_.try_emplace(l->var(), "a let-bound variable");
    }
    if (Isa<OpExpr>(e) || Isa<GlobalVar>(e) || !e->span().valid()) return;
    std::string name = GraphNameBefore(text_, e->span().begin);
    if (name.empty()) return;
    by_name_.try_emplace(name, Named{e, fn});
    names_.try_emplace(e, std::move(name));
  });
  std::string global = fmt::format("@{}", gv->name());
  names_.try_emplace(fn, "def " + global);
  if (names_.try_emplace(fn->body(), global).second) by_name_.try_emplace(global, Named{fn->body(), fn});
}

std::string NodeNames::Name(const Expr* e) const {
  if (auto it = names_.find(e); it != names_.end()) return it->second;
  if (const auto* v = DynCast<Var>(e)) return fmt::format("%{}", v->name());
  if (const auto* g = DynCast<GlobalVar>(e)) return fmt::format("@{}", g->name());
  if (const auto* op = DynCast<OpExpr>(e)) return std::string(op->name());
  const Span s = e->span();
  if (!s.valid() || s.end > text_.size() || s.begin >= s.end) return "";
  std::string_view t = std::string_view(text_).substr(s.begin, s.end - s.begin);
  size_t cut = std::min(t.find('\n'), kMaxTextName);
  if (cut >= t.size()) return std::string(t);
  return fmt::format("{}...", t.substr(0, cut));
}

std::string NodeNames::Role(const Expr* e) const {
  if (!Isa<Var>(e)) return "";
  auto it = roles_.find(e);
  return it != roles_.end() ? it->second : "a free variable";
}

bool NodeNames::HasHandle(const Expr* e) const {
  return Isa<Var>(e) || Isa<GlobalVar>(e) || names_.contains(e);
}

NodeNames::Named NodeNames::Lookup(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it != by_name_.end() ? it->second : Named{};
}

}  // namespace carve
