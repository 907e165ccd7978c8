// carve.dataflow_pattern (TVM's builders and DFPattern methods: match,
// partition) and carve.patterns (the `.pat` DSL), plus why: the first
// constraint that fails where a pattern does not match.
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "backends/specs.h"
#include "bindings.h"
#include "callbacks.h"
#include "convert.h"
#include "errors.h"
#include "fmt/format.h"
#include "grammar/pattern_parser.h"
#include "grammar/pattern_printer.h"
#include "handles.h"
#include "passes/byoc/target.h"
#include "passes/infer/infer_type.h"
#include "patterns/builders.h"
#include "patterns/compile.h"
#include "patterns/explain.h"
#include "patterns/matcher.h"
#include "patterns/partition.h"
#include "patterns/query.h"
#include "patterns_handle.h"

namespace py = pybind11;

namespace carve::python {
namespace {

using PH = PatternHandle;

std::shared_ptr<const CompiledPattern> Compiled(const Pattern& p) {
  return ValueOrThrow(CompilePattern(p));
}

// The compiled pattern, with `expr` typed first when the pattern reads types
// and `expr` has none: TVM's matcher infers types on demand, so
// has_dtype(...).match(untyped) holds there when the annotations say so.
std::shared_ptr<const CompiledPattern> CompiledFor(const Pattern& p, const Expr* expr) {
  std::shared_ptr<const CompiledPattern> compiled = Compiled(p);
  if (compiled->needs_types() && expr->checked_type() == nullptr) {
    ValueOrThrow(InferExprType(expr));
  }
  return compiled;
}

// A pattern argument: a pattern, or an expression (TVM's is_expr).
Pattern ToPattern(const py::handle& x) {
  if (py::isinstance<PH>(x)) return x.cast<const PH&>().pattern;
  if (py::isinstance<ExprHandle>(x)) {
    const ExprHandle& h = x.cast<const ExprHandle&>();
    return IsExpr(h.expr, h.arena);
  }
  throw py::type_error(fmt::format("expected a pattern, got {}", std::string(py::repr(x))));
}

std::vector<Pattern> ToPatterns(const py::sequence& items) {
  std::vector<Pattern> out;
  for (py::handle item : items) out.push_back(ToPattern(item));
  return out;
}

std::vector<AttrEntry> AttrEntries(const py::dict& attrs) {
  std::vector<AttrEntry> entries;
  for (auto [key, value] : attrs) {
    entries.push_back({InternString(std::string(py::str(key))), PyToAttrValue(value)});
  }
  return entries;
}

std::vector<DimPattern> Dims(const py::sequence& shape) {
  std::vector<DimPattern> dims;
  for (py::handle d : shape) {
    if (d.is_none()) dims.push_back(DimPattern::Any());
    else if (py::isinstance<py::str>(d) && d.cast<std::string>() == "?") dims.push_back(DimPattern::Dynamic());
    else if (!py::isinstance<py::int_>(d) && !py::hasattr(d, "__index__")) {
      throw py::type_error(fmt::format(
          "a shape dimension is an int, None (any) or '?' (dynamic), not {}",
          std::string(py::repr(d))));
    } else {
      // A negative extent made a pattern that matches nothing, silently.
      const int64_t v = py::reinterpret_borrow<py::object>(d).attr("__index__")().cast<int64_t>();
      if (v < 0) {
        throw py::value_error(fmt::format(
            "a shape dimension is 0 or more (None: any, '?': dynamic), not {}", v));
      }
      dims.push_back(DimPattern(v));
    }
  }
  return dims;
}

// The explanation as a Python object (carve.dataflow_pattern.Explanation).
py::object ExplanationToPy(const Explanation& e, std::string_view name) {
  static const char* kVerdicts[] = {"matched", "no_match", "rejected", "claimed"};
  py::dict d;
  d["verdict"] = kVerdicts[int(e.verdict)];
  d["matched"] = e.matched();
  d["reason"] = e.reason;
  d["path"] = PathToString(e.path);
  d["text"] = RenderExplanation(e, name);
  return py::module_::import("carve.dataflow_pattern").attr("Explanation")(**d);
}

py::object Why(const PH& p, const ExprHandle& node, const py::object& root, const std::string& name) {
  if (root.is_none()) return ExplanationToPy(Explain(CompiledFor(p.pattern, node.expr), node.expr), name);
  const ExprHandle& r = root.cast<const ExprHandle&>();
  auto compiled = CompiledFor(p.pattern, r.expr);
  return ExplanationToPy(ExplainInGraph(compiled, r.expr, node.expr), name);
}

py::object Partition(const PH& p, const ExprHandle& expr, const py::object& attrs, const py::object& check) {
  std::shared_ptr<Arena> build = BuildArena();
  KeepAlive(build, expr.arena);
  PartitionOptions options;
  if (!attrs.is_none()) options.attrs = AttrEntries(attrs.cast<py::dict>());
  if (!check.is_none()) {
    options.check = [check](const Expr* root) { return CallPredicate(check, root); };
  }
  CompiledFor(p.pattern, expr.expr);  // types expr if the pattern reads types
  absl::StatusOr<const Expr*> result = WithCallbacks(
      expr.arena, [&] { return carve::Partition(p.pattern, expr.expr, build.get(), options); });
  return WrapExpr(build, ValueOrThrow(std::move(result)));
}

py::list Captures(const std::shared_ptr<Arena>& arena,
                  const std::vector<std::pair<std::string, const Expr*>>& captures) {
  py::list out;
  for (const auto& [name, e] : captures) {
    if (e != nullptr) out.append(py::make_tuple(name, WrapExpr(arena, e)));
  }
  return out;
}

void BindPatternClass(py::module_& m) {
  py::class_<PH>(m, "DFPattern")
      .def("__call__", [](const PH& p, py::args args) {
        if (args.size() == 1 && args[0].is_none()) return PH{p.pattern.CallAnyArgs()};  // TVM p(None)
        return PH{p.pattern(ToPatterns(args))};
      })
      .def("__or__", [](const PH& a, const py::object& b) { return PH{a.pattern | ToPattern(b)}; })
      .def("__add__", [](const PH& a, const py::object& b) { return PH{a.pattern + ToPattern(b)}; })
      .def("__sub__", [](const PH& a, const py::object& b) { return PH{a.pattern - ToPattern(b)}; })
      .def("__mul__", [](const PH& a, const py::object& b) { return PH{a.pattern * ToPattern(b)}; })
      .def("__truediv__", [](const PH& a, const py::object& b) { return PH{a.pattern / ToPattern(b)}; })
      .def("optional", [](const PH& p, const py::function& f) {
        return PH{p.pattern.Optional([&f](const Pattern& x) { return ToPattern(f(PH{x})); })};
      }, py::arg("option_constructor"))
      .def("has_attr", [](const PH& p, const py::dict& attrs) { return PH{p.pattern.HasAttr(AttrEntries(attrs))}; })
      .def("has_type", [](const PH& p, const py::object& t) { return PH{p.pattern.HasType(PyToType(t))}; })
      .def("has_dtype", [](const PH& p, const std::string& d) { return PH{p.pattern.HasDType(d)}; })
      .def("has_shape", [](const PH& p, const py::sequence& s) { return PH{p.pattern.HasShape(Dims(s))}; })
      .def("dominates", [](const PH& child, const PH& parent, const py::object& path) {
        return PH{child.pattern.Dominates(parent.pattern, path.is_none() ? Wildcard() : ToPattern(path))};
      }, py::arg("parent"), py::arg("path") = py::none())
      .def("capture", [](const PH& p, const std::string& name) { return PH{p.pattern.As(name)}; })
      .def("match", [](const PH& p, const ExprHandle& e) {
        Matcher matcher(CompiledFor(p.pattern, e.expr), nullptr);
        return matcher.Match(e.expr);
      }, py::arg("expr"))
      .def("partition", Partition, py::arg("expr"), py::arg("attrs") = py::none(),
           py::arg("check") = py::none())
      .def("why", Why, py::arg("expr"), py::arg("root") = py::none(), py::arg("name") = "pattern")
      .def("find_matches", [](const PH& p, const ExprHandle& e) {
        py::list out;
        for (const FoundMatch& f : FindMatches(CompiledFor(p.pattern, e.expr), e.expr)) {
          out.append(py::make_tuple(WrapExpr(e.arena, f.root), Captures(e.arena, f.captures)));
        }
        return out;
      })
      .def("__str__", [](const PH& p) { return ValueOrThrow(PrintPattern(p.pattern)); })
      .def("__repr__", [](const PH& p) {
        absl::StatusOr<std::string> text = PrintPattern(p.pattern);
        return text.ok() ? fmt::format("DFPattern({})", *text) : std::string("DFPattern(...)");
      });
}

void BindBuilders(py::module_& m) {
  m.def("wildcard", []() { return PH{Wildcard()}; });
  m.def("is_op", [](const std::string& name) { return PH{IsOp(name)}; });
  m.def("is_var", [](const std::string& name) { return PH{IsVar(name)}; }, py::arg("name") = "");
  m.def("is_constant", []() { return PH{IsConstant()}; });
  m.def("is_expr", [](const ExprHandle& e) { return PH{IsExpr(e.expr, e.arena)}; });
  m.def("is_tuple", [](const py::object& fields) {
    if (fields.is_none()) return PH{IsAnyTuple()};
    return PH{IsTuple(ToPatterns(fields))};
  });
  m.def("is_tuple_get_item", [](const py::object& tuple, const py::object& index) {
    return PH{IsTupleGetItem(ToPattern(tuple), index.is_none() ? TupleGetItemPattern::kAnyIndex : index.cast<int>())};
  }, py::arg("tuple_value"), py::arg("index") = py::none());
  m.def("is_if", [](const py::object& c, const py::object& t, const py::object& e) {
    return PH{IsIf(ToPattern(c), ToPattern(t), ToPattern(e))};
  });
  m.def("is_let", [](const py::object& v, const py::object& value, const py::object& body) {
    return PH{IsLet(ToPattern(v), ToPattern(value), ToPattern(body))};
  });
  m.def("function_pattern", [](const py::object& params, const py::object& body) {
    if (params.is_none()) return PH{IsFunctionAnyParams(ToPattern(body))};
    return PH{IsFunction(ToPatterns(params), ToPattern(body))};
  });
  m.def("dominates", [](const PH& parent, const PH& path, const PH& child) {
    return PH{Dominates(parent.pattern, path.pattern, child.pattern)};
  });
}

// The pattern named `name` in the library: a pattern, a rule's left side
// or a backend's composite.
PH LibraryPattern(const PatternLibraryHandle& l, const std::string& name) {
  if (const NamedPattern* p = l.library->FindPattern(name)) return PH{p->pattern};
  if (const RuleSpec* r = l.library->FindRule(name)) return PH{r->lhs};
  for (const BackendSpec& b : l.library->backends()) {
    for (const NamedPattern& c : b.composites) {
      if (c.name == name) return PH{c.pattern};
    }
  }
  throw py::key_error(fmt::format("the pattern file defines no pattern '{}'", name));
}

// carve.patterns.PatternLibrary: what a .pat file defines.
void BindLibraryClass(py::module_& m) {
  py::class_<PatternLibraryHandle>(m, "PatternLibrary")
      .def_property_readonly("patterns", [](const PatternLibraryHandle& l) {
        py::dict out;
        for (const NamedPattern& p : l.library->patterns()) out[py::str(p.name)] = PH{p.pattern};
        return out;
      })
      .def_property_readonly("rules", [](const PatternLibraryHandle& l) {
        std::vector<std::string> names;
        for (const RuleSpec& r : l.library->rules()) names.push_back(r.name);
        return names;
      })
      .def_property_readonly("backends", [](const PatternLibraryHandle& l) {
        std::vector<std::string> names;
        for (const BackendSpec& b : l.library->backends()) names.push_back(b.name);
        return names;
      })
      .def("__getitem__", LibraryPattern)
      .def("table", [](const PatternLibraryHandle& l, const py::object& backend) {
        // MergeComposite's argument: (name, pattern) in priority order.
        py::list out;
        for (const BackendSpec& b : l.library->backends()) {
          if (!backend.is_none() && b.name != backend.cast<std::string>()) continue;
          for (const NamedPattern& c : b.composites) out.append(py::make_tuple(c.name, PH{c.pattern}));
        }
        return out;
      }, py::arg("backend") = py::none())
      .def("register", [](const PatternLibraryHandle& l) {
        std::vector<std::string> names;
        for (const TargetSpecPtr& spec : TargetSpecsOf(*l.library)) {
          TargetRegistry::Global().Register(spec);
          names.push_back(spec->name());
        }
        return names;
      })
      .def("__str__", [](const PatternLibraryHandle& l) { return ValueOrThrow(PrintPatternLibrary(*l.library)); });
}

// Pattern files and patterns from text, and the built-in backends' specs.
void BindLibraryLoaders(py::module_& m) {
  m.def("parse_patterns", [](const std::string& text, const std::string& source_name) {
    return PatternLibraryHandle{std::make_shared<const PatternLibrary>(ValueOrThrow(ParsePatternFile(source_name, text)))};
  }, py::arg("text"), py::arg("source_name") = "<string>");
  m.def("load_patterns", [](const std::string& path) {
    return PatternLibraryHandle{std::make_shared<const PatternLibrary>(ValueOrThrow(LoadPatternFile(path)))};
  }, py::arg("path"));
  m.def("parse_pattern", [](const std::string& text, const py::object& library) {
    const PatternLibrary* lib = library.is_none() ? nullptr : library.cast<const PatternLibraryHandle&>().library.get();
    Pattern p = ValueOrThrow(ParsePattern("<pattern>", text, lib));
    ThrowIfError(p.status());
    return PH{p};
  }, py::arg("text"), py::arg("library") = py::none());
  m.def("builtin_backends", []() {
    std::vector<std::string> names;
    for (std::string_view n : BuiltinBackendNames()) names.emplace_back(n);
    return names;
  });
  m.def("builtin_spec", [](const std::string& name) {
    return PatternLibraryHandle{
        std::make_shared<const PatternLibrary>(ValueOrThrow(LoadBuiltinSpecFile(name)))};
  }, py::arg("name"));
}

}  // namespace

void BindPatterns(py::module_& m) {
  BindPatternClass(m);
  BindBuilders(m);
  BindLibraryClass(m);
  BindLibraryLoaders(m);
}

}  // namespace carve::python
