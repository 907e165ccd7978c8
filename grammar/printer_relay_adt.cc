// Algebraic data types as TVM v0.16's relay_text_printer.cc writes them:
// type definitions (VisitType_(TypeDataNode)), match expressions
// (VisitExpr_(MatchNode)) and patterns (VisitPattern_). A constructor is an
// atom printed by name; a call of a nullary constructor prints without
// parentheses (CallText).
#include "grammar/printer_doc.h"
#include "grammar/printer_relay.h"

namespace carve::print_internal {
namespace {

size_t CountPatternVars(const AdtPattern* pattern) {
  size_t n = 0;
  ForEachPatternVar(pattern, [&n](const Var*) { ++n; });
  return n;
}

}  // namespace

std::string TypeDataText(const TypeData* data) {
  std::string out = "type ";
  out.append(data->header()->name());
  if (!data->type_vars().empty()) {
    out.push_back('[');
    for (size_t i = 0; i < data->type_vars().size(); ++i) {
      if (i > 0) out.append(", ");
      out.append(data->type_vars()[i]->name());
    }
    out.push_back(']');
  }
  // Doc::Brace: the body indented on its own lines; an empty body is an
  // indented empty line, as TVM writes it.
  out.append(" {\n  ");
  for (size_t i = 0; i < data->constructors().size(); ++i) {
    if (i > 0) out.append("\n  ");
    const Constructor* ctor = data->constructors()[i];
    out.append(ctor->name());
    if (!ctor->inputs().empty()) {
      out.push_back('(');
      for (size_t k = 0; k < ctor->inputs().size(); ++k) {
        if (k > 0) out.append(", ");
        out.append(TypeToString(ctor->inputs()[k]));
      }
      out.push_back(')');
    }
    out.push_back(',');
  }
  out.append("\n}");
  return out;
}

uint32_t RelayTextPrinter::ClauseRhsIndex(const Match* match, size_t k) {
  uint32_t index = 1;  // the data
  for (size_t i = 0; i < k; ++i) index += CountPatternVars(match->clauses()[i].lhs) + 1;
  return index + static_cast<uint32_t>(CountPatternVars(match->clauses()[k].lhs));
}

void RelayTextPrinter::AppendPattern(std::string* out, const AdtPattern* pattern,
                                     uint32_t node, uint32_t* slot_index) {
  switch (pattern->kind()) {
    case AdtPattern::Kind::kWildcard:
      out->push_back('_');
      return;
    case AdtPattern::Kind::kVar:
      AppendText(out, AllocVar(pattern->var(), Child(node, (*slot_index)++), /*free=*/false));
      return;
    case AdtPattern::Kind::kConstructor:
      out->append(pattern->constructor()->name());
      if (pattern->fields().empty()) return;
      break;
    case AdtPattern::Kind::kTuple:
      break;
  }
  out->push_back('(');
  for (size_t i = 0; i < pattern->fields().size(); ++i) {
    if (i > 0) out->append(", ");
    AppendPattern(out, pattern->fields()[i], node, slot_index);
  }
  out->push_back(')');
}

void RelayTextPrinter::StepMatch() {
  Frame& f = frames_.back();
  auto* match = Cast<Match>(f.expr);
  if (f.stage == 0) {
    f.doc = docs_.New();
    docs_[f.doc].append(match->complete() ? "match (" : "match? (");
    f.stage = 1;
    Push(Frame::kPrint, match->data(), Child(f.node, 0));
    return;
  }
  std::string* out = &docs_[f.doc];
  if (f.stage == 1) {
    AppendText(out, ret_);
    out->append(") {");
    AppendIndent(out);
    f.base = 0;
    f.link_node = 1;
    f.stage = 2;
  } else {  // a right-hand side is printed
    AppendText(out, ret_);
    AppendDedent(out);
    out->append("\n},");
    ++f.base;
  }
  if (f.base < match->clauses().size()) {
    const Clause& clause = match->clauses()[f.base];
    out->push_back('\n');
    AppendPattern(out, clause.lhs, f.node, &f.link_node);
    out->append(" => {");
    AppendIndent(out);
    out->push_back('\n');
    uint32_t rhs = Child(f.node, f.link_node++);
    Push(Frame::kScope, clause.rhs, rhs);
    return;
  }
  AppendDedent(out);
  out->append("\n}");
  ret_ = Text::Doc(f.doc);
  LeafDone(f.node, ret_);
  frames_.pop_back();
}

}  // namespace carve::print_internal
