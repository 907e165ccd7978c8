// Helpers for the BYOC pass tests: modules from Relay text, structural
// comparison with both modules printed on failure, and test targets.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "ir/structural_equal.h"
#include "passes/fold/bind_params.h"
#include "passes/infer/infer_type.h"
#include "passes/pass.h"
#include "passes/infer/type_annotations.h"
#include "passes/byoc/target.h"
#include "support/diagnostics.h"

namespace carve::testing {

// Parses and types `text` (a module, `#[version]` header optional), filling
// missing annotations as TVM's InferType does (tests compare with modules
// TVM typed: `transform.InferType()(expected())`).
inline Module ParseTyped(std::string_view text) {
  std::string source = text.starts_with("#[version") ? std::string(text)
                                                      : "#[version = \"0.0.5\"]\n" + std::string(text);
  absl::StatusOr<Module> mod = ParseModule("test.relay", source);
  EXPECT_TRUE(mod.ok()) << RenderStatus(mod.status());
  if (!mod.ok()) return Module();
  absl::StatusOr<bool> typed = InferTypeAndAnnotate(*mod);
  EXPECT_TRUE(typed.ok()) << RenderStatus(typed.status());
  return *mod;
}

// ParseTyped, then `consts` bound to the parameters they name (TVM tests'
// relay.const tensors, which Relay text cannot spell).
inline Module ParseBound(std::string_view text, const ParamMap& consts) {
  Module mod = ParseTyped(text);
  absl::StatusOr<bool> bound = BindParams(mod, consts);
  EXPECT_TRUE(bound.ok()) << RenderStatus(bound.status());
  return mod;
}

// A tensor of `dtype` and `shape` holding `values` in order, or `values[0]`
// everywhere when it is one value (TVM tests' relay.const tensors).
inline NDArray Values(DataType dtype, std::initializer_list<int64_t> shape,
                      std::vector<double> values) {
  NDArray a = NDArray::Empty(dtype, shape);
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    a.SetFromDouble(i, values.size() == 1 ? values[0] : values[size_t(i)]);
  }
  return a;
}

inline std::string Show(const Module& mod) {
  PrintOptions options;
  options.show_metadata = false;
  return PrintModule(mod, options);
}

// Structural equality (TVM's assert_structural_equal), types ignored unless
// `with_types`; on failure the first difference and both modules.
inline ::testing::AssertionResult SameModule(const Module& actual, const Module& expected,
                                            bool with_types = false) {
  EqualOptions options;
  options.ignore_types = !with_types;
  std::optional<StructuralDiff> diff = StructuralDiffModules(actual, expected, options);
  if (!diff.has_value()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "modules differ at " << diff->lhs_path << " / " << diff->rhs_path << ": "
         << diff->message << "\n--- actual ---\n"
         << Show(actual) << "\n--- expected ---\n"
         << Show(expected);
}

// Runs `pass` on `mod`, expecting success; returns the changed flag.
inline bool RunOk(const PassPtr& pass, Module& mod) {
  absl::StatusOr<bool> changed = RunPass(*pass, mod);
  EXPECT_TRUE(changed.ok()) << RenderStatus(changed.status());
  return changed.ok() && *changed;
}

// Registers a target accepting every call of `ops` (TVM tests register
// `target.<name>` op attributes that return True).
inline TargetSpecPtr RegisterTarget(std::string name, std::vector<std::string_view> ops,
                                    std::vector<CompositeRule> composites = {}) {
  auto spec = std::make_shared<TargetSpec>(std::move(name));
  for (std::string_view op : ops) {
    absl::Status added = spec->AddOp(op);
    EXPECT_TRUE(added.ok()) << added.message();
  }
  for (CompositeRule& rule : composites) spec->AddComposite(std::move(rule));
  TargetRegistry::Global().Register(spec);
  return spec;
}

}  // namespace carve::testing
