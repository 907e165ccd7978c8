// Building expressions from Python (what carve.relay's var, const, op
// functions, Tuple, Let, If, RefCreate/RefRead/RefWrite, Function and Call use). Nodes go to the build
// arena (handles.h). Nothing is type-checked here: as in TVM, types come
// from InferType.
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.h"
#include "convert.h"
#include "errors.h"
#include "fmt/format.h"
#include "handles.h"
#include "ir/op.h"
#include "params.h"
#include "passes/fold/bind_params.h"

namespace py = pybind11;

namespace carve::python {
namespace {

// Nodes of `items` (Exprs), keeping their arenas alive from `build`.
std::vector<const Expr*> Nodes(const std::shared_ptr<Arena>& build, const py::sequence& items) {
  std::vector<const Expr*> nodes;
  for (py::handle item : items) {
    if (!py::isinstance<ExprHandle>(item)) {
      throw py::type_error(fmt::format("expected an expression, got {}",
                                       std::string(py::repr(item))));
    }
    const ExprHandle& h = item.cast<const ExprHandle&>();
    KeepAlive(build, h.arena);
    nodes.push_back(h.expr);
  }
  return nodes;
}

const Expr* Node(const std::shared_ptr<Arena>& build, const ExprHandle& h) {
  KeepAlive(build, h.arena);
  return h.expr;
}

bool IsInt(const AttrValue& v) { return v.kind() == AttrValue::Kind::kInt; }
bool IsIntList(const AttrValue& v) {
  if (v.kind() != AttrValue::Kind::kArray) return false;
  for (const AttrValue& x : v.as_array()) {
    if (!IsInt(x)) return false;
  }
  return true;
}

// `v` as a value of a field of type `type` (the forms the text parser
// accepts for it), or nullopt.
std::optional<AttrValue> FieldValue(const AttrValue& v, const AttrField& field) {
  if (v.is_null()) {
    switch (field.type) {
      case AttrType::kInts: case AttrType::kIntsArray: case AttrType::kDoubles:
      case AttrType::kInteger: case AttrType::kIntOrInts: case AttrType::kAny:
        return v;
      default:
        if (field.required) return v;
        return std::nullopt;
    }
  }
  switch (field.type) {
    case AttrType::kInt:
      if (IsInt(v) || v.kind() == AttrValue::Kind::kBool) return AttrValue::Int(v.as_int());
      return std::nullopt;
    case AttrType::kBool:
      if (v.kind() == AttrValue::Kind::kBool) return v;
      if (IsInt(v) && (v.as_int() == 0 || v.as_int() == 1)) return AttrValue::Bool(v.as_int());
      return std::nullopt;
    case AttrType::kDouble:
      if (IsInt(v) || v.kind() == AttrValue::Kind::kFloat) return AttrValue::Float(v.as_float());
      return std::nullopt;
    case AttrType::kString:
      if (v.kind() == AttrValue::Kind::kString) return v;
      return std::nullopt;
    case AttrType::kDType: {
      if (v.kind() != AttrValue::Kind::kString) return std::nullopt;
      std::optional<DataType> dtype = DataType::Parse(v.as_string());
      if (!dtype) return std::nullopt;
      return AttrValue::Str(dtype->ToString());
    }
    case AttrType::kInts:
      if (IsIntList(v)) return v;
      if (IsInt(v)) return AttrValue::Array({v});
      return std::nullopt;
    case AttrType::kIntsArray: {
      if (v.kind() != AttrValue::Kind::kArray) return std::nullopt;
      for (const AttrValue& x : v.as_array()) {
        if (!IsIntList(x)) return std::nullopt;
      }
      return v;
    }
    case AttrType::kDoubles: {
      if (v.kind() != AttrValue::Kind::kArray) return std::nullopt;
      std::vector<AttrValue> items;
      for (const AttrValue& x : v.as_array()) {
        if (!IsInt(x) && x.kind() != AttrValue::Kind::kFloat) return std::nullopt;
        items.push_back(AttrValue::Float(x.as_float()));
      }
      return AttrValue::Array(items);
    }
    case AttrType::kInteger:
      if (IsInt(v)) return v;
      return std::nullopt;
    case AttrType::kIntOrInts:
      if (IsInt(v) || IsIntList(v)) return v;
      return std::nullopt;
    case AttrType::kAny:
      return v;
  }
  return std::nullopt;
}

std::string FieldNames(const AttrsSchema& schema) {
  std::string names;
  for (const AttrField& f : schema.fields) names += (names.empty() ? "" : ", ") + std::string(f.name);
  return names;
}

// The op's attribute set from keyword values: every schema field, defaults
// for the ones not given.
const Attrs* OpAttrs(const OpInfo* op, const py::dict& given) {
  if (op->attrs == nullptr) {
    if (given.empty()) return nullptr;
    ThrowIfError(absl::InvalidArgumentError(fmt::format("operator '{}' takes no attributes", op->name)));
  }
  const AttrsSchema& schema = *op->attrs;
  std::vector<AttrEntry> entries;
  for (const AttrField& f : schema.fields) entries.push_back({f.name, f.default_value});
  for (auto [key, value] : given) {
    std::string name = py::str(key);
    int index = schema.FieldIndex(name);
    if (index < 0) {
      ThrowIfError(absl::InvalidArgumentError(fmt::format(
          "unknown attribute '{}' for '{}' (its attributes are: {})", name, op->name, FieldNames(schema))));
    }
    const AttrField& field = schema.fields[index];
    std::optional<AttrValue> v = FieldValue(PyToAttrValue(value), field);
    if (!v) {
      ThrowIfError(absl::InvalidArgumentError(fmt::format(
          "attribute '{}' of '{}' does not accept {}", name, op->name, std::string(py::repr(value)))));
    }
    entries[index].value = *v;
  }
  return InternAttrs(&schema, entries);
}

const OpInfo* FindOpOrThrow(const std::string& name) {
  const OpInfo* op = FindOp(name);
  if (op == nullptr) ThrowIfError(absl::InvalidArgumentError(UnknownOpMessage(name)));
  return op;
}

const Attrs* DictAttrs(const py::object& attrs) {
  const Attrs* out = EmptyAttrs();
  if (attrs.is_none()) return out;
  for (auto [key, value] : attrs.cast<py::dict>()) {
    out = WithAttr(out, std::string(py::str(key)), PyToAttrValue(value));
  }
  return out;
}

// Variables, constants and the op registry.
void BindLeafBuilders(py::module_& m) {
  m.def("make_var", [](const std::string& name, const py::object& type) {
    std::shared_ptr<Arena> build = BuildArena();
    const Type* annotation = type.is_none() ? nullptr : PyToType(type);
    return WrapExpr(build, IRBuilder(build.get()).MakeVar(name, annotation));
  }, py::arg("name"), py::arg("type_annotation") = py::none());
  m.def("make_constant", [](const py::array& data) {
    std::shared_ptr<Arena> build = BuildArena();
    return WrapExpr(build, IRBuilder(build.get()).MakeConstant(NumpyToTensor(data)));
  });
  m.def("get_op", [](const std::string& name) {
    return WrapExpr(BuildArena(), GetOp(FindOpOrThrow(name)));
  });
  m.def("op_info", [](const std::string& name) {
    const OpInfo* op = FindOpOrThrow(name);
    py::dict info;
    info["num_inputs"] = op->num_inputs;
    py::list args, attrs;
    for (std::string_view a : op->arg_names) args.append(std::string(a));
    if (op->attrs != nullptr) {
      for (const AttrField& f : op->attrs->fields) attrs.append(std::string(f.name));
    }
    info["arg_names"] = args;
    info["attr_names"] = attrs;
    return info;
  });
  m.def("op_names", []() {
    std::vector<std::string> names;
    for (const OpInfo* op : AllOps()) names.emplace_back(op->name);
    return names;
  });
}

// Calls of ops (attributes checked against the op's schema) and of other callees.
void BindCallBuilders(py::module_& m) {
  m.def("make_op_call", [](const std::string& name, const py::sequence& args, const py::dict& attrs) {
    const OpInfo* op = FindOpOrThrow(name);
    std::shared_ptr<Arena> build = BuildArena();
    std::vector<const Expr*> nodes = Nodes(build, args);
    if (op->num_inputs >= 0 && int(nodes.size()) != op->num_inputs) {
      ThrowIfError(absl::InvalidArgumentError(fmt::format(
          "{} expects {} arguments, got {}", op->name, op->num_inputs, nodes.size())));
    }
    const Attrs* call_attrs = OpAttrs(op, attrs);
    return WrapExpr(build, IRBuilder(build.get()).MakeCall(GetOp(op), nodes, call_attrs));
  }, py::arg("name"), py::arg("args"), py::arg("attrs") = py::dict());
  m.def("make_call", [](const ExprHandle& callee, const py::sequence& args) {
    std::shared_ptr<Arena> build = BuildArena();
    std::vector<const Expr*> nodes = Nodes(build, args);
    const Expr* fn = Node(build, callee);
    if (const OpExpr* op = DynCast<OpExpr>(fn)) {
      const Attrs* defaults = op->info()->attrs ? DefaultAttrs(op->info()->attrs) : nullptr;
      return WrapExpr(build, IRBuilder(build.get()).MakeCall(fn, nodes, defaults));
    }
    return WrapExpr(build, IRBuilder(build.get()).MakeCall(fn, nodes, nullptr));
  });
}

// Tuples, lets, ifs and references.
void BindStructureBuilders(py::module_& m) {
  m.def("make_tuple", [](const py::sequence& fields) {
    std::shared_ptr<Arena> build = BuildArena();
    return WrapExpr(build, IRBuilder(build.get()).MakeTuple(Nodes(build, fields)));
  });
  m.def("make_tuple_get_item", [](const ExprHandle& tuple, int index) {
    std::shared_ptr<Arena> build = BuildArena();
    return WrapExpr(build, IRBuilder(build.get()).MakeTupleGetItem(Node(build, tuple), index));
  });
  m.def("make_let", [](const ExprHandle& var, const ExprHandle& value, const ExprHandle& body) {
    std::shared_ptr<Arena> build = BuildArena();
    const Var* v = DynCast<Var>(Node(build, var));
    if (v == nullptr) throw py::type_error("Let binds a Var");
    return WrapExpr(build, IRBuilder(build.get()).MakeLet(v, Node(build, value), Node(build, body)));
  });
  m.def("make_if", [](const ExprHandle& cond, const ExprHandle& then_branch, const ExprHandle& else_branch) {
    std::shared_ptr<Arena> build = BuildArena();
    return WrapExpr(build, IRBuilder(build.get()).MakeIf(Node(build, cond), Node(build, then_branch),
                                                         Node(build, else_branch)));
  });
  m.def("make_ref_create", [](const ExprHandle& value) {
    std::shared_ptr<Arena> build = BuildArena();
    return WrapExpr(build, IRBuilder(build.get()).MakeRefCreate(Node(build, value)));
  });
  m.def("make_ref_read", [](const ExprHandle& ref) {
    std::shared_ptr<Arena> build = BuildArena();
    return WrapExpr(build, IRBuilder(build.get()).MakeRefRead(Node(build, ref)));
  });
  m.def("make_ref_write", [](const ExprHandle& ref, const ExprHandle& value) {
    std::shared_ptr<Arena> build = BuildArena();
    return WrapExpr(build, IRBuilder(build.get()).MakeRefWrite(Node(build, ref), Node(build, value)));
  });
}

// Functions, and binding their parameters to constants.
void BindFunctionBuilders(py::module_& m) {
  m.def("make_function", [](const py::sequence& params, const ExprHandle& body, const py::object& ret_type,
                            const py::object& attrs) {
    std::shared_ptr<Arena> build = BuildArena();
    std::vector<const Var*> vars;
    for (const Expr* p : Nodes(build, params)) {
      const Var* v = DynCast<Var>(p);
      if (v == nullptr) throw py::type_error("function parameters are Vars");
      vars.push_back(v);
    }
    const Type* ret = ret_type.is_none() ? nullptr : PyToType(ret_type);
    return WrapExpr(build, IRBuilder(build.get()).MakeFunction(vars, Node(build, body), ret, DictAttrs(attrs)));
  }, py::arg("params"), py::arg("body"), py::arg("ret_type") = py::none(), py::arg("attrs") = py::none());
  // TVM's bind_params_by_name: parameters named in `params` become constants.
  m.def("bind_params_by_name", [](const ExprHandle& func, const py::dict& params) {
    const Function* fn = DynCast<Function>(func.expr);
    if (fn == nullptr) throw py::type_error("bind_params_by_name binds the parameters of a Function");
    std::shared_ptr<Arena> build = BuildArena();
    KeepAlive(build, func.arena);
    return WrapExpr(build, ValueOrThrow(BindParamsByName(fn, ToParamMap(params), build.get())));
  }, py::arg("func"), py::arg("params"));
}

}  // namespace

void BindBuilder(py::module_& m) {
  BindLeafBuilders(m);
  BindCallBuilders(m);
  BindStructureBuilders(m);
  BindFunctionBuilders(m);
}

}  // namespace carve::python
