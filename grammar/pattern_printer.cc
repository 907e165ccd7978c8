#include "grammar/pattern_printer.h"

#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "patterns/predicate.h"

namespace carve {
namespace {

// Printing levels, loosest first; a node printed where a tighter level is
// required gets parentheses.
enum Level { kDef = 0, kAlt = 1, kPostfix = 2, kPrimary = 3 };

struct Printed {
  std::string text;
  Level level;
};

std::string DimText(const Dim& d) {
  if (d.is_any()) return "?";
  return d.wide ? fmt::format("{}i64", d.value) : fmt::format("{}", d.value);
}

std::string DimPatternText(const DimPattern& d) {
  switch (d.kind) {
    case DimPattern::Kind::kAny:
      return "_";
    case DimPattern::Kind::kDynamic:
      return "?";
    case DimPattern::Kind::kValue:
      return fmt::format("{}", d.value);
  }
  return "_";
}

template <typename T, typename F>
std::string Join(std::span<const T> items, F&& f) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += f(items[i]);
  }
  return out;
}

// A type the parser reads back exactly (scalars as `Tensor[(), T]` so that a
// type constraint is not mistaken for a dtype constraint).
absl::StatusOr<std::string> TypeText(const Type* t) {
  if (const auto* tensor = DynCast<TensorType>(t)) {
    return fmt::format("Tensor[({}), {}]", Join(tensor->shape(), DimText),
                       tensor->dtype().ToString());
  }
  if (const auto* tuple = DynCast<TupleType>(t)) {
    std::string out = "(";
    for (size_t i = 0; i < tuple->fields().size(); ++i) {
      if (i > 0) out += ", ";
      auto f = TypeText(tuple->fields()[i]);
      if (!f.ok()) return f;
      out += *f;
    }
    return out + (tuple->fields().size() == 1 ? ",)" : ")");
  }
  return absl::InvalidArgumentError(
      fmt::format("the pattern language cannot write the type {}", TypeToString(t)));
}

std::string ScalarText(const NDArray& a) {
  DataType d = a.dtype();
  if (d.is_bool()) return a.data<uint8_t>()[0] ? "True" : "False";
  if (d.is_float()) {
    double v = a.GetAsDouble(0);
    std::string suffix = d.bits == 32 ? "f" : fmt::format("f{}", d.bits);
    if (std::isnan(v)) return "nanf" + suffix.substr(1);
    if (std::isinf(v)) return (v < 0 ? "-inff" : "inff") + suffix.substr(1);
    return (d.bits == 64 ? fmt::format("{}", v) : fmt::format("{}", float(v))) + suffix;
  }
  int64_t v = 0;
  switch (d.bits) {
    case 8:
      v = d.is_int() ? a.data<int8_t>()[0] : a.data<uint8_t>()[0];
      break;
    case 16:
      v = d.is_int() ? a.data<int16_t>()[0] : a.data<uint16_t>()[0];
      break;
    case 32:
      v = d.is_int() ? a.data<int32_t>()[0] : int64_t(a.data<uint32_t>()[0]);
      break;
    default:
      v = a.data<int64_t>()[0];
      break;
  }
  if (d.is_int() && d.bits == 32) return fmt::format("{}", v);
  if (d.bits == 64 && !d.is_int()) return fmt::format("{}u64", uint64_t(v));
  return fmt::format("{}{}{}", v, d.is_int() ? "i" : "u", d.bits);
}

class PatternPrinter {
 public:
  PatternPrinter(const absl::flat_hash_map<const PatternNode*, std::string>& names,
                 const PatternNode* root, std::string root_name)
      : names_(names), root_(root), root_name_(std::move(root_name)) {}

  absl::StatusOr<std::string> Run(const Pattern& p) {
    std::string text = Print(p.get(), kDef);
    if (!status_.ok()) return status_;
    return text;
  }

 private:
  std::string Print(const PatternNode* p, Level min_level) {
    Printed r = Node(p);
    return r.level < min_level ? "(" + r.text + ")" : r.text;
  }

