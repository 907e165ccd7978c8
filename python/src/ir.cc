// carve.ir and the IR classes: IRModule, the expression classes, types;
// parse / load, the text printer, structural equality.
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "absl/container/flat_hash_set.h"
#include "bindings.h"
#include "convert.h"
#include "errors.h"
#include "fmt/format.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "handles.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "ir/tensor_size.h"
#include "ir/visit.h"
#include "ir_util.h"
#include "passes/infer/type_annotations.h"
#include "support/diagnostics.h"

namespace py = pybind11;

namespace carve::python {

ExprVars VarsOf(const Expr* expr) {
  // Each node is visited once, children first; a binder is a child of its
  // let or function ahead of the body, so it is met at its binding site.
  absl::flat_hash_set<const Var*> bound;
  absl::flat_hash_set<const Var*> met;
  ExprVars vars;
  auto meet = [&](const Var* v) {
    if (met.insert(v).second) vars.all.push_back(v);
  };
  PostOrderVisit(expr, [&](const Expr* e) {
    if (const auto* v = DynCast<Var>(e)) meet(v);
    if (const auto* l = DynCast<Let>(e)) bound.insert(l->var());
    if (const auto* f = DynCast<Function>(e)) bound.insert(f->params().begin(), f->params().end());
    if (const auto* m = DynCast<Match>(e)) {
      for (const Clause& clause : m->clauses()) {
        // A pattern variable its clause never reads is met only here.
        ForEachPatternVar(clause.lhs, [&](const Var* v) {
          bound.insert(v);
          meet(v);
        });
      }
    }
  });
  for (const Var* v : vars.all) (bound.contains(v) ? vars.bound : vars.free).push_back(v);
  return vars;
}

void RebaseOntoBuildArena(ModuleHandle& handle) {
  std::shared_ptr<Arena> build = BuildArena();
  if (handle.mod.arena() == build.get()) return;
  KeepAlive(build, handle.mod.shared_arena());
  Module rebased(build);
  for (const auto& [gv, fn] : handle.mod.Functions()) rebased.Add(gv, fn);
  rebased.set_meta_compiler_attrs(handle.mod.meta_compiler_attrs());
  handle.mod = std::move(rebased);
}

Module ModuleFromExpr(const ExprHandle& handle) {
  std::shared_ptr<Arena> build = BuildArena();
  KeepAlive(build, handle.arena);
  const Function* fn = DynCast<Function>(handle.expr);
  if (fn == nullptr) {
    // TVM's IRModule.from_expr: the free variables become the parameters.
    std::vector<const Var*> params = VarsOf(handle.expr).free;
    fn = IRBuilder(build.get()).MakeFunction(params, handle.expr);
  }
  Module mod(build);
  mod.Add("main", fn);
  return mod;
}

namespace {

PrintOptions TextOptions(bool header, bool show_meta_data) {
  PrintOptions options;
  options.show_types = true;  // TVM prints the checked types it has
  options.show_metadata = show_meta_data;
  options.header = header;
  return options;
}

Module Typed(absl::StatusOr<Module> parsed) {
  Module mod = ValueOrThrow(std::move(parsed));
  // TVM's parser ends with InferType, which also fills missing annotations.
  ThrowIfError(InferTypeAndAnnotate(mod).status());
  return mod;
}

const Function* LookupFunction(const ModuleHandle& m, const std::string& name) {
  const Function* fn = m.mod.Lookup(name);
  if (fn == nullptr) throw py::key_error(fmt::format("the module has no function @{}", name));
  return fn;
}

std::string GlobalName(const py::handle& key) {
  if (py::isinstance<GlobalVarHandle>(key)) {
    return std::string(Cast<GlobalVar>(key.cast<const GlobalVarHandle&>().expr)->name());
  }
  // A TypeError, not pybind11's RuntimeError "Unable to cast Python instance".
  if (!py::isinstance<py::str>(key)) {
    throw py::type_error(fmt::format("a module is indexed by a function name or a GlobalVar, not {}",
                                     std::string(py::str(key.get_type().attr("__name__")))));
  }
  return key.cast<std::string>();
}

// The span of a difference as `file:line:col`, or "".
std::string Where(const Span& span) {
  if (!span.valid()) return "";
  Diagnostic d;
  d.severity = Severity::kNote;
  d.span = span;
  d.message = "here";
  return RenderDiagnostic(d);
}

std::string DiffText(const StructuralDiff& diff) {
  std::string text = fmt::format("structural_equal check failed: {}\n  lhs: {}\n  rhs: {}",
                                 diff.message, diff.lhs_path, diff.rhs_path);
  for (const Span& span : {diff.lhs_span, diff.rhs_span}) {
    std::string where = Where(span);
    while (!where.empty() && where.back() == '\n') where.pop_back();
    if (!where.empty()) text += "\n" + where;
  }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// TVM's map_free_vars=False: free variables must be the same objects. Two
// structurally equal expressions correspond node for node in post order, so
// comparing their free variables in order of first use suffices.
bool SameFreeVars(const Expr* a, const Expr* b) { return VarsOf(a).free == VarsOf(b).free; }

std::optional<std::string> ExprDiff(const ExprHandle& a, const ExprHandle& b, bool map_free_vars) {
  if (std::optional<StructuralDiff> diff = StructuralDiffExprs(a.expr, b.expr)) {
    return DiffText(*diff);
  }
  if (!map_free_vars && !SameFreeVars(a.expr, b.expr)) {
    return std::string(
        "structural_equal check failed: the free variables differ (pass map_free_vars=True to "
        "map them)");
  }
  return std::nullopt;
}

std::optional<std::string> Diff(const py::handle& a, const py::handle& b, bool map_free_vars) {
  if (py::isinstance<ModuleHandle>(a) && py::isinstance<ModuleHandle>(b)) {
    std::optional<StructuralDiff> diff =
        StructuralDiffModules(a.cast<const ModuleHandle&>().mod, b.cast<const ModuleHandle&>().mod);
    if (diff) return DiffText(*diff);
    return std::nullopt;
  }
  if (py::isinstance<ExprHandle>(a) && py::isinstance<ExprHandle>(b)) {
    return ExprDiff(a.cast<const ExprHandle&>(), b.cast<const ExprHandle&>(), map_free_vars);
  }
  throw py::type_error("structural_equal compares two IRModules or two expressions");
}

std::string ShortRepr(const ExprHandle& h) {
  // A variable prints as a free_var declaration and a use; its repr is
  // what a list of mod["main"].params should show (TVM: Var(x, ty=...)).
  if (const auto* var = DynCast<Var>(h.expr)) {
    const Type* type = var->annotation() != nullptr ? var->annotation() : var->checked_type();
    return type == nullptr ? fmt::format("Var(%{})", var->name())
                           : fmt::format("Var(%{}: {})", var->name(), PrintType(type));
  }
  std::string text = PrintExpr(h.expr, TextOptions(false, false));
  // The first line that is not a free variable's declaration.
  size_t start = 0;
  while (text.compare(start, 9, "free_var ") == 0 && text.find('\n', start) != std::string::npos) {
    start = text.find('\n', start) + 1;
  }
  size_t newline = text.find('\n', start);
  const bool more = newline != std::string::npos && newline + 1 < text.size();
  return text.substr(start, newline == std::string::npos ? std::string::npos : newline - start) +
         (more ? " ..." : "");
}

// TVM's class name for a type of `kind`.
const char* TypeKindName(TypeKind kind) {
  switch (kind) {
    case TypeKind::kTensor: return "TensorType";
    case TypeKind::kTuple: return "TupleType";
    case TypeKind::kFunc: return "FuncType";
    case TypeKind::kTypeVar: return "TypeVar";
    case TypeKind::kIncomplete: return "IncompleteType";
    case TypeKind::kRef: return "RelayRefType";
    case TypeKind::kGlobalTypeVar: return "GlobalTypeVar";
    case TypeKind::kTypeCall: return "TypeCall";
  }
  return "Type";
}

// carve.relay.Type: printing, identity, and the fields of each kind.
void BindTypeClass(py::module_& m) {
  py::class_<TypeHandle>(m, "Type")
      .def("__str__", [](const TypeHandle& t) { return TypeToString(t.type); })
      .def("__repr__", [](const TypeHandle& t) { return TypeToString(t.type); })
      .def("__eq__", [](const TypeHandle& a, const TypeHandle& b) { return a.type == b.type; })
      .def("__hash__", [](const TypeHandle& t) { return std::hash<const void*>()(t.type); })
      .def_property_readonly("kind", [](const TypeHandle& t) { return TypeKindName(t.type->kind()); })
      .def_property_readonly("shape", [](const TypeHandle& t) -> py::object {
        const auto* tt = DynCast<TensorType>(t.type);
        if (tt == nullptr) throw py::attribute_error("only a TensorType has a shape");
        py::list dims;
        for (const Dim& d : tt->shape()) {
          if (d.is_any()) dims.append(py::none());
          else dims.append(d.value);
        }
        return py::tuple(dims);
      })
      .def_property_readonly("dtype", [](const TypeHandle& t) {
        const auto* tt = DynCast<TensorType>(t.type);
        if (tt == nullptr) throw py::attribute_error("only a TensorType has a dtype");
        return tt->dtype().ToString();
      })
      .def_property_readonly("fields", [](const TypeHandle& t) {
        const auto* tt = DynCast<TupleType>(t.type);
        if (tt == nullptr) throw py::attribute_error("only a TupleType has fields");
        py::list fields;
        for (const Type* f : tt->fields()) fields.append(WrapType(f));
        return fields;
      })
      .def_property_readonly("arg_types", [](const TypeHandle& t) {
        const auto* ft = DynCast<FuncType>(t.type);
        if (ft == nullptr) throw py::attribute_error("only a FuncType has arg_types");
        py::list params;
        for (const Type* p : ft->params()) params.append(WrapType(p));
        return params;
      })
      .def_property_readonly("ret_type", [](const TypeHandle& t) {
        const auto* ft = DynCast<FuncType>(t.type);
        if (ft == nullptr) throw py::attribute_error("only a FuncType has ret_type");
        return WrapType(ft->ret());
      });
}

// The type constructors (relay.TensorType, TupleType, FuncType).
void BindTypeConstructors(py::module_& m) {
  m.def("tensor_type", [](const std::vector<std::optional<int64_t>>& shape, const std::string& dtype) {
    std::optional<DataType> d = DataType::Parse(dtype);
    if (!d) ThrowIfError(absl::InvalidArgumentError(fmt::format("unknown dtype '{}'", dtype)));
    std::vector<Dim> dims;
    for (const auto& extent : shape) {
      // As the text parser: a negative extent is no dimension (it printed
      // a module that did not parse back). `?` is None (relay.Any()).
      if (extent && *extent < 0) {
        ThrowIfError(absl::InvalidArgumentError(
            fmt::format("invalid dimension {} (a dimension is 0 or more, or None for '?')",
                        *extent)));
      }
      dims.push_back(extent ? Dim{*extent, false} : Dim::Any());
    }
    const Type* type = TensorTy(*d, dims);
    if (const TensorType* big = FindOversizedTensor(type)) {
      ThrowIfError(absl::InvalidArgumentError(OversizedMessage(*big)));
    }
    return WrapType(type);
  });
  m.def("tuple_type", [](const py::list& fields) {
    std::vector<const Type*> types;
    for (py::handle f : fields) types.push_back(PyToType(f));
    return WrapType(TupleTy(types));
  });
  m.def("func_type", [](const py::list& params, const py::handle& ret) {
    std::vector<const Type*> types;
    for (py::handle p : params) types.push_back(PyToType(p));
    return WrapType(FuncTy(types, PyToType(ret)));
  });
}

void BindTypes(py::module_& m) {
  BindTypeClass(m);
  BindTypeConstructors(m);
}

py::list WrapAll(const std::shared_ptr<Arena>& arena, std::span<const Expr* const> exprs) {
  py::list out;
  for (const Expr* e : exprs) out.append(WrapExpr(arena, e));
  return out;
}

template <typename Node>
const Node* As(const ExprHandle& h) {
  return Cast<Node>(h.expr);
}

// carve.relay.Expr, the base of every node class: printing, identity and
// checked_type.
void BindExprBase(py::module_& m) {
  py::class_<ExprHandle>(m, "Expr")
      .def("astext", [](const ExprHandle& h, bool show_meta_data) {
        return PrintExpr(h.expr, TextOptions(true, show_meta_data));
      }, py::arg("show_meta_data") = true)
      // TVM's str() is PrettyPrint: no #[metadata] section (an imported
      // model's weights are megabytes of it); astext() has it by default.
      .def("__str__", [](const ExprHandle& h) { return PrintExpr(h.expr, TextOptions(false, false)); })
      .def("__repr__", ShortRepr)
      .def("same_as", [](const ExprHandle& a, const ExprHandle& b) { return a.expr == b.expr; })
      .def("__eq__", [](const ExprHandle& a, const py::object& b) {
        return py::isinstance<ExprHandle>(b) && a.expr == b.cast<const ExprHandle&>().expr;
      })
      .def("__ne__", [](const ExprHandle& a, const py::object& b) {
        return !(py::isinstance<ExprHandle>(b) && a.expr == b.cast<const ExprHandle&>().expr);
      })
      .def("__hash__", [](const ExprHandle& h) { return std::hash<const void*>()(h.expr); })
      .def_property_readonly("checked_type", [](const ExprHandle& h) {
        if (h.expr->checked_type() == nullptr) {
          ThrowIfError(absl::FailedPreconditionError(
              "the expression has no checked type yet: run carve.transform.InferType() on its "
              "module"));
        }
        return WrapType(h.expr->checked_type());
      });
}

// The nodes without children, with TVM's field names.
void BindLeafExprs(py::module_& m) {
  py::class_<VarHandle, ExprHandle>(m, "Var")
      .def_property_readonly("name_hint", [](const ExprHandle& h) { return std::string(As<Var>(h)->name()); })
      .def_property_readonly("type_annotation", [](const ExprHandle& h) { return WrapType(As<Var>(h)->annotation()); });
  py::class_<GlobalVarHandle, ExprHandle>(m, "GlobalVar")
      .def_property_readonly("name_hint", [](const ExprHandle& h) { return std::string(As<GlobalVar>(h)->name()); });
  py::class_<ConstantHandle, ExprHandle>(m, "Constant")
      .def_property_readonly("data", [](const ExprHandle& h) {
        // The constant's own buffer, read-only: IR nodes are immutable.
        return TensorToNumpy(As<Constant>(h)->data(), /*writeable=*/false);
      });
  py::class_<OpHandle, ExprHandle>(m, "Op")
      .def_property_readonly("name", [](const ExprHandle& h) { return std::string(As<OpExpr>(h)->name()); });
}

// The nodes with children but Function, with TVM's field names.
void BindCompoundExprs(py::module_& m) {
  py::class_<CallHandle, ExprHandle>(m, "Call")
      .def_property_readonly("op", [](const ExprHandle& h) { return WrapExpr(h.arena, As<Call>(h)->callee()); })
      .def_property_readonly("args", [](const ExprHandle& h) { return WrapAll(h.arena, As<Call>(h)->args()); })
      .def_property_readonly("attrs", [](const ExprHandle& h) { return AttrsToPy(As<Call>(h)->attrs()); });
  py::class_<TupleHandle, ExprHandle>(m, "Tuple")
      .def_property_readonly("fields", [](const ExprHandle& h) { return WrapAll(h.arena, As<Tuple>(h)->fields()); })
      .def("__len__", [](const ExprHandle& h) { return As<Tuple>(h)->fields().size(); });
  py::class_<TupleGetItemHandle, ExprHandle>(m, "TupleGetItem")
      .def_property_readonly("tuple_value", [](const ExprHandle& h) { return WrapExpr(h.arena, As<TupleGetItem>(h)->tuple()); })
      .def_property_readonly("index", [](const ExprHandle& h) { return As<TupleGetItem>(h)->index(); });
  py::class_<LetHandle, ExprHandle>(m, "Let")
      .def_property_readonly("var", [](const ExprHandle& h) { return WrapExpr(h.arena, As<Let>(h)->var()); })
      .def_property_readonly("value", [](const ExprHandle& h) { return WrapExpr(h.arena, As<Let>(h)->value()); })
      .def_property_readonly("body", [](const ExprHandle& h) { return WrapExpr(h.arena, As<Let>(h)->body()); });
  py::class_<IfHandle, ExprHandle>(m, "If")
      .def_property_readonly("cond", [](const ExprHandle& h) { return WrapExpr(h.arena, As<If>(h)->cond()); })
      .def_property_readonly("true_branch", [](const ExprHandle& h) { return WrapExpr(h.arena, As<If>(h)->then_branch()); })
      .def_property_readonly("false_branch", [](const ExprHandle& h) { return WrapExpr(h.arena, As<If>(h)->else_branch()); });
  // TVM's field names: RefCreate.value, RefRead.ref, RefWrite.ref / .value.
  py::class_<RefCreateHandle, ExprHandle>(m, "RefCreate")
      .def_property_readonly("value", [](const ExprHandle& h) { return WrapExpr(h.arena, As<RefCreate>(h)->value()); });
  py::class_<RefReadHandle, ExprHandle>(m, "RefRead")
      .def_property_readonly("ref", [](const ExprHandle& h) { return WrapExpr(h.arena, As<RefRead>(h)->ref()); });
  py::class_<RefWriteHandle, ExprHandle>(m, "RefWrite")
      .def_property_readonly("ref", [](const ExprHandle& h) { return WrapExpr(h.arena, As<RefWrite>(h)->ref()); })
      .def_property_readonly("value", [](const ExprHandle& h) { return WrapExpr(h.arena, As<RefWrite>(h)->value()); });
}

// relay.Function: its parts, and with_attr (a new function).
void BindFunctionExpr(py::module_& m) {
  py::class_<FunctionHandle, ExprHandle>(m, "Function")
      .def_property_readonly("params", [](const ExprHandle& h) {
        py::list out;
        for (const Var* p : As<Function>(h)->params()) out.append(WrapExpr(h.arena, p));
        return out;
      })
      .def_property_readonly("body", [](const ExprHandle& h) { return WrapExpr(h.arena, As<Function>(h)->body()); })
      .def_property_readonly("ret_type", [](const ExprHandle& h) { return WrapType(As<Function>(h)->ret_type()); })
      .def_property_readonly("attrs", [](const ExprHandle& h) { return AttrsToPy(As<Function>(h)->attrs()); })
      .def("with_attr", [](const ExprHandle& h, const std::string& key, const py::object& value) {
        const Function* fn = As<Function>(h);
        std::shared_ptr<Arena> build = BuildArena();
        KeepAlive(build, h.arena);
        const Attrs* attrs = WithAttr(fn->attrs(), key, PyToAttrValue(value));
        return WrapExpr(build, IRBuilder(build.get()).MakeFunctionWithParamsOf(fn, fn->body(), fn->ret_type(), attrs));
      }, py::arg("attr_key"), py::arg("attr_value"));
}

void BindExprs(py::module_& m) {
  BindExprBase(m);
  BindLeafExprs(m);
  BindCompoundExprs(m);
  BindFunctionExpr(m);
}

void BindModule(py::module_& m) {
  py::class_<ModuleHandle>(m, "IRModule",
                           "A Relay module (tvm.IRModule): global functions by name.\n\n"
                           "mod[\"main\"] is a function (KeyError when absent), mod[\"f\"] = fn adds one;\n"
                           "IRModule.from_expr(e) wraps an expression as @main. astext() and str()\n"
                           "print Relay text. Passes and partition_for return new modules.")
      .def(py::init([]() { return ModuleHandle{Module(BuildArena())}; }))
      .def_static("from_expr", [](const ExprHandle& e) { return ModuleHandle{ModuleFromExpr(e)}; },
                  py::arg("expr"))
      .def("__getitem__", [](const ModuleHandle& h, const py::object& key) {
        return WrapExpr(h.mod.shared_arena(), LookupFunction(h, GlobalName(key)));
      })
      .def("__setitem__", [](ModuleHandle& h, const py::object& key, const ExprHandle& fn) {
        const Function* f = DynCast<Function>(fn.expr);
        if (f == nullptr) throw py::type_error("a module maps names to Functions");
        RebaseOntoBuildArena(h);
        KeepAlive(h.mod.shared_arena(), fn.arena);
        h.mod.Add(GlobalName(key), f);
      })
      .def("__contains__", [](const ModuleHandle& h, const py::object& key) {
        return h.mod.Lookup(GlobalName(key)) != nullptr;
      })
      .def("__len__", [](const ModuleHandle& h) { return h.mod.size(); })
      .def_property_readonly("functions", [](const ModuleHandle& h) {
        py::dict out;
        // TVM's Map<GlobalVar, BaseFunc>: `for gv, f in mod.functions.items()`.
        for (const auto& [gv, fn] : h.mod.Functions()) {
          out[WrapExpr(h.mod.shared_arena(), gv)] = WrapExpr(h.mod.shared_arena(), fn);
        }
        return out;
      })
      .def("get_global_vars", [](const ModuleHandle& h) {
        py::list out;
        for (const auto& [gv, fn] : h.mod.Functions()) out.append(WrapExpr(h.mod.shared_arena(), gv));
        return out;
      })
      .def("get_global_var", [](const ModuleHandle& h, const std::string& name) {
        LookupFunction(h, name);
        return WrapExpr(h.mod.shared_arena(), h.mod.FindGlobalVar(name));
      })
      .def("astext", [](const ModuleHandle& h, bool show_meta_data) {
        return PrintModule(h.mod, TextOptions(true, show_meta_data));
      }, py::arg("show_meta_data") = true)
      // As TVM's str(mod) (PrettyPrint): the #[metadata] section left out.
      .def("__str__", [](const ModuleHandle& h) { return PrintModule(h.mod, TextOptions(false, false)); })
      .def("__repr__", [](const ModuleHandle& h) { return PrintModule(h.mod, TextOptions(false, false)); });
  m.def("parse", [](const std::string& text, const std::string& source_name) {
    return ModuleHandle{Typed(ParseModule(source_name, text))};
  }, py::arg("text"), py::arg("source_name") = "<string>",
     "Relay text (starting with #[version = \"0.0.5\"]) as a typed IRModule, as\n"
     "tvm.relay.fromtext. Errors raise CarveError with the source_name:line:col diagnostic.");
  m.def("load", [](const std::string& path) { return ModuleHandle{Typed(ParseModuleFile(path))}; },
        py::arg("path"), "A .relay file as a typed IRModule (parse() of its text).");
  m.def("parse_expr", [](const std::string& text, const std::string& source_name) {
    Module holder(BuildArena());
    const Expr* e = ValueOrThrow(ParseExpr(source_name, text, holder));
    return WrapExpr(holder.shared_arena(), e);
  }, py::arg("text"), py::arg("source_name") = "<string>");
}

}  // namespace

void BindIR(py::module_& m) {
  BindTypes(m);
  BindExprs(m);
  BindModule(m);
  m.def("structural_equal", [](const py::object& a, const py::object& b, bool map_free_vars) {
    return !Diff(a, b, map_free_vars).has_value();
  }, py::arg("lhs"), py::arg("rhs"), py::arg("map_free_vars") = false);
  m.def("assert_structural_equal", [](const py::object& a, const py::object& b, bool map_free_vars) {
    if (std::optional<std::string> diff = Diff(a, b, map_free_vars)) {
      ThrowText(*diff, absl::StatusCode::kInvalidArgument);
    }
  }, py::arg("lhs"), py::arg("rhs"), py::arg("map_free_vars") = false);
  m.def("structural_hash", [](const py::object& x) -> size_t {
    if (py::isinstance<ModuleHandle>(x)) return StructuralHash(x.cast<const ModuleHandle&>().mod);
    if (!py::isinstance<ExprHandle>(x)) {
      throw py::type_error(fmt::format("structural_hash takes an IRModule or an expression, not {}",
                                       std::string(py::str(x.get_type().attr("__name__")))));
    }
    return StructuralHash(x.cast<const ExprHandle&>().expr);
  }, py::arg("node"));
  // relay.analysis.free_vars / bound_vars / all_vars.
  auto vars = [](std::vector<const Var*> ExprVars::*which) {
    return [which](const ExprHandle& h) {
      ExprVars found = VarsOf(h.expr);
      py::list out;
      for (const Var* v : found.*which) out.append(WrapExpr(h.arena, v));
      return out;
    };
  };
  m.def("free_vars", vars(&ExprVars::free), py::arg("expr"));
  m.def("bound_vars", vars(&ExprVars::bound), py::arg("expr"));
  m.def("all_vars", vars(&ExprVars::all), py::arg("expr"));
}

}  // namespace carve::python
