// Helpers shared by the InferType tests: terse IR construction and access to
// diagnostics.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "ir/module.h"
#include "passes/infer/infer_type.h"
#include "support/diagnostics.h"

namespace carve::testing {

class InferTest : public ::testing::Test {
 protected:
  static const TensorType* F32(std::initializer_list<int64_t> shape) {
    return TensorTy(DataType::Float(32), shape);
  }
  static const TensorType* Scalar(DataType dtype) { return ScalarTy(dtype); }

  const Var* V(std::string_view name, const Type* type = nullptr) {
    return b_.MakeVar(name, type, NextSpan());
  }
  const Call* Op(std::string_view op, std::initializer_list<const Expr*> args,
                 const Attrs* attrs = nullptr) {
    const OpExpr* callee = GetOp(op);
    EXPECT_NE(callee, nullptr) << "op " << op << " is not registered";
    return b_.MakeCall(callee, args, attrs, NextSpan());
  }
  const Call* CallOf(const Expr* callee, std::initializer_list<const Expr*> args) {
    return b_.MakeCall(callee, args, nullptr, NextSpan());
  }
  const Function* Fn(std::initializer_list<const Var*> params, const Expr* body,
                     const Type* ret = nullptr, const Attrs* attrs = nullptr) {
    return b_.MakeFunction(std::vector<const Var*>(params), body, ret, attrs, {}, NextSpan());
  }
  const Tuple* Tup(std::initializer_list<const Expr*> fields) {
    return b_.MakeTuple(std::vector<const Expr*>(fields), NextSpan());
  }
  const TupleGetItem* Get(const Expr* tuple, int index) {
    return b_.MakeTupleGetItem(tuple, index, NextSpan());
  }
  const Let* LetIn(const Var* var, const Expr* value, const Expr* body) {
    return b_.MakeLet(var, value, body, NextSpan());
  }
  const If* IfElse(const Expr* cond, const Expr* then_branch, const Expr* else_branch) {
    return b_.MakeIf(cond, then_branch, else_branch, NextSpan());
  }
  const Constant* I32(int v) { return b_.MakeScalar(DataType::Int(32), v, NextSpan()); }
  const Constant* F(float v) { return b_.MakeScalar(DataType::Float(32), v, NextSpan()); }

  // Every node gets a distinct span in a registered file, so tests can check
  // which node a diagnostic points at.
  Span NextSpan() {
    static const uint32_t file =
        SourceManager::Global().Add("infer_test.relay", std::string(1 << 16, ' '));
    next_offset_ += 2;
    return Span{file, next_offset_, next_offset_ + 1};
  }

  static std::string TypeOf(const Expr* e) { return TypeToString(e->checked_type()); }

  // The diagnostics of a failed status, as "message" strings.
  static std::vector<std::string> Messages(const absl::Status& status) {
    std::vector<std::string> out;
    for (const Diagnostic& d : StatusToDiagnostics(status)) out.push_back(d.message);
    return out;
  }

  Module mod_;
  IRBuilder b_ = mod_.builder();
  uint32_t next_offset_ = 0;
};

}  // namespace carve::testing
