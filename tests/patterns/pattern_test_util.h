// Shared fixture for the pattern tests: builds Relay IR the way TVM's Python
// tests do (V("x"), Op("add", {x, y}), Const(1.0f)), parses Relay text for
// expected results, and compares structurally with the first difference in
// the failure message.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "grammar/parser.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "ir/expr.h"
#include "ir/module.h"
#include "ir/structural_equal.h"
#include "passes/infer/infer_type.h"
#include "patterns/builders.h"
#include "patterns/matcher.h"
#include "support/diagnostics.h"

namespace carve::testing {

class PatternTest : public ::testing::Test {
 protected:
  const Var* V(std::string_view name, const Type* type = nullptr) { return b_.MakeVar(name, type); }
  const Call* Op(std::string_view op, std::vector<const Expr*> args,
                 std::vector<std::pair<std::string_view, AttrValue>> attrs = {}) {
    const OpExpr* callee = GetOp(op);
    EXPECT_NE(callee, nullptr) << "unknown op " << op;
    const Attrs* a = nullptr;
    if (callee->info()->attrs != nullptr) {
      a = DefaultAttrs(callee->info()->attrs);
      for (const auto& [k, v] : attrs) a = WithField(a, k, v);
    } else if (!attrs.empty()) {
      a = EmptyAttrs();
      for (const auto& [k, v] : attrs) a = WithAttr(a, k, v);
    }
    return b_.MakeCall(callee, args, a);
  }
  const Call* CallOf(const Expr* callee, std::vector<const Expr*> args,
                     const Attrs* attrs = nullptr) {
    return b_.MakeCall(callee, args, attrs);
  }
  const Constant* Const(double v, DataType dtype = DataType::Float(32)) {
    return b_.MakeScalar(dtype, v);
  }
  const Constant* ConstI(int64_t v) { return b_.MakeScalar(DataType::Int(32), v); }
  const Tuple* Tup(std::vector<const Expr*> fields) { return b_.MakeTuple(fields); }
  const TupleGetItem* Get(const Expr* t, int i) { return b_.MakeTupleGetItem(t, i); }
  const Function* Fn(std::vector<const Var*> params, const Expr* body,
                     const Attrs* attrs = nullptr) {
    return b_.MakeFunction(params, body, nullptr, attrs);
  }
  static const Attrs* FnAttr(std::string_view key, std::string_view value) {
    return WithAttr(EmptyAttrs(), key, AttrValue::Str(value));
  }
  static const TensorType* F32(std::initializer_list<int64_t> shape) {
    return TensorTy(DataType::Float(32), shape);
  }

  // Parses one expression with `free_var` declarations into mod_.
  const Expr* Parse(std::string text) {
    auto e = ParseExpr("test.relay", std::move(text), mod_);
    EXPECT_TRUE(e.ok()) << RenderStatus(e.status());
    return e.ok() ? *e : nullptr;
  }
  // Types `e` in place.
  void Infer(const Expr* e) {
    auto t = InferExprType(e, &mod_);
    ASSERT_TRUE(t.ok()) << RenderStatus(t.status());
  }
  static std::string Print(const Expr* e) {
    PrintOptions options;
    options.header = false;
    return PrintExpr(e, options);
  }
  static void ExpectSame(const Expr* actual, const Expr* expected) {
    auto diff = StructuralDiffExprs(actual, expected);
    EXPECT_FALSE(diff.has_value()) << diff->message << " at " << diff->lhs_path << "\nactual:\n"
                                   << Print(actual) << "\nexpected:\n"
                                   << Print(expected);
  }

  Module mod_;
  IRBuilder b_ = mod_.builder();
};

}  // namespace carve::testing
