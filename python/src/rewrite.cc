// carve.dataflow_pattern.rewrite: TVM's rewrite(callbacks, expr, mod) with
// Python DFPatternCallback objects, on carve's rewrite driver
// (patterns/rewrite.h: TVM's grouping and fixpoint, with carve's limits in
// place of TVM's abort after 100 rounds).
#include <memory>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "absl/cleanup/cleanup.h"

#include "bindings.h"
#include "callbacks.h"
#include "errors.h"
#include "fmt/format.h"
#include "handles.h"
#include "passes/infer/infer_type.h"
#include "patterns/rewrite.h"
#include "patterns_handle.h"

namespace py = pybind11;

namespace carve::python {
namespace {

// node_map of a callback: the rebuilt expressions bound to each node of the
// callback's pattern. It reads the driver's match, which lives only while
// the callback runs, so it refuses to be read after.
struct NodeMap {
  struct State {
    const RewriteContext* ctx = nullptr;
    std::shared_ptr<Arena> arena;
  };
  std::shared_ptr<State> state;

  std::vector<const Expr*> Bound(const PatternHandle& p) const {
    if (state->ctx == nullptr) {
      throw py::value_error("node_map is valid only while its callback runs");
    }
    return state->ctx->GetAll(p.pattern);
  }
};

void BindNodeMap(py::module_& m) {
  py::class_<NodeMap>(m, "NodeMap")
      .def("__getitem__", [](const NodeMap& map, const PatternHandle& p) {
        std::vector<const Expr*> bound = map.Bound(p);
        if (bound.empty()) throw py::key_error("the pattern matched no node in this match");
        py::list out;
        for (const Expr* e : bound) out.append(WrapExpr(map.state->arena, e));
        return out;
      })
      .def("__contains__", [](const NodeMap& map, const PatternHandle& p) {
        return !map.Bound(p).empty();
      })
      .def("get", [](const NodeMap& map, const PatternHandle& p, const py::object& fallback) -> py::object {
        std::vector<const Expr*> bound = map.Bound(p);
        if (bound.empty()) return fallback;
        py::list out;
        for (const Expr* e : bound) out.append(WrapExpr(map.state->arena, e));
        return out;
      }, py::arg("pattern"), py::arg("default") = py::none());
}

// One DFPatternCallback: (pattern, callback, require_type, rewrite_once, name).
RewriteRule ToRule(const py::handle& item, const std::shared_ptr<Arena>& build) {
  auto spec = item.cast<py::tuple>();
  if (spec[0].is_none()) {
    throw py::value_error(fmt::format("{} has no pattern: set self.pattern in its __init__",
                                      spec[4].cast<std::string>()));
  }
  RewriteRule rule;
  rule.name = spec[4].cast<std::string>();
  rule.pattern = spec[0].cast<const PatternHandle&>().pattern;
  rule.require_type = spec[2].cast<bool>();
  rule.rewrite_once = spec[3].cast<bool>();
  py::object fn = py::reinterpret_borrow<py::object>(spec[1]);
  std::string name = rule.name;
  rule.rewrite = [fn, build, name](const RewriteContext& ctx) -> absl::StatusOr<const Expr*> {
    // node_map reads the driver's match, which ends with this call.
    auto state = std::make_shared<NodeMap::State>(NodeMap::State{&ctx, build});
    absl::Cleanup forget = [&] { state->ctx = nullptr; };
    // A failed callback stops the run; its exception is raised when the
    // driver returns.
    return CallPython([&]() -> absl::StatusOr<const Expr*> {
      py::object out = fn(WrapExpr(build, ctx.pre()), WrapExpr(build, ctx.post()), NodeMap{state});
      if (!py::isinstance<ExprHandle>(out)) {
        throw py::type_error(fmt::format("{}.callback returned {}, not an expression", name,
                                         std::string(py::repr(out))));
      }
      const ExprHandle& h = out.cast<const ExprHandle&>();
      KeepAlive(build, h.arena);
      return h.expr;
    }, absl::CancelledError(fmt::format("{}.callback raised", name)));
  };
  return rule;
}

py::object Rewrite(const py::list& callbacks, const ExprHandle& expr, const py::object& mod) {
  std::shared_ptr<Arena> build = BuildArena();
  KeepAlive(build, expr.arena);
  std::vector<RewriteRule> rules;
  for (py::handle item : callbacks) rules.push_back(ToRule(item, build));
  const Module* module = nullptr;
  if (!mod.is_none()) {
    const ModuleHandle& m = mod.cast<const ModuleHandle&>();
    KeepAlive(build, m.mod.shared_arena());
    module = &m.mod;
  }
  RewriteOptions options;
  options.retype = [module](const Expr* e) -> absl::StatusOr<const Expr*> {
    absl::StatusOr<const Type*> type = InferExprType(e, module);
    if (!type.ok()) return type.status();
    return e;
  };
  absl::StatusOr<RewriteResult> result =
      WithCallbacks(build, [&] { return RewriteExpr(rules, expr.expr, build.get(), options); });
  return WrapExpr(build, ValueOrThrow(std::move(result)).expr);
}

}  // namespace

void BindRewrite(py::module_& m) {
  BindNodeMap(m);
  m.def("rewrite", Rewrite, py::arg("callbacks"), py::arg("expr"), py::arg("mod") = py::none());
}

}  // namespace carve::python