  Printed Fail(std::string message) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(std::move(message));
    return {"_", kPrimary};
  }

  std::string Attrs(std::span<const AttrEntry> attrs) {
    return Join(attrs, [](const AttrEntry& a) {
      return fmt::format("{}={}", a.key, AttrLiteralToString(a.value));
    });
  }

  // `callee(args, attrs)`; `optional` prints `callee?(...)`.
  Printed CallText(const CallPattern* call, std::span<const AttrEntry> attrs, bool optional) {
    std::string out = Print(call->callee().get(), kPostfix) + (optional ? "?(" : "(");
    std::string args = call->any_args() ? "..." : Join(call->args(), [&](const Pattern& a) {
      return Print(a.get(), kDef);
    });
    out += args;
    if (!attrs.empty()) out += (args.empty() ? "" : ", ") + Attrs(attrs);
    return {out + ")", kPostfix};
  }

  // The call an alternation's right side holds, when it is `f(left, ...)`
  // (or with attributes): printed as the optional call `f?(left, ...)`.
  Printed Alternation(const AltPattern* alt) {
    const PatternNode* right = alt->right().get();
    std::span<const AttrEntry> attrs;
    if (const auto* a = DynCast<AttrPattern>(right); a && !a->attrs().empty() && !Named(a)) {
      attrs = a->attrs();
      right = a->inner().get();
    }
    const auto* call = DynCast<CallPattern>(right);
    if (call != nullptr && !Named(call) && !call->any_args() && !call->args().empty() &&
        call->args()[0].get() == alt->left().get()) {
      return CallText(call, attrs, /*optional=*/true);
    }
    return {Print(alt->left().get(), kAlt) + " | " + Print(alt->right().get(), kPostfix), kAlt};
  }

  Printed Constraint(const PatternNode* p) {
    if (const auto* t = DynCast<TypePattern>(p)) {
      auto text = TypeText(t->type());
      if (!text.ok()) return Fail(std::string(text.status().message()));
      return {Print(t->inner().get(), kPostfix) + " : " + *text, kPostfix};
    }
    if (const auto* d = DynCast<DTypePattern>(p)) {
      return {Print(d->inner().get(), kPostfix) + " : " + d->dtype().ToString(), kPostfix};
    }
    const auto* s = Cast<ShapePattern>(p);
    std::string dims = Join(s->dims(), DimPatternText);
    bool wildcard = false;
    for (const DimPattern& d : s->dims()) wildcard |= d.kind == DimPattern::Kind::kAny;
    const auto* dtype = DynCast<DTypePattern>(s->inner().get());
    if (wildcard && dtype != nullptr && !Named(dtype)) {
      return {fmt::format("{} : Tensor[({}), {}]", Print(dtype->inner().get(), kPostfix), dims,
                          dtype->dtype().ToString()),
              kPostfix};
    }
    return {fmt::format("{} : Tensor[({}), _]", Print(s->inner().get(), kPostfix), dims), kPostfix};
  }

  bool Named(const PatternNode* p) const { return p != root_ && names_.contains(p); }

  Printed Node(const PatternNode* p) {
    if (Named(p)) return {names_.at(p), kPrimary};
    // Text shares only through captures and names: a node reached twice
    // otherwise would re-parse as two nodes (op nodes are interchangeable).
    PatternKind kind = p->kind();
    if (kind != PatternKind::kOp && kind != PatternKind::kCapture &&
        kind != PatternKind::kRecursive && !printed_nodes_.insert(p).second) {
      return Fail(
          fmt::format("a shared {} sub-pattern has no capture or name; capture it "
                      "(`p as ?x`) to print it",
                      PatternKindName(kind)));
    }
    return KindText(p);
  }

  // The text of `p` by its kind (a dispatch: one case per kind).
  Printed KindText(const PatternNode* p) {
    switch (p->kind()) {
      case PatternKind::kWildcard:
        return {"_", kPrimary};
      case PatternKind::kOp:
        return {std::string(Cast<OperatorPattern>(p)->op()->name), kPrimary};
      case PatternKind::kExpr:
        return ExprText(Cast<ExprPattern>(p));
      case PatternKind::kVar: {
        const std::string& name = Cast<VarPattern>(p)->name();
        return {name.empty() ? "var" : fmt::format("var(\"{}\")", name), kPrimary};
      }
      case PatternKind::kConstant:
        return {"const", kPrimary};
      case PatternKind::kCall:
        return CallText(Cast<CallPattern>(p), {}, false);
      case PatternKind::kTuple:
        return TupleText(Cast<TuplePattern>(p));
      case PatternKind::kTupleGetItem: {
        const auto* g = Cast<TupleGetItemPattern>(p);
        std::string index = g->index() < 0 ? "_" : fmt::format("{}", g->index());
        return {Print(g->tuple().get(), kPostfix) + "." + index, kPostfix};
      }
      case PatternKind::kIf:
        return IfText(Cast<IfPattern>(p));
      case PatternKind::kLet:
        return LetText(Cast<LetPattern>(p));
      case PatternKind::kFunction:
        return FunctionText(Cast<FunctionPattern>(p));
      case PatternKind::kAlt:
        return Alternation(Cast<AltPattern>(p));
      case PatternKind::kAttr:
        return AttrText(Cast<AttrPattern>(p));
      case PatternKind::kType:
      case PatternKind::kDType:
      case PatternKind::kShape:
        return Constraint(p);
      case PatternKind::kDominator:
        return DominatorText(Cast<DominatorPattern>(p));
      case PatternKind::kCapture:
        return CaptureText(Cast<CapturePattern>(p));
      case PatternKind::kWhere: {
        const auto* w = Cast<WherePattern>(p);
        return {Print(w->inner().get(), kAlt) + " where " + PredicateToString(w->predicate()),
                kDef};
      }
      case PatternKind::kRecursive:
        return RecursiveText(Cast<RecursivePattern>(p));
      case PatternKind::kInvalid:
        return Fail(*p->error());
    }
    return Fail("unknown pattern kind");
  }

  Printed ExprText(const ExprPattern* e) {
    const auto* c = DynCast<Constant>(e->expr());
    if (c == nullptr || !c->is_scalar()) {
      return Fail("the pattern language can only write is_expr of scalar constants");
    }
    return {ScalarText(c->data()), kPrimary};
  }

  Printed TupleText(const TuplePattern* t) {
    if (t->any_fields()) return {"(...)", kPrimary};
    std::string fields = Join(t->fields(), [&](const Pattern& f) { return Print(f.get(), kDef); });
    return {"(" + fields + (t->fields().size() == 1 ? ",)" : ")"), kPrimary};
  }

  Printed IfText(const IfPattern* i) {
    return {fmt::format("if ({}) {{ {} }} else {{ {} }}", Print(i->cond().get(), kDef),
                        Print(i->then_branch().get(), kDef), Print(i->else_branch().get(), kDef)),
            kPrimary};
  }

  Printed LetText(const LetPattern* l) {
    return {fmt::format("let {} = {}; {}", Print(l->var().get(), kPostfix),
                        Print(l->value().get(), kDef), Print(l->body().get(), kAlt)),
            kDef};
  }

  Printed FunctionText(const FunctionPattern* f) {
    std::string params =
        f->any_params() ? "..."
                        : Join(f->params(), [&](const Pattern& x) { return Print(x.get(), kDef); });
    return {fmt::format("fn ({}) {{ {} }}", params, Print(f->body().get(), kDef)), kPrimary};
  }

  // has_attr(p, k=v), or the call form `op(args) {k=v}` when `p` is an
  // unnamed call.
  Printed AttrText(const AttrPattern* a) {
    const auto* call = DynCast<CallPattern>(a->inner().get());
    if (call != nullptr && !Named(call) && !a->attrs().empty()) {
      return CallText(call, a->attrs(), false);
    }
    std::string attrs = a->attrs().empty() ? "" : ", " + Attrs(a->attrs());
    return {fmt::format("has_attr({}{})", Print(a->inner().get(), kDef), attrs), kPrimary};
  }

  Printed DominatorText(const DominatorPattern* d) {
    return {fmt::format("dominates({}, {}, {})", Print(d->parent().get(), kDef),
                        Print(d->path().get(), kDef), Print(d->child().get(), kDef)),
            kPrimary};
  }

  // `inner as ?x` the first time, `?x` after (and for a bare capture).
  Printed CaptureText(const CapturePattern* c) {
    if (!printed_captures_.insert(c).second || c->is_bare()) return {"?" + c->name(), kPrimary};
    return {Print(c->inner().get(), kPostfix) + " as ?" + c->name(), kPostfix};
  }

  // A recursive reference prints as the name of the pattern it refers to.
  Printed RecursiveText(const RecursivePattern* r) {
    Pattern target = r->target();
    if (target.get() == root_ && !root_name_.empty()) return {root_name_, kPrimary};
    if (target && names_.contains(target.get())) return {names_.at(target.get()), kPrimary};
    return Fail(
        fmt::format("cannot print the recursive reference '{}' outside its pattern", r->name()));
  }

  const absl::flat_hash_map<const PatternNode*, std::string>& names_;
  const PatternNode* root_;
  std::string root_name_;
  absl::flat_hash_set<const PatternNode*> printed_captures_;
  absl::flat_hash_set<const PatternNode*> printed_nodes_;
  absl::Status status_;
};

