#include "patterns/pattern_equal.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "patterns/expr_equal.h"
#include "patterns/predicate.h"

namespace carve {
namespace {

bool SameAttrs(std::span<const AttrEntry> a, std::span<const AttrEntry> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].value.kind() != b[i].value.kind() ||
        a[i].value != b[i].value) {
      return false;
    }
  }
  return true;
}

// Compares what a node holds besides its children.
bool SamePayload(const PatternNode* a, const PatternNode* b) {
  switch (a->kind()) {
    case PatternKind::kOp:
      return Cast<OperatorPattern>(a)->op() == Cast<OperatorPattern>(b)->op();
    case PatternKind::kExpr:
      return ExprStructurallyEqual(Cast<ExprPattern>(a)->expr(), Cast<ExprPattern>(b)->expr());
    case PatternKind::kVar:
      return Cast<VarPattern>(a)->name() == Cast<VarPattern>(b)->name();
    case PatternKind::kCall:
      return Cast<CallPattern>(a)->any_args() == Cast<CallPattern>(b)->any_args();
    case PatternKind::kTuple:
      return Cast<TuplePattern>(a)->any_fields() == Cast<TuplePattern>(b)->any_fields();
    case PatternKind::kTupleGetItem:
      return Cast<TupleGetItemPattern>(a)->index() == Cast<TupleGetItemPattern>(b)->index();
    case PatternKind::kFunction:
      return Cast<FunctionPattern>(a)->any_params() == Cast<FunctionPattern>(b)->any_params();
    case PatternKind::kAttr:
      return SameAttrs(Cast<AttrPattern>(a)->attrs(), Cast<AttrPattern>(b)->attrs());
    case PatternKind::kType:
      return Cast<TypePattern>(a)->type() == Cast<TypePattern>(b)->type();
    case PatternKind::kDType:
      return Cast<DTypePattern>(a)->dtype() == Cast<DTypePattern>(b)->dtype();
    case PatternKind::kShape: {
      auto x = Cast<ShapePattern>(a)->dims();
      auto y = Cast<ShapePattern>(b)->dims();
      return std::equal(x.begin(), x.end(), y.begin(), y.end());
    }
    case PatternKind::kCapture:
      return Cast<CapturePattern>(a)->name() == Cast<CapturePattern>(b)->name();
    case PatternKind::kWhere:
      return PredicateEqual(Cast<WherePattern>(a)->predicate(), Cast<WherePattern>(b)->predicate());
    case PatternKind::kInvalid:
      return *a->error() == *b->error();
    default:
      return true;
  }
}

std::vector<const PatternNode*> Kids(const PatternNode* p) {
  std::vector<const PatternNode*> out;
  if (const auto* rec = DynCast<RecursivePattern>(p)) {
    out.push_back(rec->target().get());
    return out;
  }
  for (const Pattern& c : p->children()) out.push_back(c.get());
  return out;
}

}  // namespace

bool PatternEqual(const Pattern& a, const Pattern& b, std::string* why) {
  absl::flat_hash_map<const PatternNode*, const PatternNode*> fwd, back;
  std::vector<std::pair<const PatternNode*, const PatternNode*>> todo = {{a.get(), b.get()}};
  auto fail = [&](const PatternNode* x, const PatternNode* y, std::string_view what) {
    if (why != nullptr) {
      *why = fmt::format("{}: {} vs {}", what, PatternKindName(x->kind()),
                         y ? PatternKindName(y->kind()) : "nothing");
    }
    return false;
  };
  while (!todo.empty()) {
    auto [x, y] = todo.back();
    todo.pop_back();
    if (x == nullptr || y == nullptr) {
      if (x != y) return fail(x ? x : y, nullptr, "missing node");
      continue;
    }
    auto f = fwd.find(x);
    auto r = back.find(y);
    if (f != fwd.end() || r != back.end()) {
      if (f == fwd.end() || r == back.end() || f->second != y) return fail(x, y, "sharing differs");
      continue;
    }
    fwd[x] = y;
    back[y] = x;
    if (x->kind() != y->kind()) return fail(x, y, "kinds differ");
    if (!SamePayload(x, y)) return fail(x, y, "contents differ");
    std::vector<const PatternNode*> xs = Kids(x), ys = Kids(y);
    if (xs.size() != ys.size()) return fail(x, y, "child counts differ");
    for (size_t i = 0; i < xs.size(); ++i) todo.emplace_back(xs[i], ys[i]);
  }
  return true;
}

}  // namespace carve
