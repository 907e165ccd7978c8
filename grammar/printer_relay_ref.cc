// References print as TVM's printer writes them: `ref(v)`, `ref_read(r)` and
// `ref_write(r, v)`, each operand printed (and bound) in order, then the
// node's type annotation.
#include "grammar/printer_relay.h"
#include "ir/visit.h"

namespace carve::print_internal {

Text RelayTextPrinter::RefText(const Expr* e, uint32_t node) {
  Text operands[2];
  size_t count = 0;
  ForEachChild(e, [&](const Expr* child) {
    operands[count] = FinishPrint(child, Child(node, count), false);
    ++count;
  });
  const char* keyword = e->kind() == ExprKind::kRefCreate ? "ref("
                        : e->kind() == ExprKind::kRefRead ? "ref_read("
                                                           : "ref_write(";
  size_t start = arena_.size();
  arena_.append(keyword);
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) arena_.append(", ");
    AppendText(&arena_, operands[i]);
  }
  arena_.push_back(')');
  AppendTypeInfo(&arena_, e);
  return Text::Arena(start, arena_.size() - start);
}

}  // namespace carve::print_internal