absl::StatusOr<std::string> PrintWithNames(
    const Pattern& p, std::string_view name,
    const absl::flat_hash_map<const PatternNode*, std::string>& names) {
  return PatternPrinter(names, p.get(), std::string(name)).Run(p);
}

}  // namespace

absl::StatusOr<std::string> PrintPattern(const Pattern& p, std::string_view name) {
  return PrintWithNames(p, name, {});
}

std::string PrintTemplate(const Template& t) {
  auto operands = [&](std::string_view sep_attrs) {
    std::string out;
    for (size_t i = 0; i < t.operands().size(); ++i) {
      if (i > 0) out += ", ";
      out += PrintTemplate(*t.operands()[i]);
    }
    for (const AttrEntry& a : t.attrs()) {
      if (!out.empty()) out += ", ";
      out += fmt::format("{}={}", a.key, AttrLiteralToString(a.value));
    }
    return out;
  };
  switch (t.kind()) {
    case Template::Kind::kCapture:
      return "?" + t.capture();
    case Template::Kind::kCall:
      return fmt::format("{}({})", t.op()->name, operands(""));
    case Template::Kind::kTuple:
      return "(" + operands("") + (t.operands().size() == 1 ? ",)" : ")");
    case Template::Kind::kTupleGetItem:
      return fmt::format("{}.{}", PrintTemplate(*t.operands()[0]), t.index());
    case Template::Kind::kConstant:
      return ScalarText(t.constant()->data());
  }
  return "";
}

