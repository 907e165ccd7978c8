// carve.transform: TVM's pass constructors, Sequential, parse_pipeline, and
// tvm.ir.register_op_attr for annotation rules written in Python.
#include "passes.h"

#include <optional>

#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_split.h"
#include "backends/backend.h"
#include "backends/partition.h"
#include "backends/specs.h"
#include "bindings.h"
#include "callbacks.h"
#include "errors.h"
#include "fmt/format.h"
#include "ir/visit.h"
#include "passes/byoc/annotate_target.h"
#include "passes/byoc/annotation.h"
#include "passes/byoc/merge_compiler_regions.h"
#include "passes/byoc/merge_composite.h"
#include "passes/byoc/partition_graph.h"
#include "passes/pass_registry.h"
#include "passes/byoc/target.h"
#include "passes/layout/conv_rules.h"
#include "params.h"
#include "pass_context.h"
#include "passes/pass_gate.h"
#include "patterns_handle.h"

namespace py = pybind11;

namespace carve::python {

ModuleHandle RunOnCopy(const Pass& pass, const ModuleHandle& input) {
  Module mod = input.mod;
  EnsureConstantEvaluator();  // FoldConstant computes with the interpreter's kernels
  ThrowIfError(WithCallbacks(mod.shared_arena(), [&] { return RunPass(pass, mod); }).status());
  return ModuleHandle{std::move(mod)};
}

std::vector<CompositeRule> CompositeTable(const py::sequence& table) {
  std::vector<CompositeRule> rules;
  for (py::handle entry : table) {
    // A TypeError that says what an entry is, not pybind11's RuntimeError
    // "Unable to cast Python instance to C++ type".
    const bool sequence = py::isinstance<py::tuple>(entry) || py::isinstance<py::list>(entry);
    py::tuple row = sequence ? py::tuple(py::reinterpret_borrow<py::sequence>(entry)) : py::tuple();
    if (!sequence || row.size() < 2 || row.size() > 3 || !py::isinstance<py::str>(row[0]) ||
        !py::isinstance<PatternHandle>(row[1])) {
      throw py::type_error(fmt::format(
          "a pattern table entry is (name: str, pattern) or (name, pattern, check), not {}",
          std::string(py::repr(entry))));
    }
    CompositeRule rule;
    rule.name = row[0].cast<std::string>();
    rule.pattern = row[1].cast<const PatternHandle&>().pattern;
    if (row.size() == 3 && !row[2].is_none()) {
      py::object check = py::reinterpret_borrow<py::object>(row[2]);
      rule.check = [check](const Expr* root) { return CallPredicate(check, root); };
      rule.description = py::str(check.attr("__name__"));
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

namespace {

// A name or a list of names, checked as partition_for's (params.h): an
// empty name is an error, not skipped.
std::vector<TargetSpecPtr> Targets(const py::object& targets) {
  return ValueOrThrow(ResolveBackends(BackendNames(targets)));
}

// TVM's MergeComposite(pattern_table): the table is a list of tuples, a
// carve.patterns table (a loaded .pat file's backends), or a backend name.
PassPtr MergeCompositePass(const py::object& table) {
  if (py::isinstance<py::str>(table)) return MergeComposite(Targets(table));
  if (py::isinstance<PatternLibraryHandle>(table)) {
    std::vector<TargetSpecPtr> specs = TargetSpecsOf(*table.cast<const PatternLibraryHandle&>().library);
    if (specs.empty()) throw py::value_error("the pattern file defines no backend");
    return MergeComposite(specs);
  }
  std::vector<CompositeRule> rules = CompositeTable(table.cast<py::sequence>());
  std::string description = "MergeComposite(";
  for (size_t i = 0; i < rules.size(); ++i) description += (i ? "," : "") + rules[i].name;
  description += ")";
  return MakeFunctionPass(
      "MergeComposite", description,
      [rules = std::move(rules)](const Function* fn, const Module& mod,
                                 PassContext&) -> absl::StatusOr<const Function*> {
        return MergeCompositeFunction(fn, rules, mod.arena());
      },
      /*require_types=*/true);
}

// Whether a composite function of `mod` is named "<target>.<pattern>".
bool HasCompositeOf(const Module& mod, std::string_view target) {
  bool found = false;
  for (const auto& [gv, fn] : mod.Functions()) {
    PostOrderVisit(fn, [&](const Expr* e) {
      const auto* f = DynCast<Function>(e);
      if (f == nullptr || !f->HasAttr(attr::kComposite)) return;
      std::string_view name = f->GetStringAttr(attr::kComposite);
      found |= name.size() > target.size() && name.substr(0, target.size()) == target &&
               name[target.size()] == '.';
    });
    if (found) return true;
  }
  return false;
}

// TVM's AnnotateTarget(targets): a target need not be a backend or have op
// rules (register_op_attr): MergeComposite's composites named "mine.*" go to
// "mine" by their name alone. Such a name gets an empty spec; when the module
// has no composite of it either, the name is an error (a misspelt backend),
// not a pass that silently annotates nothing.
PassPtr AnnotateTargetPass(const py::object& targets, bool include_non_call_ops) {
  std::vector<TargetSpecPtr> specs;
  std::vector<std::string> composite_only;
  std::vector<std::string> names = absl::StrSplit(BackendNames(targets), ',');
  for (const std::string& name : names) {
    if (FindBackend(name) != nullptr || TargetRegistry::Global().Find(name) != nullptr) {
      specs.push_back(ValueOrThrow(ResolveBackends(name)).front());  // a broken spec is an error
    } else {
      specs.push_back(std::make_shared<TargetSpec>(name));
      composite_only.push_back(name);
    }
  }
  PassPtr annotate = AnnotateTarget(specs, include_non_call_ops);
  if (composite_only.empty()) return annotate;
  return MakeModulePass(
      annotate->name(), annotate->Describe(),
      [annotate, composite_only](Module& mod, PassContext& ctx) -> absl::StatusOr<bool> {
        for (const std::string& name : composite_only) {
          if (!HasCompositeOf(mod, name)) {
            // The backend lookup's own message names the known backends.
            absl::Status unknown = ResolveBackends(name).status();
            return absl::InvalidArgumentError(fmt::format(
                "AnnotateTarget: {}; nor has '{}' rules registered with "
                "register_op_attr(op, 'target.{}'), nor does the module have a composite named "
                "'{}.*' (MergeComposite)",
                std::string(unknown.message()), name, name, name));
          }
        }
        return annotate->Run(mod, ctx);
      });
}

PyObject* KeepForever(const py::object& fn) {
  static auto* kept = new py::list();  // never freed: see RegisterOpAttr
  kept->append(fn);
  return fn.ptr();
}

// A copy of `spec` whose rules for `op` are replaced by `rule`.
TargetSpecPtr WithOpRule(const TargetSpec& spec, OpRule rule) {
  auto copy = std::make_shared<TargetSpec>(spec.name());
  for (const OpInfo* op : spec.SupportedOps()) {
    if (op == rule.op) continue;
    for (const OpRule& r : spec.OpRules(op)) copy->AddOp(r);
  }
  copy->AddOp(std::move(rule));
  for (const CompositeRule& c : spec.composites()) copy->AddComposite(c);
  copy->set_recipe(spec.recipe());
  copy->set_partition_hook(spec.partition_hook());
  return copy;
}

// tvm.ir.register_op_attr(op_name, "target.<name>", fn): `fn(call)` decides
// whether AnnotateTarget offloads calls of the op to <name> (replacing the
// target's rules for that op; a new target is registered when needed).
void RegisterOpAttr(const std::string& op_name, const std::string& key, const py::object& fn) {
  if (!key.starts_with("target.") || key.size() == 7) {
    ThrowIfError(absl::InvalidArgumentError(fmt::format(
        "register_op_attr: carve keeps only annotation rules, keyed 'target.<name>'; got '{}'", key)));
  }
  std::string target = key.substr(7);
  const OpInfo* op = FindOp(op_name);
  if (op == nullptr) ThrowIfError(absl::InvalidArgumentError(UnknownOpMessage(op_name)));
  TargetSpecPtr existing = TargetRegistry::Global().Find(target);
  if (existing == nullptr) {
    absl::StatusOr<std::vector<TargetSpecPtr>> builtin = ResolveBackends(target);
    if (builtin.ok()) existing = builtin->front();
  }
  TargetSpec empty(target);
  OpRule rule;
  rule.op = op;
  if (py::isinstance<py::bool_>(fn)) {
    // TVM also accepts a constant: register_op_attr("add", "target.x", True).
    bool accept = fn.cast<bool>();
    rule.check = [accept](const Call*) { return accept; };
    rule.description = accept ? "True" : "False";
  } else {
    // The registry outlives the interpreter: it holds the function without
    // owning it, and `fn` is kept alive for the life of the process.
    PyObject* raw = KeepForever(fn);
    rule.check = [raw](const Call* call) {
      return CallPredicate(py::reinterpret_borrow<py::object>(raw), call);
    };
    rule.description = py::str(py::getattr(fn, "__name__", py::str("python function")));
  }
  TargetRegistry::Global().Register(WithOpRule(existing ? *existing : empty, std::move(rule)));
}

// carve.transform.Pass: calling it on a module, its name and members.
void BindPassClass(py::module_& m) {
  py::class_<PassHandle>(m, "Pass",
                         "A pass or a pipeline of passes (tvm.transform.Pass): pass(mod) returns a\n"
                         "new module and leaves mod unchanged. str(pass) is its pipeline text;\n"
                         "pass.passes lists a Sequential's members.")
      .def("__call__", [](const PassHandle& p, const py::object& arg) {
             // pybind11's "incompatible function arguments" says nothing of
             // the usual slip, a pass applied to an expression.
             if (!py::isinstance<ModuleHandle>(arg)) {
               throw py::type_error(fmt::format(
                   "a pass applies to an IRModule, not {} (wrap an expression with "
                   "IRModule.from_expr)",
                   std::string(py::str(arg.get_type().attr("__name__")))));
             }
             const ModuleHandle& mod = arg.cast<const ModuleHandle&>();
             if (!p.tvm_sequential) return RunOnCopy(*p.pass, mod);
             // TVM's default context (opt_level 2) outside any `with`.
             return RunOnCopy(*GatePipeline(p.pass, ActivePassGate().value_or(PassGate{})), mod);
           }, py::arg("mod"))
      .def_property_readonly("name", [](const PassHandle& p) { return p.pass->name(); })
      .def("__str__", [](const PassHandle& p) { return p.pass->Describe(); })
      .def("__repr__", [](const PassHandle& p) { return fmt::format("Pass({})", p.pass->Describe()); })
      .def_property_readonly("passes", [](const PassHandle& p) {
        std::vector<PassHandle> out;
        for (const PassPtr& member : SequenceMembers(*p.pass)) out.push_back({member});
        return out;
      });
}

// TVM's pass constructors (carve.transform.InferType(), ...).
void BindPassConstructors(py::module_& m) {
  m.def("InferType", []() { return PassHandle{ValueOrThrow(ParsePipeline("InferType"))}; },
        "TVM's InferType: fills in the checked type of every expression.");
  m.def("MergeComposite", [](const py::object& table) { return PassHandle{MergeCompositePass(table)}; },
        py::arg("pattern_table"),
        "TVM's MergeComposite: each match of a pattern becomes a call of a function with\n"
        "Composite=NAME. pattern_table: [(name, pattern[, check])] as TVM's, a PatternLibrary\n"
        "(carve.patterns) or a backend name ('dnnl': its spec's composites).");
  m.def("AnnotateTarget", [](const py::object& targets, bool include_non_call_ops) {
    return PassHandle{AnnotateTargetPass(targets, include_non_call_ops)};
  }, py::arg("targets"), py::arg("include_non_call_ops") = true,
        "TVM's AnnotateTarget: compiler_begin/compiler_end around each op a target supports.\n"
        "targets: a name or a list of names (a backend, or rules registered with\n"
        "carve.ir.register_op_attr(op, 'target.NAME')).");
  m.def("MergeCompilerRegions", []() { return PassHandle{MergeCompilerRegions()}; },
        "TVM's MergeCompilerRegions: merges neighbouring annotated regions of one target.");
  m.def("PartitionGraph", [](const std::string& mod_name, bool bind_constants) {
    ValueOrThrow(MangleModuleName(mod_name));
    return PassHandle{PartitionGraph(PartitionGraphOptions{mod_name, bind_constants})};
  }, py::arg("mod_name") = "default", py::arg("bind_constants") = true,
        "TVM's PartitionGraph: each region becomes a global function with Compiler=TARGET,\n"
        "named tvmgen_<mod_name>_<target>_main_N.");
  m.def("Sequential", [](const std::vector<PassHandle>& passes, const std::string& name) {
    std::vector<PassPtr> members;
    for (const PassHandle& p : passes) members.push_back(p.pass);
    return PassHandle{MakeSequential(name, std::move(members)), /*tvm_sequential=*/true};
  }, py::arg("passes"), py::arg("name") = "sequential");
}

// A pass written in Python (tvm.transform.module_pass and
// relay.transform.function_pass): `fn(mod)` returns the new module. It is
// registered under its name with its opt level, so that a Sequential's pass
// context gates it (and disabled_pass names it) as it gates carve's own;
// carve's built-in passes keep their names.
PassHandle PythonPass(const std::string& name, int opt_level, const py::function& fn) {
  static auto* python_names = new absl::flat_hash_set<std::string>();
  if (!python_names->contains(name) && PassRegistry::Global().Find(name) != nullptr) {
    throw py::value_error(fmt::format(
        "a pass written in Python cannot be named '{}': carve has a pass of that name", name));
  }
  PassPtr pass = MakeModulePass(name, name, [fn, name](Module& mod, PassContext&) -> absl::StatusOr<bool> {
    return CallPython([&]() -> absl::StatusOr<bool> {
      py::object out = fn(ModuleHandle{mod});
      if (!py::isinstance<ModuleHandle>(out)) {
        throw py::type_error(fmt::format("the Python pass {} returned {}, not an IRModule", name,
                                         std::string(py::repr(out))));
      }
      mod = out.cast<const ModuleHandle&>().mod;
      return true;
    }, absl::CancelledError(fmt::format("the Python pass {} raised", name)));
  });
  python_names->insert(name);
  PassRegistry::Global().Register(PassInfo{
      name, "a pass written in Python", {},
      [pass](const PassArgs&) -> absl::StatusOr<PassPtr> { return pass; }, opt_level});
  return PassHandle{pass};
}

// carve's own: pipelines from text, the pass list, op attributes.
void BindPassUtilities(py::module_& m) {
  m.def("python_pass", PythonPass, py::arg("name"), py::arg("opt_level"), py::arg("fn"));
  m.def("parse_pipeline", [](const std::string& text) { return PassHandle{ValueOrThrow(ParsePipeline(text))}; },
        py::arg("text"),
        "A pipeline in `carve opt -p` syntax ('InferType,FoldConstant,MergeComposite(dnnl)')\n"
        "as one Pass; list_passes() gives every pass with its parameters.");
  // For transform.ConvertLayout's TVM dict form: None for a name that is
  // no op, else whether ConvertLayout converts the op (TVM ignores the rest).
  m.def("_layout_converts", [](const std::string& name) -> std::optional<bool> {
    const OpInfo* op = FindOp(name);
    if (op == nullptr) return std::nullopt;
    return layout::HasConvertFunction(*op);
  });
  m.def("list_passes", []() {
    std::vector<std::string> out;
    for (const PassInfo* info : PassRegistry::Global().All()) out.push_back(SignatureText(*info));
    return out;
  }, "Every registered pass as 'Name(param=default, ...)' (`carve opt --list-passes`).");
  m.def("register_op_attr", RegisterOpAttr, py::arg("op_name"), py::arg("attr_key"), py::arg("value"));
}

}  // namespace

void BindPasses(py::module_& m) {
  BindPassClass(m);
  BindPassConstructors(m);
  BindPassUtilities(m);
}

}  // namespace carve::python