absl::StatusOr<std::string> PrintPatternLibrary(const PatternLibrary& library) {
  absl::flat_hash_map<const PatternNode*, std::string> names;
  std::string out;
  for (const NamedPattern& p : library.patterns()) {
    auto text = PrintWithNames(p.pattern, p.name, names);
    if (!text.ok()) return text.status();
    out += fmt::format("pattern {} = {};\n", p.name, *text);
    names.emplace(p.pattern.get(), p.name);
  }
  for (const RuleSpec& r : library.rules()) {
    auto text = PrintWithNames(r.lhs, r.name, names);
    if (!text.ok()) return text.status();
    out += fmt::format("rule {} = {} => {};\n", r.name, *text, PrintTemplate(*r.rhs));
  }
  for (const BackendSpec& b : library.backends()) {
    out += fmt::format("backend {} {{\n", b.name);
    for (size_t i = 0; i < b.ops.size();) {
      if (b.ops[i].pattern) {  // `op nn.conv2d(?x, const) where ...`
        auto text = PrintWithNames(b.ops[i].pattern, b.name, names);
        if (!text.ok()) return text.status();
        out += fmt::format("  op {};\n", *text);
        ++i;
        continue;
      }
      if (b.ops[i].predicate != nullptr) {
        out += fmt::format("  op {} where {};\n", b.ops[i].op->name,
                           PredicateToString(*b.ops[i].predicate));
        ++i;
        continue;
      }
      std::string run;
      for (; i < b.ops.size() && b.ops[i].predicate == nullptr; ++i) {
        run += (run.empty() ? "" : ", ") + std::string(b.ops[i].op->name);
      }
      out += fmt::format("  ops {};\n", run);
    }
    for (const NamedPattern& c : b.composites) {
      std::string short_name = c.name.substr(b.name.size() + 1);
      auto text = PrintWithNames(c.pattern, c.name, names);
      if (!text.ok()) return text.status();
      out += fmt::format("  composite {} = {};\n", short_name, *text);
    }
    out += "}\n";
  }
  return out;
}

}  // namespace carve
